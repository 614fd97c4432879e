// paddle_scatter.cc — cpu kernel for paddle.scatter (overwrite=True
// replaces rows, overwrite=False zeroes the indexed rows, then adds).
//
// Validate (backends/common/arg_rules.h), then a bounds scan (negative
// values, which 004 does not describe, fail cleanly: the reference allows
// any outcome), then one scatter along dim 0 whose index is the 1-D index
// expanded over each row.
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"

namespace sp::cpu {
namespace {

Outcome paddle_scatter(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_paddle_scatter(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  Tensor out = cpu.fresh_copy(x);
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), 0, x.size(0), cpu.pool())) {
    const bool negative = bad->value < 0;
    return Outcome::of_error(
        ErrorCategory::IndexOutOfBounds,
        negative ? "index[" + std::to_string(bad->position[0]) + "]=" + std::to_string(bad->value) + " is negative"
                 : "The index is out of bounds: it should be less than " + std::to_string(x.size(0)) +
                       ", but received " + std::to_string(bad->value));
  }
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
