// paddle_put_along_axis.cc — paddle.put_along_axis / Tensor.put_along_axis_ translated onto
// LibTorch: indices (and a values tensor) expanded over the walk (broadcast=True: arr.shape with
// axis of indices' length; broadcast=False: indices.shape, values read at the walk's
// positions, as torch.scatter reads src), then on a copy of arr (or arr itself, in place)
//   reduce "assign" -> scatter_ (tensor values, or a scalar value as scatter_'s value overload);
//   "add" / "mul" / "multiply" / "mean" / "amin" / "amax" -> scatter_reduce_ with "sum" /
//     "prod" / "prod" / "mean" / "amin" / "amax" and Paddle's include_self (PD-PA2, PD-PA3:
//     the same reductions; an integer mean floors in both).
// Paddle's own rules are checked first, in the reference's order and categories (PD-PA4..PD-PA9,
// PD-PA12, PD-PA10 over the index values the walk reads, PD-PA11's bool mean), then the index
// values (negatives from Paddle 3.0, PD-PA10, made v + S).
// Declined (unsupported, with the reason): a bool arr with a reduce other than assign (LibTorch's
// scatter_reduce has no bool kernel that means Paddle's add / mul / amin / amax).
// What the page leaves undefined (a scalar value arr's dtype cannot represent, arr overlapping
// itself in place, a negative value before 3.0) goes to LibTorch as it is.
#include <variant>

#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::libtorch {
namespace {

Outcome fail(ErrorCategory c, const std::string& op, const std::string& message) {
  return Outcome::of_error(c, op + ": " + message);
}

// Paddle's reduce as scatter_reduce_'s; nullptr for assign or a string Paddle does not take.
const char* torch_reduce(const std::string& r) {
  if (r == "add") return "sum";
  if (r == "mul" || r == "multiply") return "prod";
  if (r == "mean" || r == "amin" || r == "amax") return r == "mean" ? "mean" : r == "amin" ? "amin" : "amax";
  return nullptr;
}

bool broadcasts_to(const Shape& from, const Shape& walk) {
  if (from.size() > walk.size()) return false;
  const size_t lead = walk.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != walk[lead + d]) return false;
  return true;
}

// PD-PA4..PD-PA9, PD-PA12, PD-PA11 (bool mean): the walk's shape, or the first violated rule.
std::variant<Shape, Outcome> check_operands(const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor &arr = operand(call, "arr"), &indices = operand(call, "indices");
  const Tensor* values = call.tensor("values");
  const int64_t r = arr.rank(), axis = *call.int_arg("axis");
  if (indices.rank() != r) return fail(ErrorCategory::RankMismatch, call.op, "indices and arr differ in rank");
  if (axis < -r || axis >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "axis out of range");
  const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, call.op, "indices must be int32 or int64");
  const std::string reduce = op.arg_or_default(call, "reduce")->s;
  if (reduce != "assign" && !torch_reduce(reduce)) return fail(ErrorCategory::InvalidReduce, call.op, reduce);
  if (values && values->dtype() != arr.dtype()) return fail(ErrorCategory::DtypeMismatch, call.op, "values dtype");
  Shape walk = indices.shape();
  if (op.arg_or_default(call, "broadcast")->b) {
    walk = arr.shape();
    walk[a] = indices.shape()[a];
    for (size_t d = 0; d < walk.size(); ++d)
      if (d != a && indices.shape()[d] != 1 && indices.shape()[d] != arr.shape()[d])
        return fail(ErrorCategory::ShapeMismatch, call.op, "indices do not broadcast against arr");
    if (values && !broadcasts_to(values->shape(), walk))
      return fail(ErrorCategory::ShapeMismatch, call.op, "values do not broadcast to the walk");
  } else {
    if (values && values->rank() != r)
      return fail(ErrorCategory::RankMismatch, call.op, "values and indices differ in rank");
    for (size_t d = 0; d < walk.size(); ++d)
      if ((d != a && walk[d] > arr.shape()[d]) || (values && walk[d] > values->shape()[d]))
        return fail(ErrorCategory::ShapeMismatch, call.op, "indices larger than arr or values");
  }
  if (op.in_place && call.arg("broadcast") && !ref::rule_holds("PD-PA12", call.framework_version))
    return fail(ErrorCategory::InvalidArgument, call.op, "put_along_axis_ takes no broadcast before Paddle 3.0");
  if (reduce == "mean" && arr.dtype() == DType::Bool)
    return fail(ErrorCategory::UnsupportedDtype, call.op, "bool mean");
  return walk;
}

Outcome put_along_axis(const OpCall& call, TorchViews& views) {
  const auto checked = check_operands(call);
  if (const Outcome* error = std::get_if<Outcome>(&checked)) return *error;
  const Shape& walk = std::get<Shape>(checked);
  const OpSpec& op = op_spec(call);
  const Tensor &arr = operand(call, "arr"), &indices = operand(call, "indices");
  const int64_t axis = *call.int_arg("axis") < 0 ? *call.int_arg("axis") + arr.rank() : *call.int_arg("axis");
  const int64_t size = arr.size(axis);
  const std::string reduce = op.arg_or_default(call, "reduce")->s;
  const at::Tensor index = views.view(indices).to(at::kLong).expand(walk);
  if (index.numel() > 0) {
    const int64_t lo = ref::rule_holds("PD-PA10", call.framework_version) ? -size : 0;
    const at::Tensor bad = index.lt(lo).logical_or(index.ge(size)).reshape({-1});
    if (bad.any().item<bool>())
      return fail(ErrorCategory::IndexOutOfBounds, call.op,
                  "index " + std::to_string(index.reshape({-1})[bad.nonzero()[0][0]].item<int64_t>()) +
                      " is out of bounds for size " + std::to_string(size));
  }
  if (reduce != "assign" && arr.dtype() == DType::Bool)
    return Outcome::unsupported(call.op + ": reduce '" + reduce +
                                "' on bool: LibTorch's scatter_reduce has no faithful bool kernel");
  Tensor target = arr;
  at::Tensor target_t = views.view(arr);
  if (!op.in_place) {
    auto [out, out_t] = views.fresh(arr.dtype(), arr.shape());
    out_t.copy_(target_t);
    target = out;
    target_t = out_t;
  }
  if (index.numel() == 0) return Outcome::of_outputs({target});
  const at::Tensor wrapped = at::where(index.lt(0), index + size, index);
  const Tensor* values = call.tensor("values");
  const bool broadcast = op.arg_or_default(call, "broadcast")->b;
  if (reduce == "assign" && !values) {
    target_t.scatter_(axis, wrapped, torch_scalar(call.arg("value")->scalar));
    return Outcome::of_outputs({target});
  }
  const at::Tensor src = !values ? at::full(walk, torch_scalar(call.arg("value")->scalar), views.options(arr.dtype()))
                         : broadcast ? views.view(*values).expand(walk)
                                     : views.view(*values);
  if (reduce == "assign") {
    target_t.scatter_(axis, wrapped, src);
  } else {
    target_t.scatter_reduce_(axis, wrapped, src, torch_reduce(reduce), op.arg_or_default(call, "include_self")->b);
  }
  return Outcome::of_outputs({target});
}

}  // namespace

void register_paddle_put_along_axis(LibTorchOps& ops) { ops.add_twins("paddle.put_along_axis_", put_along_axis); }

}  // namespace sp::libtorch
