// reference.cc — dispatch from an op id to its reference function through
// the op table, and the rendering of a trace for `explain`.
//
// A call whose operands do not fit the op's signature (a missing tensor,
// both src and value, a reduce on scatter_add) is not a documented failure
// of the operation but a malformed case: evaluate() throws
// std::invalid_argument naming the op and the field, and the harness
// reports it as a spec error.
#include "reference/reference.h"

#include <algorithm>
#include <stdexcept>

#include "reference/op_table.h"
#include "reference/semantics_common.h"
#include "reference/torch_out.h"
#include "reference/versions.h"

namespace sp {

namespace {

bool is_wide_unsigned(DType t) { return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64; }

// SEMANTICS.md C-7: an operand (not an index: the dialects' index rules
// refuse those) of uint16 / uint32 / uint64 that the op's document does not
// list allows both the computed answer and unsupported_dtype.
Expectation allow_undocumented_wide_unsigned(const OpSpec& op, const OpCall& call, Expectation e) {
  if (e.unspecified) return e;
  for (const OperandSpec& o : op.operands) {
    const Tensor* t = call.tensor(o.name);
    if (o.role == OperandRole::Index || t == nullptr || !is_wide_unsigned(t->dtype()) || o.dtypes.contains(t->dtype()))
      continue;
    e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes.push_back({"C-7", o.name + ".dtype=" + std::string(dtype_name(t->dtype())) + " is not documented (" +
                                  o.dtypes.describe() +
                                  "): the computed answer and unsupported_dtype are both allowed"});
    return e;
  }
  return e;
}

// T-I2 (torch >= 2.8): an int32 index with a stride-0 dim of size > 1 is a
// note on every answer; campaign expectation entries key by it (PyTorch's CPU
// kernels take a wrong expanded-index fast path there).
Expectation note_expanded_int32_index(const OpSpec& op, const OpCall& call, Expectation e) {
  if (op.dialect != "torch" || !ref::rule_holds("T-I2", call.framework_version)) return e;
  for (const OperandSpec& o : op.operands) {
    const Tensor* t = call.tensor(o.name);
    if (o.role != OperandRole::Index || t == nullptr || t->dtype() != DType::Int32) continue;
    for (int64_t d = 0; d < t->rank(); ++d)
      if (t->stride(d) == 0 && t->size(d) > 1) {
        e.notes.push_back({"T-I2", "an int32 index expanded along dim " + std::to_string(d) + " (stride 0)"});
        return e;
      }
  }
  return e;
}

// The notes and allowances every answer of an op gets.
Expectation finished(const OpSpec& op, const OpCall& call, Expectation e) {
  return note_expanded_int32_index(op, call, allow_undocumented_wide_unsigned(op, call, std::move(e)));
}

}  // namespace

Expectation evaluate(const OpCall& call, Trace* trace) {
  if (const auto problem = needs_signature_check(call) ? check_signature(call) : std::nullopt)
    throw std::invalid_argument(call.op + ": " + problem->field + ": " + problem->message);
  const OpSpec& op = op_spec(call);
  if (const OperandSpec* out = out_operand(op); out && call.tensor(out->name))
    return finished(op, call, evaluate_with_out(op, call, trace));
  return finished(op, call, op.reference(call, trace));
}

std::vector<std::string> explain_lines(const OpCall& call, const Expectation& e, const Trace& trace) {
  std::vector<std::string> lines{"call: " + call.describe(), "checks:"};
  for (const std::string& c : trace.checks) lines.push_back("  " + c);
  if (!trace.writes.empty()) lines.push_back("writes (visit order):");
  const std::string out = op_spec(call).output;
  // paddle.scatter takes none: rows, dim 0; the ONNX elements ops name it axis
  const std::optional<int64_t> given_dim = call.int_arg("dim") ? call.int_arg("dim") : call.int_arg("axis");
  const ShapeFamily family = op_spec(call).family;
  for (const Write& w : trace.writes) {
    if (!op_spec(call).backward_of.empty()) {  // a gradient's effect names its target and why
      lines.push_back("  " + w.source + " -> " + w.effect);
      continue;
    }
    if (family == ShapeFamily::StableHloGather || family == ShapeFamily::StableHloScatter) {  // a start index vector
      const std::string name = family == ShapeFamily::StableHloGather ? "start_indices" : "scatter_indices";
      lines.push_back("  " + w.source + " -> " + out + format_index(w.target) +
                      " because of the start index vector at " + name + format_index(w.index_pos) +
                      " (its first element): " + w.effect);
      continue;
    }
    if (family == ShapeFamily::GatherND || family == ShapeFamily::ScatterND ||
        family == ShapeFamily::JaxAt) {  // a tuple in indices' last dim
      lines.push_back("  " + w.source + " -> " + out + format_index(w.target) + " because index tuple indices" +
                      format_index(w.index_pos) + "[:]: " + w.effect);
      continue;
    }
    const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(w.target.size()));
    const int64_t dim = given_dim ? ref::wrap_dim(*given_dim, rank) : 0;
    lines.push_back("  " + w.source + " -> " + out + format_index(w.target) + " because index" +
                    format_index(w.index_pos) + "=" + std::to_string(w.index_value) + " on dim " + std::to_string(dim) +
                    ": " + w.effect);
  }
  if (!trace.finals.empty()) lines.push_back("resolved:");
  for (const std::string& f : trace.finals) lines.push_back("  " + f);
  for (const Note& n : e.notes) lines.push_back("note: " + n.line());
  lines.push_back("result: " + e.summary());
  return lines;
}

}  // namespace sp
