// onnx_elements.cc — cpu kernels for onnx.GatherElements, onnx.ScatterElements
// and onnx.Scatter (ONNX's operator documentation, onnx 1.23).
//
// Validate (backends/common/onnx_rules.h), scan the index values against
// [-s, s) (Scatter-9: [0, s)), then a contiguous copy of indices with the
// negatives wrapped, and the torch kernels' walk along axis on it:
//   GatherElements: gather_kernel (as torch.gather);
//   ScatterElements / Scatter, reduction none: the scatter kernel's overwrite
//     (a duplicate target keeps the last update in index order);
//   add / mul / max / min: the scatter_reduce walk (sum / prod / amax / amin,
//     include_self), a target's terms combined in index order into data's
//     value, one correctly rounded op in the element's dtype (integers wrap).
// The output is a fresh contiguous tensor (an ONNX node's output).
#include "backends/common/onnx_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

int64_t axis_of(const OpCall& call, int64_t rank) {
  return wrap_dim(op_spec(call).arg_or_default(call, "axis")->i, rank);
}

Outcome bad_index_error(const Tensor& indices, const BadIndex& bad, int64_t lo, int64_t size, int64_t axis) {
  return Outcome::of_error(ErrorCategory::IndexOutOfBounds, "indices" + format_index(bad.position) + " = " +
                                                                std::to_string(bad.value) + " is outside [" +
                                                                std::to_string(lo) + ", " + std::to_string(size - 1) +
                                                                "] for axis " + std::to_string(axis) + " of size " +
                                                                std::to_string(size) + " (" + indices.describe() + ")");
}

Outcome onnx_gather_elements(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_gather_elements(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  if (indices.numel() == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), indices.shape())});
  const int64_t axis = axis_of(call, input.rank());
  const int64_t size = input.size(axis);
  if (auto bad =
          find_bad_index(indices.dtype(), data(indices), indices.shape(), indices.strides(), -size, size, cpu.pool()))
    return bad_index_error(indices, *bad, -size, size, axis);
  if (auto v = backend_rules::check_onnx_indices_fit(call)) return Outcome::of_error(v->category, v->message);
  const Tensor index = cpu.wrapped_indices(indices, size);
  Tensor out = cpu.uninitialized(input.dtype(), indices.shape());
  const IndexWalk walk = make_walk(index.shape(), axis, input.strides(), index.strides(), out.strides(), size);
  if (!gather_kernel(input.dtype(), index.dtype(), data(input), data(index), data(out), walk, cpu.pool()))
    return Outcome::harness_error("cpu backend: gather_kernel rejected a wrapped ONNX index");
  return Outcome::of_outputs({out});
}

Outcome onnx_scatter_elements(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_scatter_elements(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  Tensor target = cpu.fresh_copy(input);
  if (indices.numel() == 0) return Outcome::of_outputs({target});
  const int64_t axis = axis_of(call, input.rank());
  const int64_t size = input.size(axis);
  const int64_t lo = backend_rules::onnx_negatives_wrap(call) ? -size : 0;
  if (auto bad =
          find_bad_index(indices.dtype(), data(indices), indices.shape(), indices.strides(), lo, size, cpu.pool()))
    return bad_index_error(indices, *bad, lo, size, axis);
  if (auto v = backend_rules::check_onnx_indices_fit(call)) return Outcome::of_error(v->category, v->message);
  const Tensor index = cpu.wrapped_indices(indices, size);
  const OpSpec& op = op_spec(call);
  const std::string reduction = op.arg("reduction") ? op.arg_or_default(call, "reduction")->s : "none";
  if (reduction == "none") {
    cpu.scatter_into(target, index, index.shape(), index.strides(), &updates, std::nullopt, axis, ScatterOp::Overwrite,
                     false);
    return Outcome::of_outputs({target});
  }
  const Reduce r = reduction == "add"   ? Reduce::Sum
                   : reduction == "mul" ? Reduce::Prod
                   : reduction == "max" ? Reduce::Amax
                                        : Reduce::Amin;
  scatter_reduce_into(cpu, target, index, updates, axis, r, true);
  return Outcome::of_outputs({target});
}

}  // namespace

void register_onnx_elements(CpuOps& ops) {
  ops.add("onnx.GatherElements", onnx_gather_elements);
  ops.add("onnx.ScatterElements", onnx_scatter_elements);
  ops.add("onnx.Scatter", onnx_scatter_elements);
}

}  // namespace sp::cpu
