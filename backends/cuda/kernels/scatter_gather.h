// scatter_gather.h — the bodies of every kernel of the CUDA backend,
// host/device (platform.h). Each kernel is a struct holding its arguments
// by value, called once per GPU thread with that thread's GridPos; it walks
// its positions with a grid-stride loop. The device runs one with
// run_kernel<<<blocks, kThreadsPerBlock>>> (scatter_gather.cu), the host
// launcher calls it for every thread of the same grid (host_launcher.h).
//
// A bad index value is never written through: the thread records its
// position into the error word (atomic_min, so the reported position is the
// row-major first) and stops.
#pragma once

#include <type_traits>

#include "backends/cuda/cuda_ops.h"
#include "backends/cuda/kernels/atomics.h"

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

// Everything a scatter kernel reads.
struct ScatterArgs {
  TensorMeta target;
  TensorMeta index;
  TensorMeta src;
  void* target_data;
  const void* index_data;
  const void* src_data;  // null: the scalar in value_bits
  uint64_t value_bits;
  bool has_alpha;
  uint64_t alpha_bits;
  int dim;
  IndexRule rule;
  WriteMode mode;
};

template <class I>
SP_HD int64_t index_value_at(const TensorMeta& index, const void* data, const int64_t* pos) {
  return static_cast<int64_t>(static_cast<const I*>(data)[element_offset(index, pos)]);
}

template <class T>
SP_HD T from_low_bits(uint64_t bits) {
  return bit_cast_hd<T>(static_cast<typename BitsOf<sizeof(T)>::T>(bits));
}

// The value visited at index position `pos`: src at the same position, or
// the scalar (its low bytes: little-endian); times alpha (index_add), rounded
// once to the element's dtype.
template <DType D>
SP_HD typename Elem<D>::T visited_value(const ScatterArgs& a, const int64_t* pos) {
  using T = typename Elem<D>::T;
  const T v =
      a.src_data ? static_cast<const T*>(a.src_data)[element_offset(a.src, pos)] : from_low_bits<T>(a.value_bits);
  return a.has_alpha ? Elem<D>::mul(from_low_bits<T>(a.alpha_bits), v) : v;
}

// The validation pass: checks every index value, writes nothing else.
template <class I>
struct ValidateIndexKernel {
  TensorMeta index;
  const void* data;
  int64_t positions;
  int64_t dim_extent;
  IndexRule rule;
  unsigned long long* error_word;

  SP_HD void operator()(GridPos g) const {
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, index, pos);
      int64_t normalized = 0;
      if (check_index_value(index_value_at<I>(index, data, pos), dim_extent, rule, &normalized) != IndexStatus::Ok)
        atomic_min(error_word, static_cast<unsigned long long>(p));
    }
  }
};

// One thread per index position. `zeroing` is the first pass of Paddle's
// overwrite=False (every indexed target set to 0; concurrent zero stores
// agree, so it needs no atomics).
template <DType D, class I>
struct ScatterKernel {
  ScatterArgs a;
  int64_t positions;
  bool zeroing;
  unsigned long long* error_word;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    T* target = static_cast<T*>(a.target_data);
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, a.index, pos);
      int64_t at = 0;
      if (scatter_target_offset(a.target, pos, a.dim, index_value_at<I>(a.index, a.index_data, pos), a.rule, &at) !=
          IndexStatus::Ok) {
        atomic_min(error_word, static_cast<unsigned long long>(p));
        return;
      }
      if (zeroing) {
        racy_store(target + at, bit_cast_hd<T>(typename BitsOf<sizeof(T)>::T{0}));
        continue;
      }
      const T v = visited_value<D>(a, pos);
      switch (a.mode) {
        case WriteMode::Overwrite:
          racy_store(target + at, v);
          break;
        case WriteMode::Add:
          atomic_add<D>(target + at, v);
          break;
        case WriteMode::Multiply:
          atomic_combine<D>(target + at, [v](T old) { return Elem<D>::mul(old, v); });
          break;
      }
    }
  }
};

// Deterministic mode, step 1: the sort keys (target offset; -1 for a bad
// index) and payloads (position) of every index position.
template <class I>
struct TargetKeysKernel {
  ScatterArgs a;
  int64_t positions;
  int64_t* keys;
  int64_t* position_of;
  unsigned long long* error_word;

  SP_HD void operator()(GridPos g) const {
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, a.index, pos);
      int64_t at = 0;
      if (scatter_target_offset(a.target, pos, a.dim, index_value_at<I>(a.index, a.index_data, pos), a.rule, &at) !=
          IndexStatus::Ok) {
        atomic_min(error_word, static_cast<unsigned long long>(p));
        at = -1;
      }
      keys[p] = at;
      position_of[p] = p;
    }
  }
};

// Deterministic mode, step 3: after a stable sort by target, the thread at
// the head of each run of equal targets applies the run in position order.
template <DType D>
struct ApplySortedRunsKernel {
  ScatterArgs a;
  int64_t positions;
  const int64_t* keys;
  const int64_t* position_of;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    T* target = static_cast<T*>(a.target_data);
    int64_t pos[kMaxMetaRank];
    for (int64_t i = g.first; i < positions; i += g.stride) {
      const int64_t at = keys[i];
      if (at < 0 || (i > 0 && keys[i - 1] == at)) continue;
      T acc = target[at];
      for (int64_t j = i; j < positions && keys[j] == at; ++j) {
        linear_to_multi_index(position_of[j], a.index, pos);
        const T v = visited_value<D>(a, pos);
        switch (a.mode) {
          case WriteMode::Overwrite:
            acc = v;
            break;
          case WriteMode::Add:
            acc = Elem<D>::add(acc, v);
            break;
          case WriteMode::Multiply:
            acc = Elem<D>::mul(acc, v);
            break;
        }
      }
      target[at] = acc;
    }
  }
};

template <DType D, class I>
struct GatherKernel {
  TensorMeta input;
  const void* input_data;
  TensorMeta index;
  const void* index_data;
  TensorMeta out;
  void* out_data;
  int dim;
  IndexRule rule;
  int64_t positions;
  unsigned long long* error_word;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, index, pos);
      int64_t from = 0;
      if (gather_source_offset(input, pos, dim, index_value_at<I>(index, index_data, pos), rule, &from) !=
          IndexStatus::Ok) {
        atomic_min(error_word, static_cast<unsigned long long>(p));
        return;
      }
      static_cast<T*>(out_data)[element_offset(out, pos)] = static_cast<const T*>(input_data)[from];
    }
  }
};

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
