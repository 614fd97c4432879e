// index_math.h — the per-element index arithmetic of the CUDA backend,
// written once for host and device.
//
// The kernels in backends/cuda/*.cu call exactly these functions, and
// tests/cuda_index_math_test.cc runs them on the CPU (compiled by g++)
// against sp::Tensor::element_offset, so the arithmetic the GPU performs is
// tested on machines without a GPU. Everything is a plain struct or a pure
// function over fixed-size arrays: nothing allocates, nothing asserts;
// failures come back as an IndexStatus.
//
// Conventions: a position is a row-major linear number over a shape (the
// index tensor's, for scatter and gather); a multi-index has `rank`
// entries; offsets are in elements from the start of the operand's storage
// (TensorMeta.offset included), the same unit as Tensor::element_offset.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define SP_HD __host__ __device__
#else
#define SP_HD
#endif

namespace sp::cuda {

// Ranks above this are answered "unsupported" by the backend (every
// documented rule caps well below: MindSpore at 8).
inline constexpr int kMaxMetaRank = 16;

// A strided view without its storage: what a kernel needs to address an
// element. Passed to kernels by value.
struct TensorMeta {
  int rank = 0;
  int64_t sizes[kMaxMetaRank] = {};
  int64_t strides[kMaxMetaRank] = {};
  int64_t offset = 0;
};

enum class IndexStatus : int {
  Ok = 0,
  BelowRange,  // index value < lowest allowed (0, or -size for MindSpore)
  AboveRange,  // index value >= size
  BadDim,      // dim outside [0, rank)
};

// How index values are read along `dim`.
enum class IndexRule : int {
  ZeroBased,      // PyTorch, Paddle before 3.0: v in [0, s)
  NegativeWraps,  // MindSpore, Paddle >= 3.0: v in [-s, s); negative v counts from the end (v + s)
};

// Number of elements of a shape; 1 for rank 0.
SP_HD inline int64_t meta_numel(const TensorMeta& m) {
  int64_t n = 1;
  for (int d = 0; d < m.rank; ++d) n *= m.sizes[d];
  return n;
}

// Row-major linear position -> multi-index over `shape` (out has shape.rank
// entries). REQUIRES: 0 <= linear < meta_numel(shape).
SP_HD inline void linear_to_multi_index(int64_t linear, const TensorMeta& shape, int64_t* out) {
  for (int d = shape.rank - 1; d >= 0; --d) {
    const int64_t size = shape.sizes[d];
    out[d] = linear % size;
    linear /= size;
  }
}

// Multi-index -> element offset via the meta's strides and offset.
SP_HD inline int64_t element_offset(const TensorMeta& m, const int64_t* idx) {
  int64_t off = m.offset;
  for (int d = 0; d < m.rank; ++d) off += idx[d] * m.strides[d];
  return off;
}

// Checks one index value against a dim of size `size` under `rule`; on Ok
// stores the non-negative coordinate in *normalized.
SP_HD inline IndexStatus check_index_value(int64_t value, int64_t size, IndexRule rule, int64_t* normalized) {
  const int64_t lowest = rule == IndexRule::NegativeWraps ? -size : 0;
  if (value < lowest) return IndexStatus::BelowRange;
  if (value >= size) return IndexStatus::AboveRange;
  *normalized = value < 0 ? value + size : value;
  return IndexStatus::Ok;
}

// The offset in `m` of multi-index `pos` with coordinate `dim` replaced by
// the index value `value` (checked against m.sizes[dim] under `rule`).
// Scatter: m = self/out, pos = the index position, gives the target.
// Gather:  m = input,    pos = the index position, gives the source.
SP_HD inline IndexStatus offset_with_index_on_dim(const TensorMeta& m, const int64_t* pos, int dim, int64_t value,
                                                  IndexRule rule, int64_t* offset) {
  if (dim < 0 || dim >= m.rank) return IndexStatus::BadDim;
  int64_t coordinate = 0;
  const IndexStatus s = check_index_value(value, m.sizes[dim], rule, &coordinate);
  if (s != IndexStatus::Ok) return s;
  int64_t off = m.offset;
  for (int d = 0; d < m.rank; ++d) off += (d == dim ? coordinate : pos[d]) * m.strides[d];
  *offset = off;
  return IndexStatus::Ok;
}

// Scatter: where the value visited at index position `pos` lands in self.
SP_HD inline IndexStatus scatter_target_offset(const TensorMeta& self, const int64_t* pos, int dim, int64_t index_value,
                                               IndexRule rule, int64_t* offset) {
  return offset_with_index_on_dim(self, pos, dim, index_value, rule, offset);
}

// Gather: which input element feeds the output at index position `pos`.
SP_HD inline IndexStatus gather_source_offset(const TensorMeta& input, const int64_t* pos, int dim, int64_t index_value,
                                              IndexRule rule, int64_t* offset) {
  return offset_with_index_on_dim(input, pos, dim, index_value, rule, offset);
}

}  // namespace sp::cuda
