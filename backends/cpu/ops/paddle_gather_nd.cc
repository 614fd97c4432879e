// paddle_gather_nd.cc — cpu kernel for paddle.gather_nd.
//
// Validate (PD-GN2..PD-GN4 in the reference's order), resolve every index
// tuple (int32 or int64; negatives wrap from Paddle 3.0, PD-GN5; before,
// a negative value fails cleanly: the reference leaves it unspecified) to
// an offset into x, then copy whole slices x.shape[Q:]: the ND walk shared
// with onnx.GatherND (backends/cpu/nd_slices.h), no batch dims.
#include <string>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/nd_slices.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome gather_nd(CpuContext& cpu, const OpCall& call) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  if (index.rank() <= 1) return fail(ErrorCategory::InvalidArgument, "index must have rank > 1");
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  const int64_t q = index.shape().back();
  if (q > x.rank()) return fail(ErrorCategory::ShapeMismatch, "index.shape[-1] must be <= x.ndim");
  Shape out_shape(index.shape().begin(), index.shape().end() - 1);
  out_shape.insert(out_shape.end(), x.shape().begin() + q, x.shape().end());
  const NdTuples t = resolve_nd_tuples(x, index, 0, ref::rule_holds("PD-GN5", call.framework_version));
  if (t.error) return *t.error;
  return Outcome::of_outputs({gather_nd_slices(cpu, x, t, out_shape, q)});
}

}  // namespace

void register_paddle_gather_nd(CpuOps& ops) { ops.add("paddle.gather_nd", gather_nd); }

}  // namespace sp::cpu
