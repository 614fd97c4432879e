#include "reference/op_call.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sp {

std::string Scalar::to_string() const {
  switch (kind) {
    case Kind::Bool:
      return b ? "True" : "False";
    case Kind::Int:
      return std::to_string(i);
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

namespace {

template <class T>
std::optional<T> typed_arg(const OpCall& call, const std::string& name, Arg::Type type, T Arg::*member) {
  const Arg* a = call.arg(name);
  if (!a) return std::nullopt;
  if (a->type != type)
    throw std::logic_error(call.op + ": argument " + name + " is a " + std::string(arg_type_name(a->type)) +
                           ", read as a " + std::string(arg_type_name(type)));
  return (*a).*member;
}

}  // namespace

std::string_view arg_type_name(Arg::Type t) {
  switch (t) {
    case Arg::Type::Int:
      return "int";
    case Arg::Type::Bool:
      return "bool";
    case Arg::Type::String:
      return "string";
    case Arg::Type::Scalar:
      return "scalar";
    case Arg::Type::IntList:
      return "int list";
  }
  return "?";
}

std::string Arg::to_string() const {
  switch (type) {
    case Type::Int:
      return std::to_string(i);
    case Type::Bool:
      return b ? "True" : "False";
    case Type::String:
      return "'" + s + "'";
    case Type::Scalar:
      return scalar.to_string();
    case Type::IntList: {
      std::string list = "[";
      for (size_t k = 0; k < ints.size(); ++k) list += (k ? ", " : "") + std::to_string(ints[k]);
      return list + "]";
    }
  }
  return "?";
}

std::optional<int64_t> OpCall::int_arg(const std::string& name) const {
  return typed_arg(*this, name, Arg::Type::Int, &Arg::i);
}
std::optional<bool> OpCall::bool_arg(const std::string& name) const {
  return typed_arg(*this, name, Arg::Type::Bool, &Arg::b);
}
std::optional<std::string> OpCall::string_arg(const std::string& name) const {
  return typed_arg(*this, name, Arg::Type::String, &Arg::s);
}
std::optional<Scalar> OpCall::scalar_arg(const std::string& name) const {
  return typed_arg(*this, name, Arg::Type::Scalar, &Arg::scalar);
}
std::optional<std::vector<int64_t>> OpCall::ints_arg(const std::string& name) const {
  return typed_arg(*this, name, Arg::Type::IntList, &Arg::ints);
}

std::string OpCall::describe() const {
  std::string s = op + "(";
  bool first = true;
  auto add = [&](const std::string& a) {
    s += (first ? "" : ", ") + a;
    first = false;
  };
  if (const Arg* d = arg("dim")) add("dim=" + d->to_string());
  for (const auto& [name, t] : tensors) add(name + "=" + t.describe());
  for (const auto& [name, a] : args)
    if (name != "dim") add(name + "=" + a.to_string());
  s += ")";
  if (!framework_version.empty()) s += " [version " + framework_version + "]";
  return s;
}

}  // namespace sp
