// tensor.h — a strided view over shared, byte-addressed storage.
//
// A Tensor is (dtype, shape, element strides, storage offset, storage).
// Strides may be 0 (expanded views) or anything non-contiguous (transposed,
// sliced with gaps); several tensors may share one storage. Rank may be 0
// (a scalar, one element) up to kMaxRank; dims may be 0 (no elements).
//
// Memory: the storage is reference-counted and shared between views; a
// deep copy (`clone_storage`) gives an independent storage with the same
// layout. `check_bounds` validates that every reachable element lies inside
// the storage, so hostile strides cannot cause out-of-bounds access; every
// constructor used on untrusted input calls it.
//
// Thread-safety: a Tensor is a value; concurrent reads are fine, writes to a
// shared storage need external synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/dtype.h"

namespace sp {

inline constexpr int kMaxRank = 32;

using Shape = std::vector<int64_t>;

class Tensor {
 public:
  Tensor() = default;
  // A fresh contiguous tensor, zero-filled.
  static Tensor zeros(DType dtype, const Shape& shape);
  // A view with explicit strides/offset over `storage` (bytes). Throws
  // std::invalid_argument if some element would fall outside the storage or
  // a size/stride is negative.
  static Tensor view(DType dtype, Shape shape, Shape strides, int64_t offset,
                     std::shared_ptr<std::vector<std::byte>> storage);

  DType dtype() const { return dtype_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int64_t size(int64_t d) const { return shape_[static_cast<size_t>(d)]; }
  int64_t stride(int64_t d) const { return strides_[static_cast<size_t>(d)]; }
  int64_t offset() const { return offset_; }
  int64_t numel() const;
  bool is_contiguous() const;
  // True when two distinct multi-indices can address the same element
  // (a stride-0 dim of size > 1, or overlapping strides).
  bool has_internal_overlap() const;
  const std::shared_ptr<std::vector<std::byte>>& storage() const { return storage_; }
  size_t storage_elements() const { return storage_ ? storage_->size() / dtype_size(dtype_) : 0; }

  // Element offset (in elements, from storage start) of a multi-index.
  int64_t element_offset(const int64_t* idx) const;
  int64_t element_offset(const Shape& idx) const { return element_offset(idx.data()); }
  std::byte* element_ptr(int64_t element_off) const {
    return storage_->data() + static_cast<size_t>(element_off) * dtype_size(dtype_);
  }
  uint64_t bits_at(const Shape& idx) const { return load_bits(dtype_, element_ptr(element_offset(idx))); }
  void set_bits_at(const Shape& idx, uint64_t bits) const {
    store_bits(dtype_, element_ptr(element_offset(idx)), bits);
  }
  Value value_at(const Shape& idx) const { return value_from_bits(dtype_, bits_at(idx)); }

  // Same layout (shape, strides, offset) over an independent copy of the storage.
  Tensor clone_storage() const;
  // A contiguous copy of the elements in row-major order.
  Tensor contiguous() const;
  // Elements in row-major (logical) order, as bit patterns.
  std::vector<uint64_t> to_bits() const;

  std::string describe() const;  // "float32[2, 3] strides [3, 1] offset 0"

 private:
  DType dtype_ = DType::Float32;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  std::shared_ptr<std::vector<std::byte>> storage_;
};

// Row-major strides of a contiguous tensor of `shape`.
Shape contiguous_strides(const Shape& shape);
// Product of sizes, or -1 on int64 overflow.
int64_t checked_numel(const Shape& shape);
// Advances a row-major multi-index; returns false after the last one.
bool next_index(Shape& idx, const Shape& shape);
// "[1][0][2]"
std::string format_index(const Shape& idx);
std::string format_shape(const Shape& shape);  // "[2, 3]"

}  // namespace sp
