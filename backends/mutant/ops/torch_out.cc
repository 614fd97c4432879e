// torch_out.cc — mutants of PyTorch's out= (torch.gather, torch.scatter,
// torch.index_select, torch.take_along_dim), each a bug real out= paths have
// had: the dtype check missing (the result handed back in its own dtype),
// the overlap check missing (an out over an input written anyway, as
// kernels did before at::assert_no_overlap existed), an expanded out
// written without the internal-overlap check, and out= ignored (a fresh
// tensor returned while the caller's out keeps its old contents).
#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool takes_out(const OpSpec& op) { return out_operand(op) != nullptr; }

OpCall without_out(const OpCall& c) {
  OpCall w = c;
  w.tensors.erase("out");
  return w;
}

// Writes `result` into out element by element (out has its shape).
void write_into(const Tensor& out, const Tensor& result) {
  if (checked_numel(out.shape()) <= 0) return;
  Shape idx(out.shape().size(), 0);
  do out.set_bits_at(idx, result.bits_at(idx));
  while (next_index(idx, out.shape()));
}

// An out of another dtype is not rejected: the result comes back in its own
// dtype (the out= wrapper forgot the check before resizing).
Outcome ignores_out_dtype(Backend& cpu, OpCall& c) {
  const Tensor* out = c.tensor("out");
  if (!out) return cpu.run(c);
  const OpCall w = without_out(c);
  Outcome o = cpu.run(w);
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1 || o.outputs.front().dtype() == out->dtype())
    return cpu.run(c);
  return o;
}

// An out sharing memory with an operand is written anyway: the op runs as
// if out were separate memory, then the result lands in out.
Outcome ignores_overlap(Backend& cpu, OpCall& c) {
  const Tensor* out = c.tensor("out");
  if (!out || !is_error(dry_run(cpu, c), ErrorCategory::OverlappingOutput) || out->has_internal_overlap())
    return cpu.run(c);
  OpCall w = c;
  w.tensors["out"] = out->clone_storage();
  Outcome o = cpu.run(w);
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1 || o.outputs.front().shape() != out->shape()) return o;
  write_into(*out, o.outputs.front());
  return Outcome::of_outputs({*out});
}

// An expanded out (stride 0) is written element by element: the last write
// to each shared element wins.
Outcome writes_expanded_out(Backend& cpu, OpCall& c) {
  const Tensor* out = c.tensor("out");
  if (!out || !out->has_internal_overlap()) return cpu.run(c);
  Outcome o = cpu.run(without_out(c));
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1 || o.outputs.front().shape() != out->shape() ||
      o.outputs.front().dtype() != out->dtype())
    return cpu.run(c);
  write_into(*out, o.outputs.front());
  return Outcome::of_outputs({*out});
}

// out= is ignored: the answer is a fresh tensor and the caller's out keeps
// what it held.
Outcome ignores_out(Backend& cpu, OpCall& c) {
  if (!c.tensor("out")) return cpu.run(c);
  const Outcome with = dry_run(cpu, c);  // errors as the real op gives them; out untouched
  if (with.kind != Outcome::Kind::Outputs) return with;
  return cpu.run(without_out(c));
}

}  // namespace

void register_torch_out(MutantRegistry& r) {
  r.add({"out-dtype-unchecked", "out= of another dtype is not rejected: the result comes back in its own dtype"},
        takes_out, ignores_out_dtype);
  r.add({"out-overlap-unchecked", "out= sharing memory with an input is written anyway (no assert_no_overlap)"},
        takes_out, ignores_overlap);
  r.add({"out-expanded-written", "an expanded (stride-0) out= is written, last writer wins, instead of rejected"},
        takes_out, writes_expanded_out);
  r.add({"out-ignored", "out= is ignored: a fresh tensor is returned and the caller's out keeps its contents"},
        takes_out, ignores_out);
}

}  // namespace sp::mutant
