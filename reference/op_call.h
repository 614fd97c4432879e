// op_call.h — one invocation of a documented operation: what a Case runs.
//
// An OpCall is generic: the op id, its tensor operands by name and its
// scalar arguments by name. Which operands and arguments an op takes, their
// roles, types and defaults, is the op table's business
// (reference/op_table.h), not this struct's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/tensor.h"

namespace sp {

struct OpSpec;  // reference/op_table.h

struct Scalar {
  enum class Kind { Bool, Int, Float } kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  static Scalar of_bool(bool v) { return Scalar{Kind::Bool, v, 0, 0.0}; }
  static Scalar of_int(int64_t v) { return Scalar{Kind::Int, false, v, 0.0}; }
  static Scalar of_float(double v) { return Scalar{Kind::Float, false, 0, v}; }
  std::string to_string() const;
};

// One scalar argument of a call, typed as the op table declares it
// (reference/op_table.h): an int (dim), a bool (overwrite, include_self), a
// string (reduce, kept raw so invalid strings are representable), a Python
// scalar (value, alpha: its Python kind matters for the conversion) or a
// list of ints (StableHLO's dimension numbers: offset_dims, slice_sizes).
struct Arg {
  enum class Type { Int, Bool, String, Scalar, IntList };
  Type type = Type::Int;
  int64_t i = 0;
  bool b = false;
  std::string s;
  Scalar scalar;
  std::vector<int64_t> ints;  // IntList

  static Arg of_int(int64_t v) { return Arg{Type::Int, v, false, {}, {}, {}}; }
  static Arg of_bool(bool v) { return Arg{Type::Bool, 0, v, {}, {}, {}}; }
  static Arg of_string(std::string v) { return Arg{Type::String, 0, false, std::move(v), {}, {}}; }
  static Arg of_scalar(Scalar v) { return Arg{Type::Scalar, 0, false, {}, v, {}}; }
  static Arg of_ints(std::vector<int64_t> v) { return Arg{Type::IntList, 0, false, {}, {}, std::move(v)}; }
  // Python-style: 1, True, 'add', 1.5, [0, 2].
  std::string to_string() const;
};
std::string_view arg_type_name(Arg::Type t);  // "int", "bool", "string", "scalar", "int list"

struct OpCall {
  std::string op;
  std::map<std::string, Tensor> tensors;
  // Scalar arguments by their documented name, only those the case passes
  // (defaults are the op table's, applied by whoever reads them).
  std::map<std::string, Arg> args;
  // The version of the op's framework whose rules the call follows where
  // meaning changed across versions (reference/versions.h): a framework
  // backend's own version, else the case's source.doc_version, else the
  // run's --framework-version; empty: the framework's baseline (the version
  // the seed documents describe).
  std::string framework_version;
  // The op table's entry for `op`, carried from where the call entered the
  // system (the spec loader, the fuzz generator, the process protocol's
  // decoder: bind_call in op_table.h), so nothing downstream looks the id
  // up again. It is set only once the call's signature fits the entry
  // (check_signature): a call that carries it is not checked again. nullptr
  // (a call built by hand, or one whose signature does not fit): readers
  // resolve `op` and check the signature where it runs.
  const OpSpec* spec = nullptr;

  const Tensor* tensor(const std::string& name) const {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
  }
  const Arg* arg(const std::string& name) const {
    auto it = args.find(name);
    return it == args.end() ? nullptr : &it->second;
  }
  // Typed reads of an argument the case passed; nullopt when absent. A
  // present argument of another type is a harness bug (the loader types
  // every argument from the op table): std::logic_error.
  std::optional<int64_t> int_arg(const std::string& name) const;
  std::optional<bool> bool_arg(const std::string& name) const;
  std::optional<std::string> string_arg(const std::string& name) const;
  std::optional<Scalar> scalar_arg(const std::string& name) const;
  std::optional<std::vector<int64_t>> ints_arg(const std::string& name) const;
  void set_arg(const std::string& name, Arg value) { args.insert_or_assign(name, std::move(value)); }

  // A copy whose tensors own independent storages (same layouts), so an
  // in-place backend cannot disturb the caller's inputs.
  OpCall deep_copy() const;
  std::string describe() const;  // one line: op, args, operand layouts
};

}  // namespace sp
