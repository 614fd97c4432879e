// torch_gather.cc — mutants of torch.gather.
#include <algorithm>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

Outcome gather_clamps_index(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  if (s > 0)
    c.tensors["index"] = with_index_values(*c.tensor("index"),
                                           [&](const Shape&, int64_t v) { return std::clamp<int64_t>(v, 0, s - 1); });
  return cpu.run(c);
}

}  // namespace

void register_torch_gather(MutantRegistry& r) {
  r.add(
      {"gather-clamps-index", "gather clamps out-of-range indices instead of raising"},
      [](const OpSpec& op) { return op.id == "torch.gather"; }, gather_clamps_index);
}

}  // namespace sp::mutant
