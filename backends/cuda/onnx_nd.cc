// onnx_nd.cc — onnx.GatherND and onnx.ScatterND on the CUDA backend's
// executor (see onnx_ops.h).
//
// Both in two jobs. First the rows job (cuda_ops.h, NdRowsJob): a kernel
// resolves each index tuple (indices' last dim, k values, each checked
// against [-s, s) of its data dim, negatives wrapped; the first bad value
// row-major is the error, before anything is written) to a row of data
// viewed as [prod(shape[:b + k]), shape[b + k:]...] (a contiguous copy of
// data, so its leading dims merge). Then the row job, as paddle.scatter's
// and index_select's: a gather (GatherND) or a scatter (ScatterND) along
// dim 0 whose index is the rows expanded over the slice (stride 0 on dims
// >= 1). The rows go back to the host between the two jobs (one download
// and one upload of 8 bytes per tuple more than a fused kernel would need).
#include <string>

#include "backends/common/onnx_rules.h"
#include "backends/cuda/onnx_ops.h"
#include "reference/op_table.h"

namespace sp::cuda {

using call_support::fail;
using call_support::meta_or_refuse;
using call_support::OpContext;
using call_support::operand;

namespace {

// The rows of `indices`' tuples into data (data.shape[b:b + k] addressed,
// batch dims b first), as a host int64 tensor of prod(indices.shape[:-1]);
// a bad value is index_out_of_bounds with ONNX's range.
Tensor resolve_rows(const OpContext& cx, const Tensor& data, const Tensor& indices, int64_t b) {
  const int q = static_cast<int>(indices.rank());
  const int64_t k = indices.shape().back();
  NdRowsJob job;
  job.indices = operand(indices, meta_or_refuse(indices, false));
  job.k = static_cast<int>(k);
  job.tuples = 1;
  for (int d = 0; d < q - 1; ++d) job.tuples *= indices.size(d);
  for (int d = static_cast<int>(b); d < q - 1; ++d) job.tuples_per_batch *= indices.size(d);
  for (int64_t j = 0; j < k; ++j) {
    job.dim_sizes[j] = data.size(b + j);
    job.rows_per_batch *= data.size(b + j);
  }
  Tensor rows = Tensor::zeros(DType::Int64, {job.tuples});
  if (job.tuples == 0) return rows;
  const JobResult r = cx.executor.run_nd_rows(job, rows.storage()->data());
  if (r.first_bad_position >= 0) {
    int64_t multi[kMaxMetaRank] = {};
    linear_to_multi_index(r.first_bad_position, job.indices.meta, multi);
    std::string at;
    for (int d = 0; d < q; ++d) at += (d ? ", " : "") + std::to_string(multi[d]);
    const int64_t dim = b + multi[q - 1], s = data.size(dim);
    const int64_t v = call_support::index_value_at(indices, job.indices.meta, r.first_bad_position);
    fail(ErrorCategory::IndexOutOfBounds, "indices[" + at + "] = " + std::to_string(v) + " is outside [" +
                                              std::to_string(-s) + ", " + std::to_string(s - 1) + "] for data dim " +
                                              std::to_string(dim) + " of size " + std::to_string(s));
  }
  return rows;
}

// A contiguous tensor of `shape` whose first `lead` dims are seen as one:
// [prod(shape[:lead]), shape[lead:]...], row-major.
TensorMeta merged(const Shape& shape, size_t lead) {
  TensorMeta m;
  m.rank = static_cast<int>(shape.size() - lead) + 1;
  m.sizes[0] = 1;
  for (size_t d = 0; d < lead; ++d) m.sizes[0] *= shape[d];
  for (size_t d = lead; d < shape.size(); ++d) m.sizes[d - lead + 1] = shape[d];
  int64_t stride = 1;
  for (int d = m.rank - 1; d >= 0; --d) {
    m.strides[d] = stride;
    stride *= m.sizes[d];
  }
  return m;
}

// The rows (1-D, contiguous) walked over `over`'s shape: position (n, t...)
// reads rows[n].
TensorMeta rows_walk(const TensorMeta& over) {
  TensorMeta walk = over;
  for (int d = 0; d < walk.rank; ++d) walk.strides[d] = 0;
  walk.strides[0] = 1;
  walk.offset = 0;
  return walk;
}

TensorMeta rows_values(int64_t n) { return TensorMeta{1, {n}, {1}, 0}; }

}  // namespace

// out[n, t] = data[batch(n), tuple(n), t]: a gather along dim 0 of data
// viewed as [rows, slice...].
Outcome onnx_gather_nd(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_gather_nd(call)) fail(v->category, v->message);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const int64_t b = op_spec(call).arg_or_default(call, "batch_dims")->i;
  const int64_t k = indices.shape().back();
  Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
  out_shape.insert(out_shape.end(), data.shape().begin() + b + k, data.shape().end());
  Tensor out = Tensor::zeros(data.dtype(), out_shape);
  // Every tuple is checked, also when the slices are empty.
  const Tensor rows = indices.numel() > 0 ? resolve_rows(cx, data, indices, b) : Tensor::zeros(DType::Int64, {0});
  if (out.numel() == 0) return Outcome::of_outputs({out});
  const Tensor input = data.contiguous();
  GatherJob job;
  job.dtype = data.dtype();
  job.index_is_int64 = true;
  job.input = operand(input, merged(data.shape(), static_cast<size_t>(b + k)));
  job.out = merged(out_shape, indices.shape().size() - 1);
  job.index = operand(rows, rows_walk(job.out));
  job.index_for_validation = rows_values(rows.numel());
  job.dim = 0;
  const JobResult r = cx.executor.run_gather(job, out.storage()->data());
  if (r.first_bad_position >= 0) throw CudaFailure("GatherND: a resolved row is out of range");
  return Outcome::of_outputs({out});
}

// out = copy of data; out[tuple(n), t] = f(out[...], updates[n, t]): a
// scatter along dim 0 of the copy viewed as [rows, slice...] (none: any
// writer of a duplicate target wins, which ONNX leaves unspecified; add /
// mul / max / min: atomics, in tuple order in deterministic mode).
Outcome onnx_scatter_nd(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_scatter_nd(call)) fail(v->category, v->message);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor updates = call.tensor("updates")->contiguous();
  const Tensor target = data.contiguous();
  const int64_t k = indices.shape().back();
  const size_t lead = indices.shape().size() - 1;
  int64_t tuples = 1;
  for (size_t d = 0; d < lead; ++d) tuples *= indices.shape()[d];
  if (tuples == 0) return Outcome::of_outputs({target});
  const Tensor rows = resolve_rows(cx, data, indices, 0);  // checked even when no element is written
  if (updates.numel() == 0) return Outcome::of_outputs({target});
  const std::string reduction = op_spec(call).arg_or_default(call, "reduction")->s;
  ScatterJob job;
  job.dtype = data.dtype();
  job.index_is_int64 = true;
  job.target = operand(target, merged(data.shape(), static_cast<size_t>(k)));
  job.src = operand(updates, merged(updates.shape(), lead));
  job.has_src = true;
  job.index = operand(rows, rows_walk(job.src.meta));
  job.index_for_validation = rows_values(tuples);
  job.dim = 0;
  job.mode = reduction == "add"   ? WriteMode::Add
             : reduction == "mul" ? WriteMode::Multiply
             : reduction == "max" ? WriteMode::Max
             : reduction == "min" ? WriteMode::Min
                                  : WriteMode::Overwrite;
  job.deterministic = cx.deterministic;
  const JobResult r = cx.executor.run_scatter(job, target.storage()->data());
  if (r.first_bad_position >= 0) throw CudaFailure("ScatterND: a resolved row is out of range");
  return Outcome::of_outputs({target});
}

}  // namespace sp::cuda
