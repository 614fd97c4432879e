#include "reference/op_call.h"

#include <algorithm>
#include <cmath>

namespace sp {

std::string Scalar::to_string() const {
  switch (kind) {
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: {
      if (std::isnan(f)) return "nan";
      if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
      std::string s = format_value(DType::Float64, bits_from_value(DType::Float64, Value::of_float(f)));
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
  }
  return "?";
}

OpCall OpCall::deep_copy() const {
  OpCall c = *this;
  // Operands sharing one storage keep sharing one (copied) storage.
  std::vector<std::pair<const std::vector<std::byte>*, std::shared_ptr<std::vector<std::byte>>>> copies;
  for (auto& [name, t] : c.tensors) {
    if (!t.storage()) continue;
    const std::vector<std::byte>* orig = t.storage().get();
    auto it = std::find_if(copies.begin(), copies.end(), [&](const auto& p) { return p.first == orig; });
    std::shared_ptr<std::vector<std::byte>> fresh;
    if (it == copies.end()) {
      fresh = std::make_shared<std::vector<std::byte>>(*orig);
      copies.emplace_back(orig, fresh);
    } else {
      fresh = it->second;
    }
    t = Tensor::view(t.dtype(), t.shape(), t.strides(), t.offset(), fresh);
  }
  return c;
}

std::string OpCall::describe() const {
  std::string s = op + "(";
  bool first = true;
  auto arg = [&](const std::string& a) {
    s += (first ? "" : ", ") + a;
    first = false;
  };
  if (dim) arg("dim=" + std::to_string(*dim));
  for (const auto& [name, t] : tensors) arg(name + "=" + t.describe());
  if (value) arg("value=" + value->to_string());
  if (reduce) arg("reduce='" + *reduce + "'");
  if (overwrite) arg(std::string("overwrite=") + (*overwrite ? "True" : "False"));
  s += ")";
  if (!doc_version.empty()) s += " [doc " + doc_version + "]";
  return s;
}

const std::vector<std::string>& known_ops() {
  static const std::vector<std::string> ops = {"torch.gather",      "torch.scatter_",     "torch.scatter",
                                               "torch.scatter_add_", "torch.scatter_add", "mindspore.scatter_",
                                               "paddle.scatter"};
  return ops;
}

bool is_known_op(const std::string& op) {
  const auto& ops = known_ops();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

bool is_inplace_op(const std::string& op) { return !op.empty() && op.back() == '_'; }

std::string output_name(const std::string& op) { return is_inplace_op(op) ? "self" : "out"; }

}  // namespace sp
