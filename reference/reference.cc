// reference.cc — dispatch from an op id to its semantic file, the operand
// signature each op accepts, and the rendering of a trace for `explain`.
//
// A call whose operands do not fit the op's signature (a missing tensor,
// both src and value, a reduce on scatter_add) is not a documented failure
// of the operation but a malformed case: evaluate() throws
// std::invalid_argument naming the op and the field, and the harness
// reports it as a spec error.
#include "reference/reference.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "reference/semantics_common.h"

namespace sp {
namespace {

struct Signature {
  std::set<std::string> tensors;  // always required
  bool src_or_value = false;      // exactly one of tensor "src" / scalar value
  bool dim = false;
  bool reduce = false;
  bool overwrite = false;
  Expectation (*semantic)(const OpCall&, Trace*) = nullptr;
};

const Signature& signature_of(const std::string& op) {
  static const std::map<std::string, Signature> table = {
      {"torch.gather", {{"input", "index"}, false, true, false, false, torch_gather}},
      {"torch.scatter_", {{"self", "index"}, true, true, true, false, torch_scatter}},
      {"torch.scatter", {{"self", "index"}, true, true, true, false, torch_scatter}},
      {"torch.scatter_add_", {{"self", "index", "src"}, false, true, false, false, torch_scatter_add}},
      {"torch.scatter_add", {{"self", "index", "src"}, false, true, false, false, torch_scatter_add}},
      {"mindspore.scatter_", {{"self", "index"}, true, true, true, false, mindspore_scatter}},
      {"paddle.scatter", {{"x", "index", "updates"}, false, false, false, true, paddle_scatter}},
  };
  const auto it = table.find(op);
  if (it == table.end()) throw std::invalid_argument("unknown op '" + op + "'");
  return it->second;
}

void require_signature(const OpCall& call, const Signature& sig) {
  const auto fail = [&](const std::string& what) { throw std::invalid_argument(call.op + ": " + what); };
  for (const std::string& name : sig.tensors)
    if (call.tensor(name) == nullptr) fail("missing tensor '" + name + "'");
  for (const auto& [name, tensor] : call.tensors)
    if (!sig.tensors.count(name) && !(sig.src_or_value && name == "src")) fail("unexpected tensor '" + name + "'");
  const bool has_src = call.tensor("src") != nullptr && !sig.tensors.count("src");
  if (sig.src_or_value && has_src == call.value.has_value()) fail("needs exactly one of tensor 'src' and 'value'");
  if (!sig.src_or_value && call.value) fail("takes no 'value'");
  if (sig.dim != call.dim.has_value()) fail(sig.dim ? "missing 'dim'" : "takes no 'dim'");
  if (!sig.reduce && call.reduce) fail("takes no 'reduce'");
  if (!sig.overwrite && call.overwrite) fail("takes no 'overwrite'");
}

}  // namespace

Expectation evaluate(const OpCall& call, Trace* trace) {
  const Signature& sig = signature_of(call.op);
  require_signature(call, sig);
  return sig.semantic(call, trace);
}

std::vector<std::string> explain_lines(const OpCall& call, const Expectation& e, const Trace& trace) {
  std::vector<std::string> lines{"call: " + call.describe(), "checks:"};
  for (const std::string& c : trace.checks) lines.push_back("  " + c);
  if (!trace.writes.empty()) lines.push_back("writes (visit order):");
  const std::string out = output_name(call.op);
  for (const Write& w : trace.writes) {
    const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(w.target.size()));
    const int64_t dim = call.dim ? ref::wrap_dim(*call.dim, rank) : 0;
    lines.push_back("  " + w.source + " -> " + out + format_index(w.target) + " because index" +
                    format_index(w.index_pos) + "=" + std::to_string(w.index_value) + " on dim " + std::to_string(dim) +
                    ": " + w.effect);
  }
  if (!trace.finals.empty()) lines.push_back("resolved:");
  for (const std::string& f : trace.finals) lines.push_back("  " + f);
  for (const std::string& n : e.notes) lines.push_back("note: " + n);
  lines.push_back("result: " + e.summary());
  return lines;
}

}  // namespace sp
