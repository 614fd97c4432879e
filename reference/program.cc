// program.cc — programs of several steps and their reference (program.h).
#include "reference/program.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

namespace {

struct ViewOp {
  std::string_view id;
  std::vector<std::string> args;
};
const std::vector<ViewOp>& view_table() {
  static const std::vector<ViewOp> table{{"view.transpose", {"dim0", "dim1"}},
                                         {"view.narrow", {"dim", "start", "length"}}};
  return table;
}

int64_t wrapped_dim(int64_t dim, int64_t rank, const std::string& what) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r)
    throw std::invalid_argument(what + " " + std::to_string(dim) + " is out of range for a rank-" +
                                std::to_string(rank) + " tensor");
  return dim < 0 ? dim + r : dim;
}

}  // namespace

bool is_view_op(std::string_view op) {
  return std::any_of(view_table().begin(), view_table().end(), [&](const ViewOp& v) { return v.id == op; });
}

std::vector<std::string> view_ops() {
  std::vector<std::string> ids;
  for (const ViewOp& v : view_table()) ids.emplace_back(v.id);
  return ids;
}

std::vector<std::string> view_op_args(std::string_view op) {
  for (const ViewOp& v : view_table())
    if (v.id == op) return v.args;
  return {};
}

const std::string& ProgramStep::written() const {
  static const std::string none;
  if (!let.empty()) return let;
  auto it = operands.find("self");
  return it == operands.end() ? none : it->second;
}

std::string Program::dialect() const {
  for (const ProgramStep& s : steps)
    if (const OpSpec* spec = find_op(s.call)) return spec->dialect;
  return "";
}

Tensor apply_view(const ProgramStep& step, const Tensor& base) {
  Shape shape = base.shape(), strides = base.strides();
  int64_t offset = base.offset();
  const auto arg = [&](const char* name) {
    const std::optional<int64_t> v = step.call.int_arg(name);
    if (!v) throw std::invalid_argument(step.op + " needs the int argument " + name);
    return *v;
  };
  if (base.rank() == 0) throw std::invalid_argument(step.op + " of a 0-d tensor");
  if (step.op == "view.transpose") {
    const auto d0 = static_cast<size_t>(wrapped_dim(arg("dim0"), base.rank(), "dim0"));
    const auto d1 = static_cast<size_t>(wrapped_dim(arg("dim1"), base.rank(), "dim1"));
    std::swap(shape[d0], shape[d1]);
    std::swap(strides[d0], strides[d1]);
  } else if (step.op == "view.narrow") {
    const auto d = static_cast<size_t>(wrapped_dim(arg("dim"), base.rank(), "dim"));
    const int64_t start = arg("start"), length = arg("length");
    if (start < 0 || length < 0 || start > shape[d] - length)
      throw std::invalid_argument("narrow(" + std::to_string(start) + ", " + std::to_string(length) +
                                  ") does not fit dim " + std::to_string(d) + " of size " + std::to_string(shape[d]));
    offset += start * strides[d];
    shape[d] = length;
  } else {
    throw std::invalid_argument("unknown view op " + step.op);
  }
  if (checked_numel(shape) == 0) offset = base.offset();  // an empty view reaches no element of the storage
  return Tensor::view(base.dtype(), std::move(shape), std::move(strides), offset, base.storage());
}

OpCall step_call(const ProgramStep& step, const std::map<std::string, Tensor>& tensors,
                 const std::string& framework_version) {
  OpCall call = step.call;
  call.framework_version = framework_version;
  for (const auto& [operand, name] : step.operands) {
    auto it = tensors.find(name);
    if (it == tensors.end()) throw std::invalid_argument(step.op + ": operand " + operand + " names unknown " + name);
    call.tensors[operand] = it->second;
  }
  return call;
}

std::string describe_step(const ProgramStep& step) {
  std::string s = step.let.empty() ? std::string() : step.let + " = ";
  s += step.op + "(";
  bool first = true;
  for (const auto& [operand, name] : step.operands) {
    s += (first ? "" : ", ") + operand + "=" + name;
    first = false;
  }
  for (const auto& [name, arg] : step.call.args) {
    s += (first ? "" : ", ") + name + "=" + arg.to_string();
    first = false;
  }
  return s + ")" + (step.let.empty() && !step.written().empty() ? "  (writes " + step.written() + ")" : "");
}

}  // namespace sp
