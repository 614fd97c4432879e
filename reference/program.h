// program.h — a program: a short list of steps over named tensors, each an
// op of the op table (or a view of a named tensor), run in order on the
// same buffers (issue 32 item 2, docs/compiled.md "Programs").
//
//   y = torch.scatter_add(x, 0, i, s)      {"let": "y", "op": "torch.scatter_add", ...}
//   t = view.transpose(y, 0, 1)            {"let": "t", "op": "view.transpose", ...}
//   x.index_add_(0, k, t)                  {"op": "torch.index_add_", ...}   (writes x)
//
// A step's `call` is an OpCall bound once to its op table entry (bind_call)
// with its arguments set and its tensors left out; `operands` says which
// named tensor each operand is. An in-place step has no `let`: it writes
// the tensor its `self` names (and, through it, every view sharing that
// storage). A view step makes a new name for a view of an existing tensor's
// storage (a later in-place write through it lands in its base).
//
// evaluate_program runs the steps with the reference (evaluate, one per
// step) and composes what each allows (reference/SEMANTICS.md P-1): an
// element that reads an element an earlier step left loose (one of a set,
// an interval, any NaN, unspecified) is unspecified; every other element
// stays as exact as the step's own reference makes it. A step that breaks a
// rule ends the program with that step's error.
//
// Thread-safety: all functions are reentrant; a Program is immutable once built.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

// The view ops a step may name (not op table entries: they make views, not
// results): "view.transpose" (dim0, dim1) and "view.narrow" (dim, start,
// length), PyTorch's Tensor.transpose and Tensor.narrow. Their one operand
// is "self".
bool is_view_op(std::string_view op);
std::vector<std::string> view_ops();
// The view's argument names, in order ("dim0", "dim1").
std::vector<std::string> view_op_args(std::string_view op);

struct ProgramStep {
  std::string let;  // the name of the result; empty for an in-place step
  std::string op;   // an op table id, or a view op
  // Op steps: the op's call, bound to its entry, arguments set, no tensors.
  // View steps: op and args only (int arguments, view_op_args).
  OpCall call;
  std::map<std::string, std::string> operands;  // operand -> the named tensor it reads
  // The name this step defines or writes: `let`, or for an in-place step the
  // tensor its self names.
  const std::string& written() const;
  bool in_place() const { return let.empty(); }
};

struct Program {
  // The program's input tensors by name (each owning its storage).
  std::map<std::string, Tensor> inputs;
  std::vector<ProgramStep> steps;
  // The names whose final contents are compared, in output order.
  std::vector<std::string> expect;
  // The version of the ops' framework whose rules apply (OpCall::framework_version).
  std::string framework_version;

  // The dialect of its ops ("torch"); every step's op is of one dialect.
  std::string dialect() const;
};
inline constexpr int kMinProgramSteps = 2;
inline constexpr int kMaxProgramSteps = 4;

// The view a view step makes of `base` (same storage). Throws
// std::invalid_argument when its arguments do not fit base's shape.
Tensor apply_view(const ProgramStep& step, const Tensor& base);

// The step's OpCall with the named tensors of `tensors` as its operands
// (sharing their storages) and the program's framework version.
OpCall step_call(const ProgramStep& step, const std::map<std::string, Tensor>& tensors,
                 const std::string& framework_version);

// One step as evaluate_program saw it, for `explain`.
struct StepTrace {
  OpCall call;  // the call with the operands as the step read them
  Expectation expectation;
  Trace trace;
  std::vector<std::string> loose_reads;  // "y[0][1] (left loose by step 1)" per output element made unspecified
};
struct ProgramTrace {
  std::vector<StepTrace> steps;  // the op steps that ran, in order (views are not listed)
  std::vector<int> step_index;   // each one's index in Program::steps
};

// The reference's answer for the whole program: outputs named as
// Program::expect, in its order; or the error of the first step that breaks
// a rule (its message names the step); or unspecified from the first step
// whose call is unspecified or that reads a loose index element. Notes are
// every step's, each prefixed with "step N (op): ". Throws
// std::invalid_argument for a malformed program (the loader prevents it).
Expectation evaluate_program(const Program& program, ProgramTrace* trace = nullptr);

// `scatterproof explain` for a program: one block per step.
std::vector<std::string> explain_program_lines(const Program& program, const Expectation& e, const ProgramTrace& trace);

// One line: "y = torch.scatter_add(self=x, index=i, src=s, dim=0)".
std::string describe_step(const ProgramStep& step);

}  // namespace sp
