// onnx_ops.cc — onnx.GatherElements, onnx.ScatterElements and onnx.Scatter
// on the CUDA backend's executor (see onnx_ops.h).
#include "backends/cuda/onnx_ops.h"

#include "backends/common/onnx_rules.h"
#include "reference/op_table.h"

namespace sp::cuda {

using call_support::fail;
using call_support::meta_or_refuse;
using call_support::OpContext;
using call_support::operand;
using call_support::report_onnx_bad_index;

// out[p] = data[p with axis replaced by indices[p]], values in [-s, s)
// (negatives count from the end). Indices that do not fit data apart from
// axis are shape_mismatch (ONNX leaves them undefined), but only once every
// value has passed: a validation-only job (no out element) runs first then.
Outcome onnx_gather_elements(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_gather_elements(call)) fail(v->category, v->message);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  Tensor out = Tensor::zeros(data.dtype(), indices.shape());
  if (indices.numel() == 0) return Outcome::of_outputs({out});
  const TensorMeta in = meta_or_refuse(data, false), idx = meta_or_refuse(indices, false);
  const int64_t axis_arg = op_spec(call).arg_or_default(call, "axis")->i;
  const int axis = static_cast<int>(axis_arg < 0 ? axis_arg + in.rank : axis_arg);
  cuda::GatherJob job;
  job.dtype = data.dtype();
  job.index_is_int64 = indices.dtype() == DType::Int64;
  job.input = operand(data, in);
  job.index = operand(indices, idx);
  job.index_for_validation = idx;
  job.dim = axis;
  job.rule = IndexRule::NegativeWraps;
  const auto fit = backend_rules::check_onnx_indices_fit(call);
  job.out = fit ? TensorMeta{1, {0}, {1}, 0} : meta_or_refuse(out, false);
  const cuda::JobResult r = cx.executor.run_gather(job, out.storage()->data());
  if (r.first_bad_position >= 0)
    report_onnx_bad_index(indices, idx, r.first_bad_position, -in.sizes[axis], axis, in.sizes[axis]);
  if (fit) fail(fit->category, fit->message);
  return Outcome::of_outputs({out});
}

// A fresh copy of data, then the scatter kernel: reduction none
// overwrites (duplicates: any writer), add / mul / max / min combine
// atomically (max / min: NaN propagating, kernels/elem.h; in index order in
// deterministic mode).
// Values in [-s, s) (Scatter-9: [0, s)); indices that do not fit data
// apart from axis are shape_mismatch once every value has passed (a
// validation-only job, no position written, runs first then).
Outcome onnx_scatter_elements(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_scatter_elements(call)) fail(v->category, v->message);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const OpSpec& op = op_spec(call);
  const std::string reduction = op.arg("reduction") ? op.arg_or_default(call, "reduction")->s : "none";
  const Tensor target = data.contiguous();
  if (indices.numel() == 0) return Outcome::of_outputs({target});
  const TensorMeta t = meta_or_refuse(target, false), idx = meta_or_refuse(indices, false);
  const int64_t axis_arg = op.arg_or_default(call, "axis")->i;
  cuda::ScatterJob job;
  job.dtype = data.dtype();
  job.index_is_int64 = indices.dtype() == DType::Int64;
  job.target = operand(target, t);
  job.index = operand(indices, idx);
  job.index_for_validation = idx;
  job.has_src = true;
  job.src = operand(*call.tensor("updates"), meta_or_refuse(*call.tensor("updates"), false));
  job.dim = static_cast<int>(axis_arg < 0 ? axis_arg + t.rank : axis_arg);
  const bool wrap = backend_rules::onnx_negatives_wrap(call);
  job.rule = wrap ? IndexRule::NegativeWraps : IndexRule::ZeroBased;
  job.mode = reduction == "add"   ? WriteMode::Add
             : reduction == "mul" ? WriteMode::Multiply
             : reduction == "max" ? WriteMode::Max
             : reduction == "min" ? WriteMode::Min
                                  : WriteMode::Overwrite;
  job.deterministic = cx.deterministic;
  const auto fit = backend_rules::check_onnx_indices_fit(call);
  if (fit) job.index.meta = TensorMeta{1, {0}, {1}, 0};  // validation only
  const int64_t size = t.sizes[job.dim];
  const cuda::JobResult r = cx.executor.run_scatter(job, target.storage()->data());
  if (r.first_bad_position >= 0)
    report_onnx_bad_index(indices, idx, r.first_bad_position, wrap ? -size : 0, job.dim, size);
  if (fit) fail(fit->category, fit->message);
  return Outcome::of_outputs({target});
}

}  // namespace sp::cuda
