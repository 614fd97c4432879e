// torch_index_fill.cc — cpu kernels for Tensor.index_fill_ and
// torch.index_fill.
//
// Validate (backend_rules::check_torch_index_fill: T-IF2, T-D1, T-IF3,
// T-IF4), scan the index values for [-S, S) (self untouched on a bad one,
// T-IF5), then store value in every element of self's slice index[i],
// i in order. A negative value in range is wrapped Python-style, as LibTorch
// 1.13 does (the document is silent, T-IF6: the reference allows any
// outcome there). An in-place self whose elements alias is written through
// the aliases (T-IF7, also unspecified).
//
// Self's logical shape is [O, S, L] around dim; parts own disjoint outer
// positions or disjoint inner ranges, so no two parts write one element.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

// Offsets of every position of dims [from, to) of `shape` (row-major).
std::vector<int64_t> offsets(const Shape& shape, const Shape& strides, size_t from, size_t to) {
  std::vector<int64_t> out{0};
  for (size_t d = from; d < to; ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * static_cast<size_t>(shape[d]));
    for (int64_t base : out)
      for (int64_t k = 0; k < shape[d]; ++k) next.push_back(base + k * strides[d]);
    out = std::move(next);
  }
  return out;
}

Outcome index_fill(CpuContext& cpu, const OpCall& call) {
  uint64_t value_bits = 0;
  if (auto v = backend_rules::check_torch_index_fill(call, &value_bits))
    return Outcome::of_error(v->category, v->message);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Shape index_shape = logical_shape(index), index_strides = logical_strides(index);
  const Shape self_shape = logical_shape(self);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(self_shape.size()));
  const int64_t size = self_shape[static_cast<size_t>(dim)];
  if (index.numel() > 0 &&
      find_bad_index(index.dtype(), data(index), index_shape, index_strides, -size, size, cpu.pool()))
    return cpu.first_bad_index_error(index, index_shape, index_strides, -size, size, dim);
  Tensor target = is_inplace_op(call.op) ? self : cpu.fresh_copy(self);
  if (index.numel() == 0 || self.numel() == 0) return Outcome::of_outputs({target});

  std::vector<int64_t> rows(static_cast<size_t>(index.numel()));
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = index.value_at(index.rank() == 0 ? Shape{} : Shape{i}).i;
    rows[static_cast<size_t>(i)] = v < 0 ? v + size : v;
  }
  const Shape strides = logical_strides(target);
  const size_t d = static_cast<size_t>(dim);
  const std::vector<int64_t> outer = offsets(self_shape, strides, 0, d);
  const std::vector<int64_t> inner = offsets(self_shape, strides, d + 1, self_shape.size());
  const int64_t along = strides[d];
  std::byte* a = data(target);
  const size_t element = dtype_size(target.dtype());
  const auto e = static_cast<int64_t>(element);
  const auto n_outer = static_cast<int64_t>(outer.size());
  const auto n_inner = static_cast<int64_t>(inner.size());
  const auto run_part = [&](int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t row : rows) {
        const int64_t base = outer[static_cast<size_t>(o)] + row * along;
        for (int64_t l = l0; l < l1; ++l)
          std::memcpy(a + (base + inner[static_cast<size_t>(l)]) * e, &value_bits, element);  // little-endian
      }
  };
  // Aliased elements (T-IF7) are written by one thread.
  const int threads = target.has_internal_overlap() ? 1 : threads_for(n_outer * index.numel() * n_inner, cpu.pool());
  const bool by_outer = n_outer >= 2 * threads || n_inner == 1;
  const int64_t extent = by_outer ? n_outer : n_inner;
  const int parts = static_cast<int>(std::min<int64_t>(extent, threads == 1 ? 1 : threads * kPartsPerThread));
  const auto part = [&](int i) {
    const int64_t lo = extent * i / parts, hi = extent * (i + 1) / parts;
    if (by_outer)
      run_part(lo, hi, 0, n_inner);
    else
      run_part(0, n_outer, lo, hi);
  };
  if (parts <= 1)
    part(0);
  else
    cpu.pool().run(parts, part);
  return Outcome::of_outputs({target});
}

}  // namespace

void register_torch_index_fill(CpuOps& ops) {
  ops.add("torch.index_fill_", index_fill);
  ops.add("torch.index_fill", index_fill);
}

}  // namespace sp::cpu
