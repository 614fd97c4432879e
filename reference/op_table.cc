// op_table.cc — the op table's queries (op_table.h); its entries are
// op_table_entries.cc's.
#include "reference/op_table.h"

#include <algorithm>
#include <stdexcept>

namespace sp {

std::vector<OpSpec> build_op_table();  // op_table_entries.cc

std::vector<DType> DTypeSet::members() const {
  std::vector<DType> out;
  for (DType t : kAllDTypes)
    if (contains(t)) out.push_back(t);
  return out;
}

std::string DTypeSet::describe() const {
  const std::vector<DType> m = members();
  if (m.size() == static_cast<size_t>(kNumDTypes)) return "every dtype";
  // The torch, MindSpore and PaddlePaddle operands (SEMANTICS.md C-7).
  const bool wide_unsigned = contains(DType::UInt16) || contains(DType::UInt32) || contains(DType::UInt64);
  if (m.size() == static_cast<size_t>(kNumDTypes) - 3 && !wide_unsigned)
    return "every dtype but uint16, uint32, uint64";
  std::string s;
  for (DType t : m) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s.empty() ? "none" : s;
}

std::string_view operand_role_name(OperandRole r) {
  switch (r) {
    case OperandRole::Read:
      return "read";
    case OperandRole::Index:
      return "index";
    case OperandRole::InPlace:
      return "in place";
    case OperandRole::Out:
      return "out (optional)";
  }
  return "?";
}

const OperandSpec* OpSpec::operand(std::string_view name) const {
  for (const OperandSpec& o : operands)
    if (o.name == name) return &o;
  return nullptr;
}

const ArgSpec* OpSpec::arg(std::string_view name) const {
  for (const ArgSpec& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<Arg> OpSpec::arg_or_default(const OpCall& call, std::string_view name) const {
  if (const Arg* given = call.arg(std::string(name))) return *given;
  if (const ArgSpec* spec = arg(name)) return spec->default_value;
  return std::nullopt;
}

const std::vector<OpSpec>& op_table() {
  static const std::vector<OpSpec> table = build_op_table();
  return table;
}

const OpSpec* find_op(std::string_view id) {
  for (const OpSpec& op : op_table())
    if (op.id == id) return &op;
  return nullptr;
}

const OpSpec& op_spec(std::string_view id) {
  const OpSpec* op = find_op(id);
  if (!op) throw std::invalid_argument("unknown op '" + std::string(id) + "'");
  return *op;
}

std::optional<Shape> output_shape_of(const OpSpec& op, const OpCall& call) {
  const Tensor* of = call.tensor(op.output_shape_of);
  if (!of) return std::nullopt;
  return op.output_shape.shape ? op.output_shape.shape(op, call, *of) : of->shape();
}

const OpSpec* backward_op(const OpSpec& forward) {
  return forward.backward ? find_op(forward.id + ".backward") : nullptr;
}

std::vector<std::string> grad_operands(const OpSpec& backward, const OpCall& call) {
  if (backward.backward_of.empty()) throw std::logic_error(backward.id + " is not a backward op");
  std::vector<std::string> names;
  for (const OperandSpec& o : backward.operands)
    if (o.differentiable && call.tensor(o.name)) names.push_back(o.name);
  return names;
}

std::vector<std::string> known_ops() {
  std::vector<std::string> ids;
  for (const OpSpec& op : op_table()) ids.push_back(op.id);
  return ids;
}

const OpSpec* find_op(const OpCall& call) {
  return call.spec && call.spec->id == call.op ? call.spec : find_op(call.op);
}

const OpSpec& op_spec(const OpCall& call) {
  if (call.spec && call.spec->id == call.op) return *call.spec;
  return op_spec(call.op);
}

bool is_known_op(std::string_view op) { return find_op(op) != nullptr; }

bool is_inplace_op(std::string_view op) {
  const OpSpec* spec = find_op(op);
  return spec ? spec->in_place : (!op.empty() && op.back() == '_');
}

bool is_inplace_op(const OpCall& call) {
  const OpSpec* spec = find_op(call);
  return spec ? spec->in_place : is_inplace_op(call.op);
}

// The entry's output (an in-place op names the operand it writes: "self",
// paddle's "arr"); an op the table lacks is guessed from its id.
std::string output_name(std::string_view op) {
  const OpSpec* spec = find_op(op);
  return spec ? spec->output : is_inplace_op(op) ? "self" : "out";
}
std::string output_name(const OpCall& call) {
  const OpSpec* spec = find_op(call);
  return spec ? spec->output : is_inplace_op(call) ? "self" : "out";
}

const OperandSpec* out_operand(const OpSpec& op) {
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Out) return &o;
  return nullptr;
}

std::string written_operand(const OpCall& call) {
  const OpSpec* spec = find_op(call);
  if (!spec) return is_inplace_op(call) ? "self" : "";
  if (spec->in_place) return spec->output;
  const OperandSpec* out = out_operand(*spec);
  return out && call.tensor(out->name) ? out->name : "";
}

std::optional<SignatureProblem> check_signature(const OpCall& call) {
  const OpSpec* spec = find_op(call);
  if (!spec) return SignatureProblem{"op", "unknown op \"" + call.op + "\""};
  auto names_of = [](const auto& list) {
    std::string names;
    for (const auto& x : list) names += (names.empty() ? "" : ", ") + x.name;
    return names.empty() ? std::string("none") : names;
  };
  for (const auto& [name, tensor] : call.tensors)
    if (!spec->operand(name))
      return SignatureProblem{
          "inputs." + name, call.op + " has no operand " + name + " (its operands: " + names_of(spec->operands) + ")"};
  for (const auto& [name, value] : call.args) {
    const ArgSpec* a = spec->arg(name);
    if (!a)
      return SignatureProblem{
          "args." + name, call.op + " takes no argument " + name + " (its arguments: " + names_of(spec->args) + ")"};
    if (value.type != a->type)
      return SignatureProblem{"args." + name, call.op + " argument " + name + " is a " +
                                                  std::string(arg_type_name(a->type)) + ", not a " +
                                                  std::string(arg_type_name(value.type))};
  }
  for (const OperandSpec& o : spec->operands) {
    const bool given = call.tensor(o.name) != nullptr;
    if (!o.or_arg.empty()) {
      const bool arg_given = call.arg(o.or_arg) != nullptr;
      if (given && arg_given)
        return SignatureProblem{"args." + o.or_arg,
                                "give either inputs." + o.name + " or args." + o.or_arg + ", not both"};
      if (!given && !arg_given)
        return SignatureProblem{"inputs." + o.name,
                                "missing: " + call.op + " needs inputs." + o.name + " or args." + o.or_arg};
    } else if (!given && o.role != OperandRole::Out) {
      return SignatureProblem{"inputs." + o.name, "missing: " + call.op + " needs operand " + o.name};
    }
  }
  for (const ArgSpec& a : spec->args)
    if (a.required && !call.arg(a.name))
      return SignatureProblem{"args." + a.name, "missing: " + call.op + " needs args." + a.name};
  return std::nullopt;
}

std::optional<SignatureProblem> bind_call(OpCall& call) {
  call.spec = nullptr;
  if (std::optional<SignatureProblem> problem = check_signature(call)) return problem;
  call.spec = find_op(call.op);
  return std::nullopt;
}

bool needs_signature_check(const OpCall& call) { return !call.spec || call.spec->id != call.op; }

}  // namespace sp
