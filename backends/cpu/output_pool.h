// output_pool.h — fresh output tensors for the cpu backend, without the
// zero-fill and page faults of a new allocation on every call.
//
// Tensor::zeros value-initializes a new std::vector: for a 512 MiB output
// that is a single-threaded memset plus 131k first-touch page faults, more
// than the kernel that then overwrites every element. The pool keeps the
// storages of the backend's recent outputs; once the caller has released
// one (the pool holds the only reference), the next output of the same
// byte size reuses it as is. Its elements are then stale, so only kernels
// that write every element of the output may ask for one.
//
// Memory: at most kKept storages are held; a released one stays allocated
// until it is reused or evicted by a newer output. Small outputs are not
// pooled (allocating them is cheap).
//
// Thread-safety: one caller at a time, like the backend that owns it. A
// storage is reused only when its use count is 1: no other owner exists
// that could still read or write it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "reference/tensor.h"

namespace sp::cpu {

class OutputPool {
 public:
  // reuse false: nothing is kept, every output is a new allocation
  // (Tensor::zeros: the zero-fill and first-touch page faults included).
  explicit OutputPool(bool reuse = true) : reuse_(reuse) {}

  // A contiguous tensor of `dtype` and `shape` whose element values are
  // unspecified: the caller must write every element before handing it out.
  Tensor uninitialized(DType dtype, const Shape& shape);

 private:
  static constexpr size_t kKept = 2;
  static constexpr size_t kMinPooledBytes = size_t{1} << 20;
  bool reuse_ = true;
  std::vector<std::shared_ptr<std::vector<std::byte>>> kept_;  // oldest first
};

}  // namespace sp::cpu
