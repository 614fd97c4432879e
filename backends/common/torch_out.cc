// torch_out.cc — see torch_out.h.
#include "backends/common/torch_out.h"

#include "backends/common/arg_rules.h"

namespace sp::backend_rules {

Outcome run_with_torch_out(const OpCall& call, const std::function<Outcome(const OpCall&)>& kernel) {
  OpCall without = call;
  without.tensors.erase("out");
  Outcome result = kernel(without);
  if (result.kind != Outcome::Kind::Outputs || result.outputs.size() != 1) return result;
  const Tensor& fresh = result.outputs.front();
  if (auto v = check_torch_out(call, fresh)) return Outcome::of_error(v->category, v->message);
  const Tensor& out = *call.tensor("out");
  if (out.shape() != fresh.shape()) return result;
  if (checked_numel(out.shape()) > 0) {
    Shape idx(out.shape().size(), 0);
    do out.set_bits_at(idx, fresh.bits_at(idx));
    while (next_index(idx, out.shape()));
  }
  return Outcome::of_outputs({out});
}

}  // namespace sp::backend_rules
