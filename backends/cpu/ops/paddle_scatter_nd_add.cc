// paddle_scatter_nd_add.cc — cpu kernel for paddle.scatter_nd_add, and the
// add both it and paddle.scatter_nd run (paddle_add_nd_slices,
// backends/cpu/nd_slices.h).
//
// Validate (PD-SNA2..PD-SNA6 in the reference's order), resolve every index
// tuple (int32 or int64; negatives wrap from Paddle 3.0, PD-SNA7; before, a
// negative value fails cleanly: the reference leaves it unspecified) to an
// offset into a fresh copy of x, then add whole slices x.shape[Q:] in
// row-major order of the tuples (one correctly rounded add per term): the ND
// walk shared with onnx.ScatterND (backends/cpu/nd_slices.h).
#include <string>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/nd_slices.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {

Outcome paddle_add_nd_slices(Tensor target, const Tensor& index, const Tensor& updates, int64_t min_index_rank,
                             bool wraps) {
  const auto fail = [](ErrorCategory c, const std::string& m) { return Outcome::of_error(c, m); };
  if (index.rank() < min_index_rank)
    return fail(ErrorCategory::InvalidArgument, "index must have ndim >= " + std::to_string(min_index_rank));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  const int64_t q = index.shape().back();
  if (q > target.rank()) return fail(ErrorCategory::ShapeMismatch, "index.shape[-1] must be <= the rank");
  Shape want(index.shape().begin(), index.shape().end() - 1);
  want.insert(want.end(), target.shape().begin() + q, target.shape().end());
  if (updates.shape() != want)
    return fail(updates.rank() == static_cast<int64_t>(want.size()) ? ErrorCategory::ShapeMismatch
                                                                    : ErrorCategory::RankMismatch,
                "updates must have the shape " + format_shape(want));
  const NdTuples t = resolve_nd_tuples(target, index, 0, wraps);
  if (t.error) return *t.error;
  scatter_nd_slices(target, updates, t, index.rank(), q, Reduce::Sum);
  return Outcome::of_outputs({target});
}

namespace {

Outcome scatter_nd_add(CpuContext& cpu, const OpCall& call) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &updates = *call.tensor("updates");
  if (updates.dtype() != x.dtype())
    return Outcome::of_error(ErrorCategory::DtypeMismatch, "updates must have x's dtype");
  return paddle_add_nd_slices(cpu.fresh_copy(x), index, updates, 2, ref::rule_holds("PD-SNA7", call.framework_version));
}

}  // namespace

void register_paddle_scatter_nd_add(CpuOps& ops) { ops.add("paddle.scatter_nd_add", scatter_nd_add); }

}  // namespace sp::cpu
