// torch_index_select.cc — mutants of torch.index_select, each a bug real
// index_select kernels have had: a negative index wrapped from the end
// (NumPy's take, Python indexing) where PyTorch rejects it, an out-of-range
// index clamped to the last slice (a bounds check "fixed" by clamping), the
// last selected slice never written (a loop bound off by one), and a 2-D
// index flattened instead of refused (a kernel that reads index.numel()
// without checking index.dim()).
#include <algorithm>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_index_select(const OpSpec& op) { return op.id == "torch.index_select"; }

// Index values in [-s, 0) count from the end.
Outcome wraps_negative(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  c.tensors["index"] =
      with_index_values(*c.tensor("index"), [&](const Shape&, int64_t v) { return v < 0 && v >= -s ? v + s : v; });
  return cpu.run(c);
}

// Out-of-range index values are clamped into [0, s - 1].
Outcome clamps_index(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  if (s > 0)
    c.tensors["index"] = with_index_values(*c.tensor("index"),
                                           [&](const Shape&, int64_t v) { return std::clamp<int64_t>(v, 0, s - 1); });
  return cpu.run(c);
}

// The loop over the index stops one short: out's last slice along dim keeps
// the zeros of a fresh allocation.
Outcome drops_last(Backend& cpu, OpCall& c) {
  Outcome o = cpu.run(c);
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1) return o;
  Tensor out = o.outputs.front().contiguous();
  const std::optional<int64_t> dim = normalized_dim(c);
  if (out.rank() == 0 || !dim || out.numel() == 0) return o;
  const int64_t last = out.size(*dim) - 1;
  Shape pos(static_cast<size_t>(out.rank()), 0);
  do
    if (pos[static_cast<size_t>(*dim)] == last) out.set_bits_at(pos, 0);
  while (next_index(pos, out.shape()));
  return Outcome::of_outputs({out});
}

// A 2-D (or higher) index is read as the 1-D list of its elements.
Outcome flattens_index(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (index.rank() <= 1) return cpu.run(c);
  const Tensor flat = index.contiguous();
  const Shape flat_shape{flat.numel()};
  c.tensors["index"] = remap(index.dtype(), flat_shape, [&](const Shape& pos) {
    Shape at(static_cast<size_t>(flat.rank()), 0);
    int64_t rem = pos[0];
    for (size_t d = at.size(); d-- > 0;) {
      at[d] = rem % flat.size(static_cast<int64_t>(d));
      rem /= flat.size(static_cast<int64_t>(d));
    }
    return flat.bits_at(at);
  });
  return cpu.run(c);
}

}  // namespace

void register_torch_index_select(MutantRegistry& r) {
  r.add({"index-select-wraps-negative", "index_select wraps negative indices from the end where PyTorch rejects them"},
        is_index_select, wraps_negative);
  r.add({"index-select-clamps-index", "index_select clamps out-of-range indices instead of raising"}, is_index_select,
        clamps_index);
  r.add({"index-select-drops-last", "index_select never writes the slice of the last index entry (off by one)"},
        is_index_select, drops_last);
  r.add({"index-select-flattens-index", "index_select reads a 2-D index as its flattened elements instead of raising"},
        is_index_select, flattens_index);
}

}  // namespace sp::mutant
