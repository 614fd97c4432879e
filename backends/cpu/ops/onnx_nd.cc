// onnx_nd.cc — cpu kernels for onnx.GatherND and onnx.ScatterND (ONNX's
// operator documentation, onnx 1.23).
//
// Validate (backends/common/onnx_rules.h), then resolve every index tuple
// of indices (its last dim, k values) to an element offset into data,
// checking each value against [-s, s) of its dim (negatives wrap) before
// anything is written; then copy / combine whole slices (data's dims after
// batch_dims + k): backends/cpu/nd_slices.h, shared with paddle's ND ops.
//   GatherND: out[n, j] = data[batch(n), tuple(n), j], out contiguous;
//   ScatterND: out = copy of data; out[tuple(n), j] = f(out[...], updates[n, j])
//     for n in row-major order (none: overwrite, the last update of a
//     duplicate target wins; add / mul / max / min: combine into the
//     existing value, one correctly rounded op in the element's dtype).
#include "backends/common/onnx_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/nd_slices.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

Outcome onnx_gather_nd(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_gather_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const int64_t b = op_spec(call).arg_or_default(call, "batch_dims")->i;
  const int64_t k = indices.shape().back();
  Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
  out_shape.insert(out_shape.end(), input.shape().begin() + b + k, input.shape().end());
  if (checked_numel(out_shape) == 0) {
    // Still an error for a bad value when there are tuples (no slice to read).
    if (indices.numel() > 0)
      if (auto t = resolve_nd_tuples(input, indices, b, true); t.error) return *t.error;
    return Outcome::of_outputs({Tensor::zeros(input.dtype(), out_shape)});
  }
  const NdTuples t = resolve_nd_tuples(input, indices, b, true);
  if (t.error) return *t.error;
  return Outcome::of_outputs({gather_nd_slices(cpu, input, t, out_shape, b + k)});
}

Outcome onnx_scatter_nd(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_scatter_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  Tensor target = cpu.fresh_copy(input);
  // No tuples (k = 0 tuples still count: each addresses the whole of data).
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  if (checked_numel(lead) == 0) return Outcome::of_outputs({target});
  const NdTuples t = resolve_nd_tuples(target, indices, 0, true);  // checked even when no element is written
  if (t.error) return *t.error;
  const std::string reduction = op_spec(call).arg_or_default(call, "reduction")->s;
  const std::optional<Reduce> reduce = reduction == "add"   ? std::optional<Reduce>(Reduce::Sum)
                                       : reduction == "mul" ? std::optional<Reduce>(Reduce::Prod)
                                       : reduction == "max" ? std::optional<Reduce>(Reduce::Amax)
                                       : reduction == "min" ? std::optional<Reduce>(Reduce::Amin)
                                                            : std::nullopt;
  scatter_nd_slices(target, updates, t, indices.rank(), indices.shape().back(), reduce);
  return Outcome::of_outputs({target});
}

}  // namespace

void register_onnx_nd(CpuOps& ops) {
  ops.add("onnx.GatherND", onnx_gather_nd);
  ops.add("onnx.ScatterND", onnx_scatter_nd);
}

}  // namespace sp::cpu
