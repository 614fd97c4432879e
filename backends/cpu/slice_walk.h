// slice_walk.h — what the cpu kernels of the index_* family
// (index_add_, index_copy_, index_fill_, index_reduce_) share: the walk of
// self's slices along dim and the parallel split of it.
//
// Self's logical shape is [O, S, L] around dim (outer positions, the size
// along dim, inner positions), a source's [O, M, L] (M = len(index)).
// Position (o, i, l) writes self[o, index[i], l] from source[o, i, l], so
// parts that own disjoint outer positions, or disjoint inner ranges, never
// write one element: no atomics, and each part visits i in order (a
// target's updates land in index order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/thread_pool.h"
#include "reference/op_call.h"
#include "reference/tensor.h"

namespace sp::cpu {

struct SliceWalk {
  std::byte* a = nullptr;        // the target at its storage offset
  const std::byte* p = nullptr;  // the source at its storage offset (null: the op has none)
  std::vector<int64_t> index;    // the index values, in order (checked and wrapped by the caller)
  std::vector<int64_t> outer_a, outer_p, inner_a, inner_p;  // element offsets
  int64_t along_a = 0, along_p = 0;                         // strides along dim
};

class CpuContext;

// The steps every index_* kernel takes once its argument checks pass: dim
// along self's logical shape, the bounds scan of the index values against
// [lo, size) (lo = -size where negatives are in range; self untouched on a
// bad value), then the target (self in place, else a fresh copy). `done`
// holds the answer when the call ends there: the bad index's error, or the
// target when nothing is written (an empty index or self).
struct IndexTarget {
  Tensor target;
  int64_t dim = 0;
  int64_t size = 0;  // self's logical size along dim
  std::optional<Outcome> done;
};
IndexTarget prepare_index_target(CpuContext& cpu, const OpCall& call, bool negatives_in_range = false);

// `operand` as the kernel may read it while writing `target`: a fresh copy
// when the two share a storage, so every read sees the values from before
// the call.
Tensor read_before_writes(CpuContext& cpu, const Tensor& operand, const Tensor& target);

// The index values in order (a 0-d index is one value). REQUIRES: integral.
std::vector<int64_t> index_values(const Tensor& index);

// The walk of `target` (and `source`, when given) along `dim` (logical
// shapes: a 0-d tensor is [1]) for `index`.
SliceWalk make_slice_walk(const Tensor& target, const Tensor* source, std::vector<int64_t> index, int64_t dim);

// Runs part(o0, o1, l0, l1) — outer positions [o0, o1), inner positions
// [l0, l1) — over disjoint parts on `pool` (one part when the work is small,
// or `serial`: a target whose elements alias is written by one thread).
void for_each_slice_part(ThreadPool& pool, const SliceWalk& walk,
                         const std::function<void(int64_t, int64_t, int64_t, int64_t)>& part, bool serial = false);

}  // namespace sp::cpu
