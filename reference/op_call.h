// op_call.h — one invocation of a documented operation: what a Case runs.
//
// Op ids and their tensor operand names:
//   torch.gather        input, index                  dim
//   torch.scatter_      self, index, src | value      dim, reduce?      (in place)
//   torch.scatter       self, index, src | value      dim, reduce?      (out of place)
//   torch.scatter_add_  self, index, src              dim               (in place)
//   torch.scatter_add   self, index, src              dim               (out of place)
//   mindspore.scatter_  self, index, src | value      dim, reduce?      (in place; 4 overloads)
//   paddle.scatter      x, index, updates             overwrite         (out of place)
// `reduce` is kept as the raw string a user passed, so invalid strings are
// representable. `value` keeps the Python type the user passed (bool, int,
// float), because conversion to self's dtype is part of the semantics.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reference/tensor.h"

namespace sp {

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

struct OpCall {
  std::string op;
  std::map<std::string, Tensor> tensors;
  std::optional<int64_t> dim;
  std::optional<std::string> reduce;
  std::optional<Scalar> value;
  std::optional<bool> overwrite;
  // Documentation version the case follows where meaning changed across
  // versions (MindSpore); empty when it does not matter.
  std::string doc_version;

  const Tensor* tensor(const std::string& name) const {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
  }
  // A copy whose tensors own independent storages (same layouts), so an
  // in-place backend cannot disturb the caller's inputs.
  OpCall deep_copy() const;
  std::string describe() const;  // one line: op, args, operand layouts
};

// Ops known to the reference, and which operand an in-place op writes.
const std::vector<std::string>& known_ops();
bool is_known_op(const std::string& op);
bool is_inplace_op(const std::string& op);
// The name of the output: "self" for in-place ops, "out" otherwise.
std::string output_name(const std::string& op);

}  // namespace sp
