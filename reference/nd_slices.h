// nd_slices.h — the mechanics of the ND gather / scatter ops (ONNX GatherND
// and ScatterND, paddle.gather_nd, scatter_nd and scatter_nd_add): index
// tuples held in the index's last dim, each addressing a slice of the
// data's dims after them. No rules live here: the semantic files check
// their own clauses (reference/dialect_onnx_nd.h, reference/paddle_nd.cc)
// and call these once the checks passed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/output_builder.h"
#include "reference/tensor.h"

namespace sp::ref::nd {

// One index tuple: its position in indices.shape[:-1] and its k values,
// normalised (a negative v is v + s).
struct IndexTuple {
  Shape pos;                   // position in indices.shape[:-1]
  std::vector<int64_t> tuple;  // the k normalised values
  int64_t first_value;         // indices[pos][0] as stored (0 when k == 0)
};

// How a bounds check reads a negative value: counted from the end (in
// bounds from -s), out of bounds, or not checked (only v < s is).
enum class Negatives { Wrap, Refused, Unchecked };
// The first value (row-major) of indices[..., j] outside its bounds, s =
// dims[first_dim + j]: as a message, or nullopt when there is none.
// REQUIRES: an integer indices of rank >= 1 with first_dim +
// indices.shape[-1] <= dims.size().
std::optional<std::string> first_out_of_bounds(const Shape& dims, const Tensor& indices, int64_t first_dim,
                                               Negatives negatives);
// The tuples of indices.shape[:-1] in row-major order (negative values
// wrapped by dims[first_dim + j]). REQUIRES: the bounds hold.
std::vector<IndexTuple> index_tuples(const Shape& dims, const Tensor& indices, int64_t first_dim);
// Calls visit(pos) for every position of `shape` in row-major order (none
// when the shape has a 0; once, with {}, for rank 0).
void for_each_position(const Shape& shape, const std::function<void(const Shape&)>& visit);

// indices.shape[:-1] ++ dims[b + k:] (k = indices.shape[-1]): a gather's
// out, and (b = 0) a scatter's updates.
Shape slices_shape(const Shape& dims, const Shape& indices, int64_t b);

// out[idx ++ t] = data[idx[:b] ++ tuple(idx) ++ t] for every tuple and
// every t of data.shape[b + k:]: each element written once (exact bits).
// `name` is data's operand name (the trace's origin). REQUIRES: out has
// slices_shape(data.shape(), indices.shape(), b).
void gather_slices(OutputBuilder& out, std::string_view name, const Tensor& data, const std::vector<IndexTuple>& tuples,
                   int64_t b);
// out[tuple(idx) ++ t] = f(out[...], updates[idx ++ t]) for every tuple in
// order and every t of dims[k:]: mode None overwrites, another reduces
// (OutputBuilder::reduce: the order of the terms is free).
void scatter_slices(OutputBuilder& out, ReduceMode mode, const Tensor& updates, const std::vector<IndexTuple>& tuples,
                    const Shape& dims, int64_t k);

}  // namespace sp::ref::nd
