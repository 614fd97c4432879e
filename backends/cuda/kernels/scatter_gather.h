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

// The sizes of an ND job's addressed dims, by value.
struct NdRowsSizes {
  int64_t s[kMaxMetaRank];
};

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
  // mean: atomic mode counts each target's visits here (by target offset;
  // null otherwise); sorted mode divides by the run's length. Either adds
  // one term for the element itself when mean_counts_self.
  bool mean;
  bool mean_counts_self;
  int32_t* counts;
};

// target = step(target, v) for the reduction modes, one op, in place (the
// sorted path and anything else single-writer).
template <DType D>
SP_HD typename Elem<D>::T reduce_step(WriteMode mode, typename Elem<D>::T acc, typename Elem<D>::T v) {
  switch (mode) {
    case WriteMode::Overwrite:
      return v;
    case WriteMode::Add:
      return Elem<D>::add(acc, v);
    case WriteMode::Multiply:
      return Elem<D>::mul(acc, v);
    case WriteMode::Max:
      return max_of(acc, v);
    case WriteMode::Min:
      return min_of(acc, v);
  }
  return acc;
}

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

// One thread per index position. `filling` is the first pass of Paddle's
// overwrite=False and of include_self=False (every indexed target set to
// fill_bits; concurrent equal stores agree, so it needs no atomics).
template <DType D, class I>
struct ScatterKernel {
  ScatterArgs a;
  int64_t positions;
  bool filling;
  uint64_t fill_bits;
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
      if (filling) {
        racy_store(target + at, from_low_bits<T>(fill_bits));
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
        case WriteMode::Max:
          atomic_max_of<D>(target + at, v);
          break;
        case WriteMode::Min:
          atomic_min_of<D>(target + at, v);
          break;
      }
      if (a.counts) atomic_add<DType::Int32>(a.counts + at, 1);
    }
  }
};

// mean, atomic mode, before the scatter: the counters set to 0 (device
// allocations are not cleared; the host launcher's are, so cuda-host cannot
// tell this pass is missing: it is here on purpose, keep it).
struct ClearCountsKernel {
  int32_t* counts;
  int64_t elements;

  SP_HD void operator()(GridPos g) const {
    for (int64_t at = g.first; at < elements; at += g.stride) counts[at] = 0;
  }
};

// mean, atomic mode, after the scatter: every target element some position
// reached (count > 0) divided by its number of terms.
template <DType D>
struct MeanDivideKernel {
  void* target_data;
  const int32_t* counts;
  int64_t elements;  // of the target storage
  bool counts_self;

  SP_HD void operator()(GridPos g) const {
    auto* target = static_cast<typename Elem<D>::T*>(target_data);
    for (int64_t at = g.first; at < elements; at += g.stride)
      if (counts[at] > 0) target[at] = mean_of<D>(target[at], static_cast<int64_t>(counts[at]) + (counts_self ? 1 : 0));
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
      int64_t j = i;
      for (; j < positions && keys[j] == at; ++j) {
        linear_to_multi_index(position_of[j], a.index, pos);
        acc = reduce_step<D>(a.mode, acc, visited_value<D>(a, pos));
      }
#if defined(SP_CUDA_KERNEL_MUTANT) && SP_CUDA_KERNEL_MUTANT == 3
      const int64_t self_term = 0;  // planted bug: a mean never counts the element itself
#else
      const int64_t self_term = a.mean_counts_self ? 1 : 0;
#endif
      if (a.mean) acc = mean_of<D>(acc, j - i + self_term);
      target[at] = acc;
    }
  }
};

// ONNX's ND ops (cuda_ops.h, NdRowsJob): one thread per index tuple n,
// rows[n] = its row; a bad value records its position n * k + j instead.
struct NdRowsKernel {
  TensorMeta indices;
  const void* data;
  int64_t tuples;
  int k;
  NdRowsSizes sizes;
  int64_t tuples_per_batch;
  int64_t rows_per_batch;
  int64_t* rows;
  unsigned long long* error_word;

  SP_HD void operator()(GridPos g) const {
    int64_t pos[kMaxMetaRank];
    for (int64_t n = g.first; n < tuples; n += g.stride) {
      int64_t row = 0;
      for (int j = 0; j < k; ++j) {
        linear_to_multi_index(n * k + j, indices, pos);
        int64_t v = 0;
        if (check_index_value(index_value_at<int64_t>(indices, data, pos), sizes.s[j], IndexRule::NegativeWraps, &v) !=
            IndexStatus::Ok) {
          atomic_min(error_word, static_cast<unsigned long long>(n * k + j));
          row = 0;
          break;
        }
        row = row * sizes.s[j] + v;
      }
      rows[n] = n / tuples_per_batch * rows_per_batch + row;
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
