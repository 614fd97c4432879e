// paddle_gather.cc — cpu kernel for paddle.gather.
//
// Validate (PD-GA2..PD-GA4 in the reference's order), read the index values
// (a 0-d index is one) into a contiguous int64 index with negatives wrapped
// (PD-GA5 from Paddle 3.0; before, a negative value fails cleanly: the
// reference leaves it unspecified), then gather_kernel along axis: the
// kernel is paddle.index_select's (paddle_select_along_axis, declared in
// cpu_context.h) with a 0-d index allowed; a 0-d index's result is that
// gather's with the axis (of size 1) dropped from its shape.
#include "backends/cpu/cpu_context.h"

namespace sp::cpu {
namespace {

Outcome gather(CpuContext& cpu, const OpCall& call) {
  return paddle_select_along_axis(cpu, call, "PD-GA5", /*zero_d_index=*/true, "index must have rank 0 or 1");
}

}  // namespace

void register_paddle_gather(CpuOps& ops) { ops.add("paddle.gather", gather); }

}  // namespace sp::cpu
