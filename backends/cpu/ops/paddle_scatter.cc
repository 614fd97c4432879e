// paddle_scatter.cc — cpu kernel for paddle.scatter (overwrite=True
// replaces rows, overwrite=False zeroes the indexed rows, then adds).
//
// Validate (backends/common/arg_rules.h), then a bounds scan, then one
// scatter along dim 0 whose index is the 1-D index expanded over each row.
// Negative values: before Paddle 3.0 (PD-B2, which 004 does not describe)
// they fail cleanly, the reference allowing any outcome; from 3.0 (PD-B3)
// one in [-S, 0) addresses row v + S (the scatter kernel wraps it) and one
// below -S is out of bounds.
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "reference/messages_paddle.h"

namespace sp::cpu {
namespace {

Outcome paddle_scatter(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_paddle_scatter(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  Tensor out = cpu.fresh_copy(x);
  const bool wraps = backend_rules::paddle_negatives_wrap(call);
  const int64_t rows = x.size(0);
  const int64_t lo = wraps ? -rows : 0;
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), lo, rows, cpu.pool()))
    return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                             ref::paddle_messages::bad_index(bad->position[0], bad->value, rows, wraps));
  // Rows of x addressed along dim 0: an index expanded over updates' first
  // len(index) rows (PD-S1: any further rows are not read).
  Shape walked = updates.shape();
  walked[0] = index.size(0);
  if (checked_numel(walked) == 0) return Outcome::of_outputs({out});
  Shape index_strides(walked.size(), 0);
  index_strides[0] = index.stride(0);
  const bool overwrite = call.bool_arg("overwrite").value_or(true);
  cpu.scatter_into(out, index, walked, index_strides, &updates, std::nullopt, 0,
                   overwrite ? ScatterOp::Overwrite : ScatterOp::Add, !overwrite);
  return Outcome::of_outputs({out});
}

}  // namespace

void register_paddle_scatter(CpuOps& ops) { ops.add("paddle.scatter", paddle_scatter); }

}  // namespace sp::cpu
