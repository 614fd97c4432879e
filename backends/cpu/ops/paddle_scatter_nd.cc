// paddle_scatter_nd.cc — cpu kernel for paddle.scatter_nd: "equal to
// scatter_nd_add(paddle.zeros(shape, updates.dtype), index, updates)".
//
// Validate the shape (PD-SN2: no negative entry), then the add
// paddle.scatter_nd_add runs (paddle_add_nd_slices, backends/cpu/nd_slices.h)
// onto a fresh zero tensor of that shape and updates' dtype: index.ndim >= 1
// (PD-SN3), negatives wrapping from Paddle 3.0 (PD-SN7).
#include <vector>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/nd_slices.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome scatter_nd(CpuContext& cpu, const OpCall& call) {
  const Tensor &index = *call.tensor("index"), &updates = *call.tensor("updates");
  const std::vector<int64_t> shape = op_spec(call).arg_or_default(call, "shape")->ints;
  for (int64_t d : shape)
    if (d < 0) return Outcome::of_error(ErrorCategory::InvalidArgument, "every entry of shape must be >= 0");
  Tensor target = cpu.fresh_copy(Tensor::zeros(updates.dtype(), Shape(shape.begin(), shape.end())));
  return paddle_add_nd_slices(target, index, updates, 1, ref::rule_holds("PD-SN7", call.framework_version));
}

}  // namespace

void register_paddle_scatter_nd(CpuOps& ops) { ops.add("paddle.scatter_nd", scatter_nd); }

}  // namespace sp::cpu
