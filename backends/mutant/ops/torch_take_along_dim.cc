// torch_take_along_dim.cc — mutants of torch.take_along_dim, each a bug a
// real take_along_dim has had or invites: gather semantics (no
// broadcasting: indices must already have out's shape, a size-1 dim of
// indices is not repeated), the broadcast applied to one side only (input's
// size-1 dims broadcast against indices, indices' own size-1 dims left
// as they are), dim=None reading the first row along dim 0 instead of the
// flattened input (a missing flatten), and an out-of-range index clamped
// (`index.clamp(0, s - 1)`, a bounds check "fixed" by clamping).
#include <algorithm>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_take_along_dim(const OpSpec& op) { return op.id == "torch.take_along_dim"; }

// A tensor of `shape` read from `t` at position `pos` mapped by `at`.
Tensor rebuilt(const Tensor& t, const Shape& shape, const std::function<Shape(const Shape&)>& at) {
  return remap(t.dtype(), shape, [&](const Shape& pos) { return t.bits_at(at(pos)); });
}

// The call with a dim, equal ranks, and where the answer is outputs.
bool valid_with_dim(Backend& cpu, const OpCall& c) {
  if (!c.int_arg("dim")) return false;
  const Outcome o = dry_run(cpu, c);
  return o.kind == Outcome::Kind::Outputs && c.tensor("input")->rank() > 0;
}

// gather semantics: indices is taken as it is, no broadcasting. Where
// indices has size 1 and input more, only the first slice is read; out has
// indices' shape.
Outcome no_broadcast(Backend& cpu, OpCall& c) {
  if (!valid_with_dim(cpu, c)) return cpu.run(c);
  const Tensor& input = *c.tensor("input");
  const Tensor& indices = *c.tensor("indices");
  const int64_t d = *normalized_dim(c);
  // input cut to indices' sizes apart from dim (a size-1 input dim stays 1
  // and is then read at 0, as gather requires index <= input there).
  Shape cut = input.shape();
  for (size_t k = 0; k < cut.size(); ++k)
    if (static_cast<int64_t>(k) != d) cut[k] = std::min(cut[k], indices.shape()[k]);
  c.tensors["input"] = rebuilt(input, cut, [](const Shape& pos) { return pos; });
  Shape expanded = cut;
  expanded[static_cast<size_t>(d)] = indices.shape()[static_cast<size_t>(d)];
  c.tensors["indices"] = rebuilt(indices, expanded, [&](const Shape& pos) {
    Shape at = pos;
    for (size_t k = 0; k < at.size(); ++k)
      if (indices.shape()[k] == 1) at[k] = 0;
    return at;
  });
  return cpu.run(c);
}

// Only input broadcasts: where indices has size 1 and input more, indices'
// single slice is not repeated; out keeps indices' 1 there (input's first
// slice).
Outcome broadcasts_input_only(Backend& cpu, OpCall& c) {
  if (!valid_with_dim(cpu, c)) return cpu.run(c);
  const Tensor& input = *c.tensor("input");
  const Tensor& indices = *c.tensor("indices");
  const int64_t d = *normalized_dim(c);
  Shape cut = input.shape();
  for (size_t k = 0; k < cut.size(); ++k)
    if (static_cast<int64_t>(k) != d && indices.shape()[k] == 1) cut[k] = std::min<int64_t>(cut[k], 1);
  c.tensors["input"] = rebuilt(input, cut, [](const Shape& pos) { return pos; });
  return cpu.run(c);
}

// dim=None without the flatten: the input's first row along dim 0 (its
// first input.size(-1) elements for a contiguous input) is what indices
// address, as if dim were the last dim of a 1-row view.
Outcome none_not_flattened(Backend& cpu, OpCall& c) {
  if (c.int_arg("dim")) return cpu.run(c);
  const Tensor& input = *c.tensor("input");
  if (input.rank() < 2 || input.numel() == 0) return cpu.run(c);
  const int64_t last = input.shape().back();
  const Shape row{last};
  c.tensors["input"] = rebuilt(input, row, [&](const Shape& pos) {
    Shape at(static_cast<size_t>(input.rank()), 0);
    at.back() = pos[0];
    return at;
  });
  return cpu.run(c);
}

// Out-of-range index values are clamped into [0, s - 1] (negatives to 0).
Outcome clamps_index(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const Tensor& input = *c.tensor("input");
  const int64_t s = c.int_arg("dim") ? indexed_size(c, *normalized_dim(c)) : input.numel();
  if (s > 0)
    c.tensors["indices"] = with_index_values(*c.tensor("indices"),
                                             [&](const Shape&, int64_t v) { return std::clamp<int64_t>(v, 0, s - 1); });
  return cpu.run(c);
}

}  // namespace

void register_torch_take_along_dim(MutantRegistry& r) {
  r.add({"take-along-dim-no-broadcast",
         "take_along_dim with gather semantics: indices' size-1 dims are not broadcast against input"},
        is_take_along_dim, no_broadcast);
  r.add({"take-along-dim-broadcasts-input-only",
         "take_along_dim broadcasts input's size-1 dims but not indices' (the wrong side only)"},
        is_take_along_dim, broadcasts_input_only);
  r.add({"take-along-dim-none-not-flattened",
         "take_along_dim with dim=None indexes input's first row instead of the flattened input"},
        is_take_along_dim, none_not_flattened);
  r.add({"take-along-dim-clamps-index", "take_along_dim clamps out-of-range indices instead of raising"},
        is_take_along_dim, clamps_index);
}

}  // namespace sp::mutant
