// backward.cc — mutants of the backward ops (`<op>.backward`), each a
// gradient bug class the autodiff literature reports (∇Fuzz and framework
// trackers): duplicate writers of a scatter where only the surviving one
// gets the gradient, gather's gradient written instead of accumulated (a
// duplicate index loses terms), and scatter's grad_self not masked where the
// forward overwrote self.
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_scatter_backward(const OpSpec& op) {
  return op.backward_of == "torch.scatter_" || op.backward_of == "torch.scatter";
}
bool is_gather_backward(const OpSpec& op) { return op.backward_of == "torch.gather"; }

// Every index position of a torch scatter/gather backward with its target
// along dim (index positions in row-major order); empty when the call is
// not one the cpu answers with gradients (the mutant leaves it alone then).
std::vector<Write> targets_of(const OpCall& c, const Tensor& data) {
  const Tensor* index = c.tensor("index");
  const auto dim = normalized_dim(c);
  if (!index || !dim || index->numel() == 0 || index->rank() == 0 || data.rank() != index->rank()) return {};
  std::vector<Write> out;
  Shape pos(index->shape().size(), 0);
  do {
    Shape target = pos;
    target[static_cast<size_t>(*dim)] = read_int(*index, pos);
    out.push_back({target, pos});
  } while (next_index(pos, index->shape()));
  return out;
}

// scatter's backward: grad_src reaches only the last writer of each slot
// (the one whose value survived in a sequential forward); the earlier
// duplicates get 0 — against 002's warning that the gradient is propagated
// to every source position of the index.
Outcome grad_src_last_writer_only(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs || out.outputs.size() != 2 || !c.tensor("self")) return out;
  const std::vector<Write> writes = targets_of(c, *c.tensor("self"));
  std::map<Shape, Shape> last;
  for (const Write& w : writes) last[w.target] = w.source;
  const Tensor& grad_src = out.outputs[1];
  for (const Write& w : writes)
    if (last[w.target] != w.source)
      grad_src.set_bits_at(w.source, bits_from_value(grad_src.dtype(), Value::of_float(0.0)));
  return out;
}

// gather's backward: grad_input[target] = grad_output[pos] (a write, not
// +=), so a duplicate index keeps only its last term.
Outcome gather_grad_overwrites(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  const Tensor* grad_output = c.tensor("grad_output");
  if (out.kind != Outcome::Kind::Outputs || out.outputs.size() != 1 || !grad_output || !c.tensor("input")) return out;
  const Tensor& grad_input = out.outputs[0];
  for (const Write& w : targets_of(c, *c.tensor("input")))
    grad_input.set_bits_at(w.target, grad_output->bits_at(w.source));
  return out;
}

// scatter's backward: grad_self = grad_output everywhere (as scatter_add's),
// not zeroed where the forward overwrote self.
Outcome grad_self_not_masked(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  const Tensor* grad_output = c.tensor("grad_output");
  if (out.kind != Outcome::Kind::Outputs || out.outputs.empty() || !grad_output ||
      grad_output->shape() != out.outputs[0].shape() || grad_output->dtype() != out.outputs[0].dtype())
    return out;
  out.outputs[0] = grad_output->contiguous();
  return out;
}

}  // namespace

void register_backward(MutantRegistry& r) {
  r.add({"grad-src-last-writer-only", "scatter backward: only the surviving duplicate writer gets the gradient"},
        is_scatter_backward, grad_src_last_writer_only);
  r.add({"gather-grad-overwrites", "gather backward: grad_input written, not accumulated (duplicates lose terms)"},
        is_gather_backward, gather_grad_overwrites);
  r.add({"grad-self-not-masked", "scatter backward: grad_self not zeroed where the forward overwrote self"},
        is_scatter_backward, grad_self_not_masked);
}

}  // namespace sp::mutant
