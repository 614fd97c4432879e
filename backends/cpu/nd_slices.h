// nd_slices.h — the cpu backend's ND gather / scatter walk (onnx.GatherND,
// onnx.ScatterND, paddle.gather_nd, paddle.scatter_nd, paddle.scatter_nd_add,
// mindspore.gather_nd, mindspore.scatter_nd, mindspore.tensor_scatter_*),
// after validation: every index tuple of `indices` (its last dim, k values)
// resolved to an element offset into the indexed tensor, each value checked
// before anything is written, then whole slices (the indexed tensor's dims
// after the tuple's) copied or combined, addressed with dim_range_offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cpu/cpu_context.h"

namespace sp::cpu {

enum class Reduce;

// Element offsets into `input` (its strides, from its view's first element)
// of each index tuple of `indices` (any integer dtype, rank q >= 1, k =
// shape[-1]), in row-major order of indices.shape[:-1]; the first
// `batch_dims` dims of a tuple's position address input's batch dims. An
// error for the first value (row-major) outside [-s, s) (negatives wrap),
// or [0, s) when negatives are refused; with `drop_outside`, no error: such
// a tuple's offset is -1 (gather_nd_slices and scatter_nd_slices take no
// such offset).
struct NdTuples {
  std::vector<int64_t> offsets;
  std::optional<Outcome> error;
};
NdTuples resolve_nd_tuples(const Tensor& input, const Tensor& indices, int64_t batch_dims, bool negatives_wrap,
                           bool drop_outside = false);

// out[n, j] = input[tuple(n), j] (j over input's dims from `slice_from`),
// out a fresh contiguous tensor of `out_shape` (every element written).
Tensor gather_nd_slices(CpuContext& cpu, const Tensor& input, const NdTuples& t, const Shape& out_shape,
                        int64_t slice_from);

// target[tuple(n), j] = f(target[...], updates[n, j]) for n in row-major
// order (j over target's dims from k, updates' from q - 1): no reduce
// overwrites, a reduce combines (one correctly rounded op in the dtype).
void scatter_nd_slices(const Tensor& target, const Tensor& updates, const NdTuples& t, int64_t q, int64_t k,
                       std::optional<Reduce> reduce);

// paddle.scatter_nd_add / paddle.scatter_nd: checks the rules they share
// (index.ndim >= min_index_rank, int32 / int64, Q <= target's rank,
// updates.shape == index.shape[:-1] + target.shape[Q:], the bounds; negatives
// wrap when `wraps`), then adds every updates slice into `target` (a fresh
// tensor) at its tuple, in row-major order. Defined in
// ops/paddle_scatter_nd_add.cc.
Outcome paddle_add_nd_slices(Tensor target, const Tensor& index, const Tensor& updates, int64_t min_index_rank,
                             bool wraps);

}  // namespace sp::cpu
