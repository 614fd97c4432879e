// torch_dialect.cc — mutants of bugs in PyTorch's argument handling, shared
// by every torch op: negative index values, the rank check of an empty
// index.
#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_torch(const OpSpec& op) { return op.dialect == "torch"; }

Outcome wrap_negative_torch_index(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  Tensor& index = c.tensors[index_name(c)];
  bool all_wrappable = true;
  Shape pos(index.shape().size(), 0);
  do {
    const int64_t v = read_int(index, pos);
    all_wrappable &= v >= -s && v < s;
  } while (next_index(pos, index.shape()));
  if (all_wrappable) index = with_index_values(index, [&](const Shape&, int64_t v) { return v < 0 ? v + s : v; });
  return cpu.run(c);
}

Outcome empty_index_rank_strict(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor(index_name(c));
  if (index.numel() == 0) {
    const int64_t index_rank = index.rank() == 0 ? 1 : index.rank();
    if (index_rank != op_rank(c))
      return Outcome::of_error(ErrorCategory::RankMismatch, "index rank differs from self rank (empty index)");
  }
  return cpu.run(c);
}

}  // namespace

void register_torch_dialect(MutantRegistry& r) {
  r.add({"torch-negative-wrap", "PyTorch dialect wraps negative indices Python-style instead of raising"}, is_torch,
        wrap_negative_torch_index);
  r.add({"empty-index-rank-strict", "rank check applied even when index is empty"}, is_torch, empty_index_rank_strict);
}

}  // namespace sp::mutant
