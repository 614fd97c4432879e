// output_shapes.h — the output shape rules of the shape families
// (OpSpec::output_shape, reference/op_table.h): what a plugin host
// preallocates as "out", what the reference's out= and backward checks
// compare against, and what `explain` says. An entry whose output has the
// shape of its `output_shape_of` operand names no rule.
//
// A new family whose output shape is computed another way adds its rule
// here and names it in its table entries; output_shape_of() needs no edit.
#pragma once

#include "reference/op_table.h"

namespace sp::shape_rules {

// `of`'s shape with dim (paddle: axis) replaced by index.numel()
// (torch.index_select, paddle.index_select);
// a 0-d `of` keeps its 0-d shape.
std::optional<Shape> index_length_along_dim(const OpSpec& op, const OpCall& call, const Tensor& of);
// take_along_dim: with dim, the broadcast of `of`'s shape and the index
// operand's apart from dim, the index's size along dim; without dim (None),
// 1-D of index.numel().
std::optional<Shape> broadcast_along_dim(const OpSpec& op, const OpCall& call, const Tensor& of);
// paddle.gather: `of`'s shape with axis (default 0) replaced by len(index)
// for a 1-D index, without axis for a 0-d one.
std::optional<Shape> gather_along_axis(const OpSpec& op, const OpCall& call, const Tensor& of);
// paddle.take_along_axis: broadcast=True (the default), the broadcast of
// `of`'s shape and indices' apart from axis, indices' size along axis;
// broadcast=False, indices' shape.
std::optional<Shape> along_axis(const OpSpec& op, const OpCall& call, const Tensor& of);
// ONNX GatherND: indices.shape[:-1] + data.shape[batch_dims + k:] with
// k = indices.shape[-1] (batch dims counted once, from indices);
// paddle.gather_nd (no batch_dims: 0) the same.
std::optional<Shape> gather_nd(const OpSpec& op, const OpCall& call, const Tensor& data);
// mindspore.scatter_nd, paddle.scatter_nd: the call's `shape` argument
// (nullopt when absent or holding a negative size).
std::optional<Shape> shape_argument(const OpSpec& op, const OpCall& call, const Tensor& of);
std::optional<Shape> stablehlo_gather(const OpSpec& op, const OpCall& call, const Tensor& operand);
// jax.lax.gather: the StableHLO gather it lowers to (reference/jax_lax.h).
std::optional<Shape> jax_lax_gather(const OpSpec& op, const OpCall& call, const Tensor& operand);
// jax.at.get: indices.shape[:-1] + x.shape[k:], k = indices.shape[-1] in [1, rank(x)].
std::optional<Shape> jax_at_get(const OpSpec& op, const OpCall& call, const Tensor& x);

inline constexpr OutputShapeRule kIndexLengthAlongDim{index_length_along_dim,
                                                      " with dim replaced by the index's length"};
inline constexpr OutputShapeRule kBroadcastAlongDim{
    broadcast_along_dim,
    " broadcast with the index's apart from dim, the index's size along dim (no dim: 1-D of the index's numel)"};
inline constexpr OutputShapeRule kGatherAlongAxis{gather_along_axis,
                                                  " with axis replaced by len(index) (a 0-d index: without axis)"};
inline constexpr OutputShapeRule kAlongAxis{
    along_axis, " broadcast with indices' apart from axis, indices' size along axis (broadcast=False: indices' shape)"};
inline constexpr OutputShapeRule kGatherND{
    gather_nd,
    " replaced by indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:] (each index tuple selects a "
    "slice)"};
inline constexpr OutputShapeRule kShapeArgument{shape_argument, " replaced by the `shape` argument"};
inline constexpr OutputShapeRule kStableHloGather{
    stablehlo_gather,
    " replaced by StableHLO's combine(batch_dim_sizes, offset_dim_sizes) (spec gather C22): start_indices' shape "
    "without index_vector_dim at the batch dims, slice_sizes without the collapsed and batching dims at "
    "offset_dims"};
inline constexpr OutputShapeRule kJaxLaxGather{
    jax_lax_gather,
    " replaced by the shape of the StableHLO gather it lowers to (index_vector_dim the last dim of start_indices)"};
inline constexpr OutputShapeRule kJaxAtGet{
    jax_at_get,
    " replaced by indices.shape[:-1] + x.shape[k:] (k = indices.shape[-1]: x[idx] over the leading k dims)"};

}  // namespace sp::shape_rules
