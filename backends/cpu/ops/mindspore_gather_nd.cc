// mindspore_gather_nd.cc — cpu kernel for MindSpore's ops.gather_nd.
//
// Validate (MS-GND2..MS-GND4, the reference's order), then the shared ND
// walk (nd_slices.h): every index tuple (indices' last dim, any integer
// dtype) resolved to an element offset into input_x, each value in [0, s)
// (what the page leaves undefined, MS-GND5, fails cleanly here), and the
// slices (input_x's dims after k) copied into a contiguous out of shape
// indices.shape[:-1] ++ input_x.shape[k:].
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/nd_slices.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome gather_nd(CpuContext& cpu, const OpCall& call) {
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const DType it = indices.dtype();
  if (!is_integral(it) || it == DType::Bool)
    return fail(ErrorCategory::IndexDtype, "indices must be an integer tensor");
  if (indices.rank() < 1) return fail(ErrorCategory::InvalidArgument, "indices must have rank >= 1");
  const int64_t k = indices.shape().back();
  if (k > input.rank())
    return fail(ErrorCategory::ShapeMismatch, "indices.shape[-1] must be at most the rank of input_x");
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  Shape out_shape = lead;
  out_shape.insert(out_shape.end(), input.shape().begin() + k, input.shape().end());
  const NdTuples t = resolve_nd_tuples(input, indices, 0, false);
  if (t.error) return *t.error;
  return Outcome::of_outputs({gather_nd_slices(cpu, input, t, out_shape, k)});
}

}  // namespace

void register_mindspore_gather_nd(CpuOps& ops) { ops.add("mindspore.gather_nd", gather_nd); }

}  // namespace sp::cpu
