#include "harness/layouts.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "reference/op_table.h"

namespace sp {

const std::vector<std::string>& layout_names() {
  static const std::vector<std::string> names = {"transposed", "gapped", "offset", "expanded"};
  return names;
}

bool is_layout_name(const std::string& name) {
  const auto& n = layout_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

Tensor place_with_layout(const Tensor& t, const Shape& strides, int64_t offset) {
  // The storage the new layout reaches, overflow-checked: the layout is built
  // from t's logical shape (t's own offset and strides play no part), so for
  // a loaded tensor this stays within a small multiple of its element count.
  if (offset < 0 || strides.size() != t.shape().size())
    throw std::invalid_argument("place_with_layout: a negative offset or strides of another rank");
  int64_t reach = offset;
  bool overflow = false;
  if (t.numel() > 0) {
    for (size_t d = 0; d < strides.size(); ++d) {
      int64_t span = 0;
      overflow |=
          __builtin_mul_overflow(t.shape()[d] - 1, strides[d], &span) || __builtin_add_overflow(reach, span, &reach);
    }
  }
  size_t bytes = 0;
  overflow |= __builtin_add_overflow(reach, 1, &reach) || reach <= 0 ||
              __builtin_mul_overflow(static_cast<size_t>(reach), dtype_size(t.dtype()), &bytes);
  if (overflow) throw std::invalid_argument("place_with_layout: the layout reaches beyond int64");
  auto storage = std::make_shared<std::vector<std::byte>>(bytes, kLayoutSentinel);
  Tensor out = Tensor::view(t.dtype(), t.shape(), strides, offset, std::move(storage));
  if (t.numel() > 0) {
    Shape idx(t.shape().size(), 0);
    do {
      out.set_bits_at(idx, t.bits_at(idx));
    } while (next_index(idx, t.shape()));
  }
  return out;
}

namespace {

std::optional<Tensor> transposed(const Tensor& t) {
  const size_t r = t.shape().size();
  if (r < 2 || t.numel() == 0 || (t.shape()[r - 1] == 1 && t.shape()[r - 2] == 1)) return std::nullopt;
  // Contiguous strides of the shape with the last two dims swapped, mapped back.
  Shape swapped = t.shape();
  std::swap(swapped[r - 1], swapped[r - 2]);
  Shape st = contiguous_strides(swapped);
  std::swap(st[r - 1], st[r - 2]);
  return place_with_layout(t, st, 0);
}

std::optional<Tensor> gapped(const Tensor& t) {
  if (t.shape().empty() || t.numel() == 0) return std::nullopt;
  // Laid out as a [..., 2 * last] tensor of which every other element along
  // the last dim is used, and every dim's stride twice the dense one.
  Shape wide = t.shape();
  wide.back() *= 2;
  Shape st = contiguous_strides(wide);
  st.back() = 2;
  return place_with_layout(t, st, 0);
}

std::optional<Tensor> offset(const Tensor& t) {
  return place_with_layout(t, contiguous_strides(t.shape()), kLayoutOffset);
}

std::optional<Tensor> expanded(const Tensor& t) {
  if (t.numel() <= 1) return std::nullopt;
  Shape st = contiguous_strides(t.shape());
  bool any = false;
  const std::vector<uint64_t> bits = t.to_bits();
  for (size_t d = 0; d < t.shape().size(); ++d) {
    if (t.shape()[d] <= 1) continue;
    // Constant along d: every element equals the one at index 0 of d.
    bool constant = true;
    const Shape cs = contiguous_strides(t.shape());
    Shape idx(t.shape().size(), 0);
    int64_t linear = 0;
    do {
      const int64_t base = linear - idx[d] * cs[d];
      if (bits[static_cast<size_t>(linear)] != bits[static_cast<size_t>(base)]) {
        constant = false;
        break;
      }
      ++linear;
    } while (next_index(idx, t.shape()));
    if (constant) {
      st[d] = 0;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  // Compact the remaining strides over the dims that still vary.
  int64_t acc = 1;
  for (size_t d = t.shape().size(); d-- > 0;) {
    if (st[d] == 0) continue;
    st[d] = acc;
    acc *= t.shape()[d];
  }
  return place_with_layout(t, st, 0);
}

}  // namespace

std::optional<OpCall> relayout(const OpCall& call, const std::string& layout) {
  OpCall out = call;
  bool changed = false;
  const std::string written = written_operand(call);
  for (auto& [name, t] : out.tensors) {
    // An operand whose elements alias (stride 0), or that shares its storage
    // with another operand (out= over an input), keeps its layout: a
    // re-layout would turn it into a different call.
    if (t.has_internal_overlap()) continue;
    const bool shares_storage =
        std::any_of(call.tensors.begin(), call.tensors.end(), [&, &name = name, &t = t](const auto& other) {
          return other.first != name && other.second.storage() && other.second.storage() == t.storage();
        });
    if (shares_storage) continue;
    std::optional<Tensor> moved;
    if (layout == "transposed")
      moved = transposed(t);
    else if (layout == "gapped")
      moved = gapped(t);
    else if (layout == "offset")
      moved = offset(t);
    else if (layout == "expanded" && name != written)
      moved = expanded(t);
    if (moved) {
      t = *moved;
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace sp
