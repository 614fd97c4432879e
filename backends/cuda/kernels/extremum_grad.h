// extremum_grad.h — the kernel bodies of scatter_reduce's amax / amin
// gradient (backward_ops.cc), host/device (platform.h). The slot arrays
// (result, self, grad_self, hits, winners, share) are contiguous over
// self's logical shape, so a scatter target offset into `slots` addresses
// all of them; src_wins and grad_src are contiguous over index's positions.
//
// Each slot's gradient is shared evenly by the terms equal to its result
// (a NaN result: by the NaN terms), self one of them only when
// include_self; a slot no position reaches keeps grad_output:
//   1. per index position: hits[slot] += 1; src_wins[p] = src[p] same as
//      result[slot]; winners[slot] += src_wins[p]   (integer atomics: any order)
//   2. per slot: share = grad / (winners + self's win) when that exceeds 1;
//      grad_self = share where self won, 0 where it lost, grad untouched
//      where no position hit
//   3. per index position: grad_src[p] = src_wins[p] ? share[slot] : 0
#pragma once

#include "backends/cuda/kernels/scatter_gather.h"

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

template <class T>
SP_HD bool same_value(T a, T b) {
  return is_nan_elem(a) ? is_nan_elem(b) : !is_nan_elem(b) && compare_value(a) == compare_value(b);
}

struct ExtremumGradArgs {
  TensorMeta slots;  // contiguous, offset 0: self's logical shape
  TensorMeta index;
  TensorMeta src;
  const void* result;
  const void* self;
  void* grad_self;
  const void* index_data;
  const void* src_data;
  int32_t* hits;
  int32_t* winners;
  uint8_t* src_wins;
  void* share;
  void* grad_src;
  int dim;
  bool include_self;
};

template <class I>
SP_HD bool slot_of(const ExtremumGradArgs& a, const int64_t* pos, int64_t* at) {
  return scatter_target_offset(a.slots, pos, a.dim, index_value_at<I>(a.index, a.index_data, pos), IndexRule::ZeroBased,
                               at) == IndexStatus::Ok;
}

template <DType D, class I>
struct ExtremumTermsKernel {
  ExtremumGradArgs a;
  int64_t positions;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, a.index, pos);
      int64_t at = 0;
      if (!slot_of<I>(a, pos, &at)) continue;  // validated before: never taken
      const T v = static_cast<const T*>(a.src_data)[element_offset(a.src, pos)];
      const bool win = same_value(v, static_cast<const T*>(a.result)[at]);
      a.src_wins[p] = win ? 1 : 0;
      atomic_add<DType::Int32>(a.hits + at, 1);
      if (win) atomic_add<DType::Int32>(a.winners + at, 1);
    }
  }
};

template <DType D>
struct ExtremumSlotsKernel {
  ExtremumGradArgs a;
  int64_t elements;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    const T* result = static_cast<const T*>(a.result);
    const T* self = static_cast<const T*>(a.self);
    T* grad = static_cast<T*>(a.grad_self);
    T* share = static_cast<T*>(a.share);
    for (int64_t i = g.first; i < elements; i += g.stride) {
      if (a.hits[i] == 0) {
        share[i] = grad[i];
        continue;
      }
      const bool self_wins = a.include_self && same_value(self[i], result[i]);
      const int64_t w = a.winners[i] + (self_wins ? 1 : 0);
      share[i] = w > 1 ? mean_of<D>(grad[i], w) : grad[i];
      grad[i] = self_wins ? share[i] : from_low_bits<T>(0);
    }
  }
};

template <DType D, class I>
struct ExtremumSrcKernel {
  ExtremumGradArgs a;
  int64_t positions;

  SP_HD void operator()(GridPos g) const {
    using T = typename Elem<D>::T;
    int64_t pos[kMaxMetaRank];
    for (int64_t p = g.first; p < positions; p += g.stride) {
      linear_to_multi_index(p, a.index, pos);
      int64_t at = 0;
      const bool hit = slot_of<I>(a, pos, &at);
      static_cast<T*>(a.grad_src)[p] = hit && a.src_wins[p] ? static_cast<const T*>(a.share)[at] : from_low_bits<T>(0);
    }
  }
};

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
