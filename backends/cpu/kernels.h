// kernels.h — the cpu backend's gather/scatter kernels, after validation.
//
// Every semantic is one walk over the positions of `index`: a position is
// (o, k, l) where o runs over index's dims before `dim` ("outer"), k along
// `dim`, and l over the dims after it ("inner"). Three operands move with
// the position: the index itself (x), the *positional* operand p (src for
// scatter, out for gather) and the *indexed* operand a (self for scatter,
// input for gather), which is addressed at (o, index value, l). Dims are
// coalesced where all three operands allow, so a contiguous walk becomes a
// few long runs. Every stride has been validated to stay inside its storage
// before a kernel is called. Index values either have been validated to lie
// in [-S, S) (negative ones count from the end) or the kernel checks them
// itself (gather_kernel, ScatterArgs::check_index_from).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cpu/thread_pool.h"
#include "reference/dtype.h"
#include "reference/tensor.h"

namespace sp::cpu {

// Asks for the cache line at `p` ahead of its use. An asm statement, not
// __builtin_prefetch: GCC 12 drops the builtin from the row-prefetch loops
// of most kernel instantiations (measured: 8 of 72 survived), and a dropped
// prefetch costs 3x on random row reads.
inline void prefetch_line(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// Below this many elements a kernel runs on the calling thread: waking the
// pool costs more than the work. Above it, one thread per half of it.
inline constexpr int64_t kMinParallelWork = 1 << 15;
inline int threads_for(int64_t work, const ThreadPool& pool) {
  if (work < kMinParallelWork) return 1;
  return static_cast<int>(std::min<int64_t>(pool.size(), work / (kMinParallelWork / 2)));
}

// For kernels whose parts need no per-thread state: several parts per
// thread, so a thread slowed by other processes hands its share to the rest
// (ThreadPool::run gives out parts first come, first served).
inline constexpr int kPartsPerThread = 8;
inline int parts_for(int64_t work, const ThreadPool& pool) {
  const int threads = threads_for(work, pool);
  return threads == 1 ? 1
                      : static_cast<int>(std::min<int64_t>(threads * kPartsPerThread, work / (kMinParallelWork / 16)));
}

// Element offsets of every position of dims [from, to) of `shape` with
// `strides`, row-major ({0} for an empty range): how the index-along-dim
// kernels (index_add_, index_reduce_) address the dims before and after dim.
inline std::vector<int64_t> dim_range_offsets(const Shape& shape, const Shape& strides, size_t from, size_t to) {
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

struct RowReduceScratch;

struct Offsets {
  int64_t a = 0, x = 0, p = 0;
};

// One coalesced axis: its size and the element stride of each operand.
struct Axis {
  int64_t size = 1;
  int64_t a = 0, x = 0, p = 0;
};

struct IndexWalk {
  std::vector<Axis> outer, inner;  // coalesced, size-1 axes dropped
  int64_t K = 1;                   // index size along dim
  int64_t S = 1;                   // indexed operand's size along dim
  Axis along;                      // strides along dim (its size is K)

  int64_t outer_count() const;
  int64_t inner_count() const;
  // True when the index value does not change along the inner axes (an
  // expanded index, or no inner axes): one index read addresses a whole row.
  bool index_row_constant() const;
  Offsets outer_offsets(int64_t o) const;

  // Calls fn(offsets, l, n) for maximal runs [l, l+n) of inner positions in
  // [l0, l1) along the last inner axis (strides inner.back()).
  template <class Fn>
  void for_inner_runs(int64_t l0, int64_t l1, Fn&& fn) const {
    if (inner.empty()) {
      if (l0 < l1) fn(Offsets{}, l0, l1 - l0);
      return;
    }
    const size_t n = inner.size();
    int64_t digit[kMaxRank];
    int64_t rem = l0;
    for (size_t d = n; d-- > 0;) {
      digit[d] = rem % inner[d].size;
      rem /= inner[d].size;
    }
    for (int64_t l = l0; l < l1;) {
      Offsets off;
      for (size_t d = 0; d < n; ++d) {
        off.a += digit[d] * inner[d].a;
        off.x += digit[d] * inner[d].x;
        off.p += digit[d] * inner[d].p;
      }
      const int64_t run = std::min(l1 - l, inner[n - 1].size - digit[n - 1]);
      fn(off, l, run);
      l += run;
      digit[n - 1] += run;
      for (size_t d = n - 1; d > 0 && digit[d] == inner[d].size; --d) {
        digit[d] = 0;
        ++digit[d - 1];
      }
    }
  }
};

// Builds the walk over `index_shape` (logical: rank >= 1) along `dim`.
// Strides are per logical dim of each operand; `indexed_size` is the indexed
// operand's size along dim.
IndexWalk make_walk(const Shape& index_shape, int64_t dim, const Shape& a_strides, const Shape& x_strides,
                    const Shape& p_strides, int64_t indexed_size);

// The first index value (row-major over `shape`) outside [lo, hi), or
// nullopt. Stride-0 dims are scanned once (their values repeat).
struct BadIndex {
  int64_t value = 0;
  Shape position;
};
std::optional<BadIndex> find_bad_index(DType index_dtype, const std::byte* index, const Shape& shape,
                                       const Shape& strides, int64_t lo, int64_t hi, ThreadPool& pool);

// out[(o,k,l) contiguous] = a[o, index(o,k,l), l]; element size from dtype.
// Unlike the other kernels it validates as it goes: false when some index
// value lies outside [0, walk.S), and then `out` holds garbage (the caller
// discards it and finds the first bad value with find_bad_index).
// Outputs of at least `stream_bytes` whose index is expanded along
// unit-stride rows (the row gather, index_select of rows) are written with
// non-temporal stores: they cannot stay in cache anyway, and streaming
// stores skip reading every output line before writing it (a third of the
// traffic); the default is the last-level cache's size (tuning.h). Tests
// pass a small value to reach that path. (Along the last
// dim, gathering 64 bytes into a buffer to stream it measured slower: that
// loop is bound by its per-element work, not by the stores.)
// stream_bytes < 0: tuning().stream_output_bytes.
bool gather_kernel(DType dtype, DType index_dtype, const std::byte* a, const std::byte* x, std::byte* out,
                   const IndexWalk& walk, ThreadPool& pool, int64_t stream_bytes = -1);

enum class ScatterOp { Overwrite, Add, Multiply };
struct ScatterArgs {
  DType dtype = DType::Float32;
  DType index_dtype = DType::Int64;
  std::byte* a = nullptr;        // self at its storage offset
  const std::byte* x = nullptr;  // index at its storage offset
  const std::byte* p = nullptr;  // src at its storage offset (a value: one element, all strides 0)
  IndexWalk walk;
  ScatterOp op = ScatterOp::Overwrite;
  // Every targeted element is set to zero before any is combined (paddle's
  // accumulate mode).
  bool zero_targets_first = false;
  // Per-thread accumulator space kept by the backend between calls (may be
  // null): reusing it saves the page faults of a fresh allocation each call.
  std::vector<std::vector<std::byte>>* scratch = nullptr;
  // The same for the sorted row reduction (row_reduce.h; may be null).
  RowReduceScratch* row_scratch = nullptr;
  // Set: the kernel checks that every index value lies in [*check_index_from,
  // S) before self changes (fused into the accumulation where that path
  // writes self only at the end) — except overwrites along the last dim,
  // which check each value as they write it and may leave self partly
  // written before they fail (reference/SEMANTICS.md SE-2 allows that before
  // index_out_of_bounds). Unset: the caller has checked them.
  std::optional<int64_t> check_index_from;
};
// False when check_index_from is set and some index value is out of range;
// self is then untouched (overwrites along the last dim: see above; the
// caller finds the first bad value with find_bad_index for its message).
bool scatter_kernel(const ScatterArgs& args, ThreadPool& pool);

// Copies the elements of `t` in row-major order into contiguous `out`.
void copy_to_contiguous(const Tensor& t, std::byte* out, ThreadPool& pool);

}  // namespace sp::cpu
