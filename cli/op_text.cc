// op_text.cc — the op table as text (op_text.h).
#include "cli/op_text.h"

#include <fmt/format.h>

namespace sp {

namespace {

std::string operand_line(const OpSpec& op, const OperandSpec& o) {
  std::string s = fmt::format("  operand {}: {}, {}", o.name, operand_role_name(o.role), o.dtypes.describe());
  if (!o.or_arg.empty()) s += fmt::format(" (or args.{}, exactly one of the two)", o.or_arg);
  if (o.name == op.data_operand) s += " [the dtype backends are asked about]";
  if (o.differentiable) s += " [differentiable]";
  if (!op.backward_of.empty() && o.name == kGradOutput)
    s += " [the upstream gradient: shaped and typed like " + op.backward_of + "'s output]";
  return s;
}

std::string arg_line(const ArgSpec& a, const OpCall* call) {
  std::string s = fmt::format("  arg {}: {}, {}", a.name, arg_type_name(a.type), a.required ? "required" : "optional");
  if (a.default_value) s += ", default " + a.default_value->to_string();
  if (!a.allowed.empty()) s += fmt::format(", documented values {}", fmt::join(a.allowed, " | "));
  if (call) {
    if (const Arg* given = call->arg(a.name))
      s += " -- this case: " + given->to_string();
    else
      s += a.default_value ? " -- this case: not given (the default)" : " -- this case: not given";
  }
  return s;
}

}  // namespace

std::vector<std::string> describe_op(const OpSpec& op, const OpCall* call) {
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("{} [{}, {}]: {}", op.id, op.dialect, op.in_place ? "in place" : "out of place", op.summary));
  lines.push_back("  source: " + op.source);
  for (const OperandSpec& o : op.operands) lines.push_back(operand_line(op, o));
  if (op.args.empty()) lines.push_back("  args: none");
  for (const ArgSpec& a : op.args) lines.push_back(arg_line(a, call));
  if (!op.backward_of.empty()) {
    std::vector<std::string> grads;
    for (const OperandSpec& o : op.operands)
      if (o.differentiable) grads.push_back(fmt::format("grad_{} (shape and dtype of {})", o.name, o.name));
    lines.push_back(
        fmt::format("  outputs: {}, one per differentiable operand the call passes; asked for with a "
                    "backward block on {} (specs/FORMAT.md)",
                    fmt::join(grads, ", "), op.backward_of));
    return lines;
  }
  lines.push_back(op.in_place
                      ? fmt::format("  output: {}, written in place", op.output)
                      : fmt::format("  output: {}, a new tensor with the shape of {}{} and the dtype of {}", op.output,
                                    op.output_shape_of, op.output_shape.explain, op.output_dtype_of));
  return lines;
}

}  // namespace sp
