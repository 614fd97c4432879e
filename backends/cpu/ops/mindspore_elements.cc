// mindspore_elements.cc — cpu kernels for MindSpore's element-wise index ops
// (MindSpore API documentation r2.10): ops.gather_elements.
//
// Validate in the reference's order (reference/dialect_mindspore_elements.h
// states each rule), scan the index values against [-s, s), then a
// contiguous copy of the index with the negatives wrapped
// (CpuContext::wrapped_indices, shared with the ONNX kernels) and the torch
// kernels' walk along dim:
//   gather_elements: gather_kernel (as torch.gather);
// The output is a fresh contiguous tensor.
#include <string>

#include "backends/cpu/cpu_context.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

bool int32_or_64(const Tensor& t) { return t.dtype() == DType::Int32 || t.dtype() == DType::Int64; }

// index.shape[d] <= other.shape[d] for every d but `dim` (-1: every d).
bool fits(const Tensor& index, const Tensor& other, int64_t dim) {
  for (int64_t d = 0; d < index.rank(); ++d)
    if (d != dim && index.size(d) > other.size(d)) return false;
  return true;
}

Outcome index_outside(const Tensor& index, const BadIndex& bad, int64_t lo, int64_t size) {
  return fail(ErrorCategory::IndexOutOfBounds, "index" + format_index(bad.position) + " = " +
                                                   std::to_string(bad.value) + " is outside [" + std::to_string(lo) +
                                                   ", " + std::to_string(size) + ") (" + index.describe() + ")");
}

// MS-GE2..MS-GE6, then out = input[.., index, ..] along dim.
Outcome gather_elements(CpuContext& cpu, const OpCall& call) {
  const Tensor &input = *call.tensor("input"), &index = *call.tensor("index");
  const int64_t r = input.rank(), dim_arg = *call.int_arg("dim");
  if (dim_arg < -r || dim_arg >= r) return fail(ErrorCategory::DimOutOfRange, "dim out of range");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  if (index.rank() != r) return fail(ErrorCategory::RankMismatch, "index and input ranks differ");
  const int64_t dim = wrap_dim(dim_arg, r), size = input.size(dim);
  if (!fits(index, input, dim)) return fail(ErrorCategory::ShapeMismatch, "index larger than input apart from dim");
  if (index.numel() == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), index.shape())});
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), -size, size, cpu.pool()))
    return index_outside(index, *bad, -size, size);
  const Tensor wrapped = cpu.wrapped_indices(index, size);
  Tensor out = cpu.uninitialized(input.dtype(), index.shape());
  const IndexWalk walk = make_walk(wrapped.shape(), dim, input.strides(), wrapped.strides(), out.strides(), size);
  if (!gather_kernel(input.dtype(), wrapped.dtype(), data(input), data(wrapped), data(out), walk, cpu.pool()))
    return Outcome::harness_error("cpu backend: gather_kernel rejected a wrapped MindSpore index");
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_elements(CpuOps& ops) { ops.add("mindspore.ops.gather_elements", gather_elements); }

}  // namespace sp::cpu
