// paddle_index.cc — Paddle's index ops translated onto LibTorch where a LibTorch call computes
// exactly what Paddle's page states:
//   paddle.index_select -> at::index_select;
//   paddle.gather (a 1-D or 0-d index) -> at::index_select, a 0-d index's axis then squeezed;
//   paddle.index_add / Tensor.index_add_ -> value * alpha (rounded in x's dtype, PD-IA10), then
//     index_add_ (in place for index_add_);
//   paddle.take_along_axis -> at::take_along_dim (broadcast=True: arr and indices broadcast
//     apart from axis) or at::gather (broadcast=False: out has indices' shape).
// Paddle's own rules are checked first, in the reference's order and categories
// (reference/dialect_paddle.h), then the index values against [0, S) (from Paddle 3.0, per
// PD-IS5 / PD-GA5 / PD-IA8 / PD-TA7, against [-S, S), negatives made v + S): LibTorch would
// take a negative value or an int32 index on other terms than Paddle's.
// What the pages leave undefined (a float alpha with an integer x, an alpha that does not fit,
// an x overlapping itself in place) is handed to LibTorch as it is: any outcome is allowed.
#include <variant>

#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"
#include "reference/output_shapes.h"
#include "reference/versions.h"

namespace sp::libtorch {
namespace {

Outcome fail(ErrorCategory c, const std::string& op, const std::string& message) {
  return Outcome::of_error(c, op + ": " + message);
}

bool int32_or_64(const Tensor& t) { return t.dtype() == DType::Int32 || t.dtype() == DType::Int64; }

int64_t axis_of(const OpCall& call) {
  const OpSpec& op = op_spec(call);
  if (!op.arg("axis")) throw MalformedCall{call.op + ": no axis argument"};
  return op.arg_or_default(call, "axis")->i;
}

// The index values as int64, negatives made v + size; an index_out_of_bounds error for the
// first value outside [lo, size) (lo = -size where the rule `wraps` holds for the version,
// else 0).
std::variant<at::Tensor, Outcome> checked_index(const OpCall& call, const at::Tensor& index, int64_t size,
                                                const char* wraps) {
  const at::Tensor as_long = index.to(at::kLong);
  const int64_t lo = ref::rule_holds(wraps, call.framework_version) ? -size : 0;
  if (as_long.numel() > 0) {
    const at::Tensor bad = as_long.lt(lo).logical_or(as_long.ge(size)).reshape({-1});
    if (bad.any().item<bool>()) {
      const int64_t v = as_long.reshape({-1})[bad.nonzero()[0][0].item<int64_t>()].item<int64_t>();
      return fail(ErrorCategory::IndexOutOfBounds, call.op,
                  "index " + std::to_string(v) + " is out of bounds for size " + std::to_string(size));
    }
  }
  return at::where(as_long.lt(0), as_long + size, as_long);
}

// PD-IS2..PD-IS5 (index_select) / PD-GA2..PD-GA5 (gather: a 0-d index too), then index_select.
Outcome select_rows(const OpCall& call, TorchViews& views, bool gather) {
  const Tensor &x = operand(call, "x"), &index = operand(call, "index");
  const int64_t r = x.rank(), axis_arg = axis_of(call);
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "axis out of range");
  if (gather ? index.rank() > 1 : index.rank() != 1)
    return fail(ErrorCategory::InvalidArgument, call.op, gather ? "index must have rank 0 or 1" : "index must be 1-D");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, call.op, "index must be int32 or int64");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg;
  auto index_t = checked_index(call, views.view(index).reshape({-1}), x.size(axis), gather ? "PD-GA5" : "PD-IS5");
  if (auto* e = std::get_if<Outcome>(&index_t)) return *e;
  Shape shape = x.shape();
  shape[static_cast<size_t>(axis)] = index.numel();
  auto [out, out_t] = views.fresh(x.dtype(), shape);
  if (out.numel() > 0) at::index_select_out(out_t, views.view(x), axis, std::get<at::Tensor>(index_t));
  if (index.rank() == 1) return Outcome::of_outputs({out});
  shape.erase(shape.begin() + axis);  // a 0-d index: axis (of size 1) dropped
  return Outcome::of_outputs({Tensor::view(x.dtype(), shape, contiguous_strides(shape), out.offset(), out.storage())});
}

Outcome index_select(const OpCall& call, TorchViews& views) { return select_rows(call, views, false); }
Outcome gather(const OpCall& call, TorchViews& views) { return select_rows(call, views, true); }

// PD-IA2..PD-IA8, PD-IA10 (alpha from Paddle 3.3), then index_add(_) with alpha.
Outcome index_add(const OpCall& call, TorchViews& views) {
  const Tensor &x = operand(call, "x"), &index = operand(call, "index"), &value = operand(call, "value");
  const int64_t r = x.rank(), axis_arg = axis_of(call);
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "axis out of range");
  if (index.rank() != 1) return fail(ErrorCategory::InvalidArgument, call.op, "index must be 1-D");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, call.op, "index must be int32 or int64");
  if (value.dtype() != x.dtype()) return fail(ErrorCategory::DtypeMismatch, call.op, "value dtype differs from x's");
  if (value.rank() != r) return fail(ErrorCategory::RankMismatch, call.op, "value and x differ in rank");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg;
  for (int64_t d = 0; d < r; ++d)
    if (value.size(d) != (d == axis ? index.size(0) : x.size(d)))
      return fail(ErrorCategory::ShapeMismatch, call.op, "value must be x's shape with axis of len(index)");
  if (call.arg("alpha") && !ref::rule_holds("PD-IA10", call.framework_version))
    return fail(ErrorCategory::InvalidArgument, call.op, "index_add takes no alpha before Paddle 3.3");
  auto index_t = checked_index(call, views.view(index), x.size(axis), "PD-IA8");
  if (auto* e = std::get_if<Outcome>(&index_t)) return *e;
  // PD-IA10: value * alpha (alpha in x's dtype), each product rounded, then added: LibTorch's own
  // alpha is not that (1.13's CPU index_add_ computes x + alpha * value with one rounding, fused),
  // so value is scaled here and index_add_ runs with alpha 1.
  at::Tensor src = views.view(value);
  if (call.arg("alpha"))
    src = src * at::scalar_tensor(torch_scalar(call.arg("alpha")->scalar), views.options(x.dtype()));
  if (op_spec(call).in_place) {
    views.view(x).index_add_(axis, std::get<at::Tensor>(index_t), src);
    return Outcome::of_outputs({x});
  }
  auto [out, out_t] = views.fresh(x.dtype(), x.shape());
  out_t.copy_(views.view(x));
  out_t.index_add_(axis, std::get<at::Tensor>(index_t), src);
  return Outcome::of_outputs({out});
}

// PD-TA2..PD-TA7, then take_along_dim (broadcast=True) or gather (broadcast=False).
Outcome take_along_axis(const OpCall& call, TorchViews& views) {
  const OpSpec& op = op_spec(call);
  const Tensor &arr = operand(call, "arr"), &indices = operand(call, "indices");
  const int64_t r = arr.rank(), axis_arg = axis_of(call);
  const bool broadcast = op.arg_or_default(call, "broadcast")->b;
  if (indices.rank() != r) return fail(ErrorCategory::RankMismatch, call.op, "indices and arr differ in rank");
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "axis out of range");
  if (!int32_or_64(indices)) return fail(ErrorCategory::IndexDtype, call.op, "indices must be int32 or int64");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg;
  const std::optional<Shape> out_shape = shape_rules::along_axis(op, call, arr);
  if (!out_shape)
    return fail(ErrorCategory::ShapeMismatch, call.op, "indices and arr do not broadcast apart from axis");
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && indices.size(d) > arr.size(d) && !broadcast)
      return fail(ErrorCategory::ShapeMismatch, call.op, "indices larger than arr apart from axis");
  auto [out, out_t] = views.fresh(arr.dtype(), *out_shape);
  if (out.numel() == 0) return Outcome::of_outputs({out});
  auto index_t = checked_index(call, views.view(indices), arr.size(axis), "PD-TA7");
  if (auto* e = std::get_if<Outcome>(&index_t)) return *e;
  const at::Tensor arr_t = views.view(arr), idx = std::get<at::Tensor>(index_t);
  out_t.copy_(broadcast ? at::take_along_dim(arr_t, idx, axis) : at::gather(arr_t, axis, idx));
  return Outcome::of_outputs({out});
}

}  // namespace

void register_paddle_index(LibTorchOps& ops) {
  ops.add("paddle.index_select", index_select);
  ops.add("paddle.gather", gather);
  ops.add_twins("paddle.index_add_", index_add);
  ops.add("paddle.take_along_axis", take_along_axis);
}

}  // namespace sp::libtorch
