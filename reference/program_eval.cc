// program_eval.cc — the reference for a program (program.h): each step
// through evaluate(), the allowed sets composed by SEMANTICS.md P-1.
//
// Looseness is kept per storage element (a storage and an element offset
// in it), so a view and its base agree on which elements are loose. A
// step's output element is unspecified when its own reference reads a
// loose element to make it:
//   * the element of the op's initial tensor at its position (the scatter
//     and index_* ops start from a copy of self; every element of self is
//     counted as read, overwritten or not);
//   * the operand element any write into it read (Write::read_operand and
//     read_at, recorded by the output builder);
//   * any element of a data operand the writes do not name (a tensor value),
//     for every element the step writes.
// A loose element of an index operand makes the rest of the program
// unspecified (the index could point anywhere, or out of bounds). Other
// elements keep what the step's own reference allows there.
#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

#include "reference/op_table.h"
#include "reference/program.h"
#include "reference/reference.h"

namespace sp {

namespace {

using Storage = const std::vector<std::byte>*;
using LooseMap = std::map<Storage, std::map<int64_t, ElementAllowed>>;

const ElementAllowed* loose_at(const LooseMap& loose, const Tensor& t, const Shape& idx) {
  auto s = loose.find(t.storage().get());
  if (s == loose.end()) return nullptr;
  auto e = s->second.find(t.element_offset(idx));
  return e == s->second.end() ? nullptr : &e->second;
}

// The first loose element `t` reaches, as its multi-index.
std::optional<Shape> first_loose(const LooseMap& loose, const Tensor& t) {
  auto s = loose.find(t.storage().get());
  if (s == loose.end() || s->second.empty() || t.numel() <= 0) return std::nullopt;
  Shape idx(t.shape().size(), 0);
  do
    if (s->second.count(t.element_offset(idx))) return idx;
  while (next_index(idx, t.shape()));
  return std::nullopt;
}

std::string element_name(const std::string& name, const Shape& idx) { return name + format_index(idx); }

Shape unravel(const Shape& shape, int64_t linear) {
  Shape idx(shape.size());
  for (size_t d = idx.size(); d-- > 0;) {
    idx[d] = linear % shape[d];
    linear /= shape[d];
  }
  return idx;
}

// The operand's own multi-index for a position `at` its semantic read: the
// same rank (a broadcast size-1 dim read at any position is its 0), or a
// flattened position into its row-major order; nullopt when it cannot say.
std::optional<Shape> operand_index(const Tensor& t, const Shape& at) {
  if (static_cast<int64_t>(at.size()) == t.rank()) {
    Shape idx = at;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (idx[d] >= 0 && idx[d] < t.shape()[d]) continue;
      if (t.shape()[d] != 1) return std::nullopt;
      idx[d] = 0;
    }
    return idx;
  }
  if (t.rank() == 0 && at.size() == 1 && at[0] == 0) return Shape{};
  if (at.size() == 1 && at[0] >= 0 && at[0] < t.numel()) return unravel(t.shape(), at[0]);
  return std::nullopt;
}

// What makes each output element of one step unspecified: its linear index
// (row-major in the output) -> the loose element it read.
class LooseReads {
 public:
  LooseReads(const ProgramStep& step, const OpCall& call, const LooseMap& loose)
      : step_(step), call_(call), loose_(loose) {}

  std::map<int64_t, std::string> of(const ExpectedTensor& out, const Trace& trace) {
    const OpSpec& op = op_spec(call_);
    const Shape& shape = out.exact.shape();
    // The initial tensor the op starts from (the scatter and index_* ops and their twins).
    if (op.in_place || !op.twin.empty())
      if (const Tensor* initial = call_.tensor(op.output_shape_of); initial && initial->shape() == shape)
        for_each(shape, [&](const Shape& idx, int64_t linear) {
          if (loose_at(loose_, *initial, idx)) mark(linear, name_of(op.output_shape_of), idx);
        });
    std::set<std::string> traced;
    for (const Write& w : trace.writes) {
      if (w.read_operand.empty()) continue;
      traced.insert(w.read_operand);
      const Tensor* t = call_.tensor(w.read_operand);
      if (!t) continue;
      const std::optional<Shape> idx = operand_index(*t, w.read_at);
      if (idx ? loose_at(loose_, *t, *idx) != nullptr : first_loose(loose_, *t).has_value())
        mark(linear_of(shape, w.target), name_of(w.read_operand), idx ? *idx : w.read_at);
    }
    // Data operands no write names (a tensor value): every written element.
    for (const OperandSpec& o : op.operands) {
      const Tensor* t = call_.tensor(o.name);
      if (!t || o.role == OperandRole::Index || o.name == op.output_shape_of || traced.count(o.name)) continue;
      if (const std::optional<Shape> at = first_loose(loose_, *t))
        for (const Write& w : trace.writes) mark(linear_of(shape, w.target), name_of(o.name), *at);
    }
    return std::move(reads_);
  }

 private:
  static void for_each(const Shape& shape, const std::function<void(const Shape&, int64_t)>& visit) {
    if (checked_numel(shape) <= 0) return;
    Shape idx(shape.size(), 0);
    int64_t linear = 0;
    do visit(idx, linear++);
    while (next_index(idx, shape));
  }
  static int64_t linear_of(const Shape& shape, const Shape& target) {
    int64_t linear = 0;
    for (size_t d = 0; d < shape.size() && d < target.size(); ++d) linear = linear * shape[d] + target[d];
    return linear;
  }
  std::string name_of(const std::string& operand) const {
    auto it = step_.operands.find(operand);
    return it == step_.operands.end() ? operand : it->second;
  }
  void mark(int64_t linear, const std::string& name, const Shape& idx) {
    reads_.emplace(linear, element_name(name, idx));
  }

  const ProgramStep& step_;
  const OpCall& call_;
  const LooseMap& loose_;
  std::map<int64_t, std::string> reads_;
};

// Why the step's index operands read a loose element, if they do.
std::optional<std::string> loose_index_read(const ProgramStep& step, const OpCall& call, const LooseMap& loose) {
  for (const OperandSpec& o : op_spec(call).operands) {
    const Tensor* t = call.tensor(o.name);
    if (o.role != OperandRole::Index || !t) continue;
    if (const std::optional<Shape> at = first_loose(loose, *t))
      return "its index operand " + o.name + " reads " + element_name(step.operands.at(o.name), *at) +
             ", which an earlier step left loose: the index could be any value, so any outcome is allowed from here";
  }
  return std::nullopt;
}

// Writes the step's result into the program's tensors and the loose map.
void apply_result(const ProgramStep& step, const ExpectedTensor& out, const std::map<int64_t, std::string>& reads,
                  int index, std::map<std::string, Tensor>& named, LooseMap& loose) {
  Tensor target;
  if (step.in_place()) {
    target = named.at(step.written());
  } else {
    target = out.exact.clone_storage();
    named[step.let] = target;
  }
  if (target.shape() != out.exact.shape())
    throw std::logic_error(describe_step(step) + ": the reference's result has shape " +
                           format_shape(out.exact.shape()) + ", its target " + format_shape(target.shape()));
  auto& marks = loose[target.storage().get()];
  if (target.numel() <= 0) return;
  Shape idx(target.shape().size(), 0);
  int64_t linear = 0;
  do {
    const int64_t at = target.element_offset(idx);
    target.set_bits_at(idx, out.exact.bits_at(idx));
    marks.erase(at);
    if (auto r = reads.find(linear); r != reads.end()) {
      ElementAllowed any;
      any.unspecified = true;
      any.why = "step " + std::to_string(index + 1) + " read " + r->second + ", which was loose (P-1)";
      marks.emplace(at, std::move(any));
    } else if (auto l = out.loose.find(linear); l != out.loose.end()) {
      marks.emplace(at, l->second);
    }
    ++linear;
  } while (next_index(idx, target.shape()));
}

ExpectedTensor expected_of(const std::string& name, const Tensor& t, const LooseMap& loose) {
  ExpectedTensor e{name, t.contiguous(), {}};
  if (t.numel() <= 0) return e;
  Shape idx(t.shape().size(), 0);
  int64_t linear = 0;
  do {
    if (const ElementAllowed* a = loose_at(loose, t, idx)) e.loose.emplace(linear, *a);
    ++linear;
  } while (next_index(idx, t.shape()));
  return e;
}

std::string step_label(const ProgramStep& step, size_t k) {
  return "step " + std::to_string(k + 1) + " (" + step.op + ")";
}

}  // namespace

Expectation evaluate_program(const Program& program, ProgramTrace* trace) {
  Expectation result;
  std::map<std::string, Tensor> named;
  for (const auto& [name, t] : program.inputs) named.emplace(name, t.clone_storage());
  LooseMap loose;
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const ProgramStep& step = program.steps[k];
    if (is_view_op(step.op)) {
      named[step.let] = apply_view(step, named.at(step.operands.at("self")));
      continue;
    }
    const std::string label = step_label(step, k);
    const OpCall call = step_call(step, named, program.framework_version);
    if (const std::optional<std::string> why = loose_index_read(step, call, loose)) {
      result.unspecified = true;
      result.unspecified_reason = label + ": " + *why;
      result.notes.push_back(Note{"P-1", result.unspecified_reason});
      return result;
    }
    Trace st;
    Expectation e = evaluate(call, &st);
    for (const Note& n : e.notes) result.notes.push_back(Note{n.clause, label + ": " + n.text});
    std::map<int64_t, std::string> reads;
    if (e.outputs && e.outputs->size() == 1 && !e.unspecified)
      reads = LooseReads(step, call, loose).of(e.outputs->front(), st);
    if (trace) {
      StepTrace s{call.deep_copy(), e, st, {}};
      const std::string made = step.in_place() ? step.written() : step.let;
      for (const auto& [linear, read] : reads)
        s.loose_reads.push_back(made + format_index(unravel(e.outputs->front().exact.shape(), linear)) + " reads " +
                                read);
      trace->steps.push_back(std::move(s));
      trace->step_index.push_back(static_cast<int>(k));
    }
    if (e.unspecified) {
      result.unspecified = true;
      result.unspecified_reason = label + ": " + e.unspecified_reason;
      return result;
    }
    for (ErrorCategory c : e.errors) result.allow_error(c);
    if (result.error_message.empty() && !e.errors.empty()) {
      result.error_message = label + ": " + e.error_message;
      result.error_clause = e.error_clause;
    }
    if (!e.outputs) return result;  // the step breaks a rule: the program ends with its error
    if (e.outputs->size() != 1)
      throw std::invalid_argument(label + ": a program step must have one output, this one has " +
                                  std::to_string(e.outputs->size()));
    apply_result(step, e.outputs->front(), reads, static_cast<int>(k), named, loose);
  }
  std::vector<ExpectedTensor> outputs;
  for (const std::string& name : program.expect) {
    auto it = named.find(name);
    if (it == named.end()) throw std::invalid_argument("the program compares " + name + ", which it never defines");
    outputs.push_back(expected_of(name, it->second, loose));
  }
  result.outputs = std::move(outputs);
  return result;
}

std::vector<std::string> explain_program_lines(const Program& program, const Expectation& e,
                                               const ProgramTrace& trace) {
  std::vector<std::string> lines{"program of " + std::to_string(program.steps.size()) + " steps:"};
  for (size_t k = 0; k < program.steps.size(); ++k)
    lines.push_back("  " + std::to_string(k + 1) + ". " + describe_step(program.steps[k]));
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const size_t k = static_cast<size_t>(trace.step_index[i]);
    const StepTrace& s = trace.steps[i];
    lines.push_back("");
    lines.push_back("== " + step_label(program.steps[k], k) + ": " + describe_step(program.steps[k]));
    for (std::string& l : explain_lines(s.call, s.expectation, s.trace)) lines.push_back("  " + std::move(l));
    for (const std::string& r : s.loose_reads) lines.push_back("  P-1: unspecified: " + r);
  }
  lines.push_back("");
  lines.push_back("program result: " + e.summary());
  return lines;
}

}  // namespace sp
