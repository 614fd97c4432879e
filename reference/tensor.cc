#include "reference/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sp {

Shape contiguous_strides(const Shape& shape) {
  Shape s(shape.size());
  int64_t acc = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = acc;
    // Saturates instead of overflowing: only a shape with no element (a 0 dim
    // beside sizes near 2^63) gets this far, and its strides address nothing.
    if (__builtin_mul_overflow(acc, std::max<int64_t>(shape[d], 1), &acc)) acc = std::numeric_limits<int64_t>::max();
  }
  return s;
}

int64_t checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) return -1;
    if (s == 0) return 0;
  }
  for (int64_t s : shape) {
    if (__builtin_mul_overflow(n, s, &n)) return -1;
  }
  return n;
}

bool next_index(Shape& idx, const Shape& shape) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

std::string format_index(const Shape& idx) {
  std::string s;
  for (int64_t i : idx) s += "[" + std::to_string(i) + "]";
  return s;
}

std::string format_shape(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Tensor Tensor::zeros(DType dtype, const Shape& shape) {
  const int64_t n = checked_numel(shape);
  if (n < 0) throw std::invalid_argument("tensor size overflows int64: " + format_shape(shape));
  auto storage = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(n) * dtype_size(dtype));
  return view(dtype, shape, contiguous_strides(shape), 0, std::move(storage));
}

Tensor Tensor::view(DType dtype, Shape shape, Shape strides, int64_t offset,
                    std::shared_ptr<std::vector<std::byte>> storage) {
  if (shape.size() != strides.size()) throw std::invalid_argument("strides must have one entry per dim");
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw std::invalid_argument("rank " + std::to_string(shape.size()) + " exceeds the limit " +
                                std::to_string(kMaxRank));
  if (offset < 0) throw std::invalid_argument("storage offset must be >= 0");
  if (!storage) throw std::invalid_argument("no storage");
  const int64_t n = checked_numel(shape);
  if (n < 0) throw std::invalid_argument("negative size or element count overflows int64 in " + format_shape(shape));
  for (int64_t st : strides)
    if (st < 0) throw std::invalid_argument("negative strides are not supported");
  const int64_t avail = static_cast<int64_t>(storage->size() / dtype_size(dtype));
  if (n > 0) {
    // Largest reachable element offset; overflow-checked.
    int64_t last = offset;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t span;
      if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) || __builtin_add_overflow(last, span, &last))
        throw std::invalid_argument("strides reach beyond int64");
    }
    if (last >= avail)
      throw std::invalid_argument("view reaches element " + std::to_string(last) + " but storage holds " +
                                  std::to_string(avail) + " elements");
  } else if (offset > avail) {
    throw std::invalid_argument("storage offset beyond storage");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  t.storage_ = std::move(storage);
  return t;
}

int64_t Tensor::numel() const { return checked_numel(shape_); }

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // no element to misplace
  int64_t expect = 1;
  for (size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] == 1) continue;
    if (strides_[d] != expect) return false;
    expect *= shape_[d];
  }
  return true;
}

bool Tensor::has_internal_overlap() const {
  if (numel() <= 1) return false;
  // Sort dims of size > 1 by stride; non-overlapping iff each stride is at
  // least the extent spanned by all smaller-strided dims.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] > 1) dims.emplace_back(strides_[d], shape_[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 1;
  for (auto [st, sz] : dims) {
    if (st < span) return true;
    span = st * (sz - 1) + span;
  }
  return false;
}

int64_t Tensor::element_offset(const int64_t* idx) const {
  int64_t off = offset_;
  for (size_t d = 0; d < shape_.size(); ++d) off += idx[d] * strides_[d];
  return off;
}

Tensor Tensor::clone_storage() const {
  Tensor t = *this;
  t.storage_ = std::make_shared<std::vector<std::byte>>(*storage_);
  return t;
}

std::vector<uint64_t> Tensor::to_bits() const {
  std::vector<uint64_t> out;
  const int64_t n = numel();
  if (n <= 0) return out;
  out.reserve(static_cast<size_t>(n));
  Shape idx(shape_.size(), 0);
  do {
    out.push_back(bits_at(idx));
  } while (next_index(idx, shape_));
  return out;
}

Tensor Tensor::contiguous() const {
  Tensor out = zeros(dtype_, shape_);
  const int64_t n = numel();
  if (n <= 0) return out;
  const size_t size = dtype_size(dtype_);
  if (is_contiguous()) {  // one copy of the bytes (a huge case's 2 GiB output: no per-element walk)
    std::memcpy(out.storage_->data(), element_ptr(offset_), static_cast<size_t>(n) * size);
    return out;
  }
  // Row by row along the last dim: element bytes copied, no intermediate
  // list of every element's bits (8 bytes an element).
  const size_t rank = shape_.size();
  const int64_t inner = rank ? shape_[rank - 1] : 1, inner_stride = rank ? strides_[rank - 1] : 0;
  Shape idx(rank, 0);
  std::byte* to = out.storage_->data();
  for (int64_t row = 0; row < n / inner; ++row) {
    const std::byte* from = element_ptr(element_offset(idx));
    for (int64_t i = 0; i < inner; ++i, to += size)
      std::memcpy(to, from + static_cast<size_t>(i * inner_stride) * size, size);
    if (rank) idx[rank - 1] = inner - 1;
    next_index(idx, shape_);
  }
  return out;
}

std::string Tensor::describe() const {
  std::string s = std::string(dtype_name(dtype_)) + format_shape(shape_);
  if (!is_contiguous() || offset_ != 0)
    s += " strides " + format_shape(strides_) + " offset " + std::to_string(offset_);
  return s;
}

}  // namespace sp
