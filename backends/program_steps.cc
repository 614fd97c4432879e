// program_steps.cc — a program on a backend (backend.h run_program): whole
// where the backend takes programs, else one call per step.
#include <string>

#include "backends/backend.h"
#include "reference/op_table.h"

namespace sp {

namespace {

std::string step_label(const ProgramStep& step, size_t k) {
  return "step " + std::to_string(k + 1) + " (" + step.op + "): ";
}

// Copies `from`'s elements into `to` (same dtype and shape) through to's layout.
bool copy_into(const Tensor& from, const Tensor& to) {
  if (from.dtype() != to.dtype() || from.shape() != to.shape()) return false;
  if (from.numel() <= 0) return true;
  Shape idx(to.shape().size(), 0);
  do to.set_bits_at(idx, from.bits_at(idx));
  while (next_index(idx, to.shape()));
  return true;
}

}  // namespace

Outcome run_program_steps(Backend& backend, const Program& program) {
  std::map<std::string, Tensor> named;
  for (const auto& [name, t] : program.inputs) named.emplace(name, t.clone_storage());
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const ProgramStep& step = program.steps[k];
    if (is_view_op(step.op)) {
      named[step.let] = apply_view(step, named.at(step.operands.at("self")));
      continue;
    }
    // The operands are the program's own tensors: an in-place step writes
    // them directly (and a wrong write into an input shows in the result).
    const OpCall call = step_call(step, named, program.framework_version);
    Outcome o = run_backend(backend, call);
    if (o.kind != Outcome::Kind::Outputs) {
      o.message = step_label(step, k) + o.message;
      return o;
    }
    if (o.outputs.size() != 1)
      return Outcome::harness_error(step_label(step, k) + "the backend answered " + std::to_string(o.outputs.size()) +
                                    " outputs for one");
    if (!step.in_place()) {
      named[step.let] = o.outputs.front();
    } else if (!o.side_effects_unobservable.empty() && !copy_into(o.outputs.front(), named.at(step.written()))) {
      // Its self cannot be seen after the call: the returned self stands for it.
      return Outcome::of_outputs({o.outputs.front()});  // a misshaped self: judged as the program's output
    }
  }
  std::vector<Tensor> outputs;
  for (const std::string& name : program.expect) outputs.push_back(named.at(name));
  return Outcome::of_outputs(std::move(outputs));
}

Outcome run_program(Backend& backend, const Program& program) {
  for (const ProgramStep& step : program.steps)
    if (!is_view_op(step.op) && !backend.implements(step.op))
      return Outcome::unsupported("backend " + backend.name() + " does not implement op " + step.op);
  if (std::optional<Outcome> whole = backend.run_whole_program(program)) return std::move(*whole);
  return run_program_steps(backend, program);
}

}  // namespace sp
