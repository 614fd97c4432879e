// mindspore_elements.cc — MindSpore's element-wise index ops (API documentation r2.10)
// translated onto LibTorch where a LibTorch call computes exactly what the page states:
//   ops.gather_elements -> at::gather (negatives wrapped by s first, MS-GE1);
//   mint.scatter / mint.scatter_add -> a copy of input, then scatter_ / scatter_add_
//     (the pages' torch.scatter / torch.scatter_add, out of place; a float src is scatter_'s
//     value overload);
//   ops.tensor_scatter_elements -> a copy of input_x, then scatter_ ("none") or scatter_add_
//     ("add"), when every index value is in [-s, s) (negatives wrapped by s).
// MindSpore's own rules are checked first, in the reference's order and categories
// (reference/dialect_mindspore_elements.h), before LibTorch sees the call: LibTorch's rules
// differ (a 0-d input is promoted, an int32 index is refused by 1.13, negatives are refused).
// Declined (unsupported, with the reason): tensor_scatter_elements with an index value outside
// [-s, s): the op drops that update with no error (MS-TSE10), which no LibTorch scatter does.
// What the pages leave undefined (MS-TSE9, MS-MS8, MS-MS9, MS-MSA8) is handed to LibTorch as
// it is: any outcome is allowed there.
#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::libtorch {
namespace {

Outcome fail(ErrorCategory c, const std::string& op, const std::string& message) {
  return Outcome::of_error(c, op + ": " + message);
}

bool int32_or_64(const Tensor& t) { return t.dtype() == DType::Int32 || t.dtype() == DType::Int64; }

// index.shape[d] <= other.shape[d] for every d but `dim` (-1: every d).
bool fits(const Tensor& index, const Tensor& other, int64_t dim) {
  for (int64_t d = 0; d < index.rank(); ++d)
    if (d != dim && index.size(d) > other.size(d)) return false;
  return true;
}

int64_t normalized(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

// The index as int64 (LibTorch 1.13's only index dtype) with values in [-s, 0) made v + s.
at::Tensor wrapped_long(const Tensor& index, int64_t size, TorchViews& views) {
  const at::Tensor as_long = views.view(index).to(at::kLong);
  return at::where(as_long.lt(0), as_long + size, as_long);
}

// The first index value outside [lo, hi), if any.
std::optional<int64_t> outside(const at::Tensor& index, int64_t lo, int64_t hi) {
  if (index.numel() == 0) return std::nullopt;
  const at::Tensor as_long = index.to(at::kLong);
  const at::Tensor bad = as_long.lt(lo).logical_or(as_long.ge(hi)).reshape({-1});
  if (!bad.any().item<bool>()) return std::nullopt;
  return as_long.reshape({-1})[bad.nonzero()[0][0].item<int64_t>()].item<int64_t>();
}

std::string range(int64_t lo, int64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")"; }

// MS-GE2..MS-GE6 (CPU), then at::gather.
Outcome gather_elements(const OpCall& call, TorchViews& views) {
  const Tensor &input = operand(call, "input"), &index = operand(call, "index");
  const int64_t r = input.rank(), raw_dim = dim_arg(call);
  if (raw_dim < -r || raw_dim >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "dim out of range");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, call.op, "index must be int32 or int64");
  if (index.rank() != r) return fail(ErrorCategory::RankMismatch, call.op, "index and input ranks differ");
  const int64_t dim = normalized(raw_dim, r), size = input.size(dim);
  if (!fits(index, input, dim))
    return fail(ErrorCategory::ShapeMismatch, call.op, "index larger than input apart from dim");
  if (auto v = outside(views.view(index), -size, size))
    return fail(ErrorCategory::IndexOutOfBounds, call.op,
                "index value " + std::to_string(*v) + " is outside " + range(-size, size));
  auto [out, out_t] = views.fresh(input.dtype(), index.shape());
  if (index.numel() > 0) at::gather_out(out_t, views.view(input), dim, wrapped_long(index, size, views));
  return Outcome::of_outputs({out});
}

// MS-TSE2..MS-TSE8 (MS-TSE9 handed on), then scatter_ / scatter_add_ into a copy of input_x.
Outcome tensor_scatter_elements(const OpCall& call, TorchViews& views) {
  const OpSpec& op = op_spec(call);
  const Tensor &input = operand(call, "input_x"), &indices = operand(call, "indices");
  const Tensor& updates = operand(call, "updates");
  const int64_t r = input.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  const std::string reduction = op.arg_or_default(call, "reduction")->s;
  if (r < 1 || indices.rank() < 1 || updates.rank() < 1)
    return fail(ErrorCategory::RankMismatch, call.op, "input_x, indices and updates must have rank >= 1");
  if (!int32_or_64(indices)) return fail(ErrorCategory::IndexDtype, call.op, "indices must be int32 or int64");
  if (indices.rank() != r || updates.rank() != r)
    return fail(ErrorCategory::RankMismatch, call.op, "indices and updates must have input_x's rank");
  if (updates.shape() != indices.shape())
    return fail(ErrorCategory::ShapeMismatch, call.op, "updates must have indices' shape");
  if (updates.dtype() != input.dtype())
    return fail(ErrorCategory::DtypeMismatch, call.op, "updates must have input_x's dtype");
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "axis out of range");
  if (reduction != "none" && reduction != "add")
    return fail(ErrorCategory::InvalidReduce, call.op, "reduction must be 'none' or 'add'");
  const int64_t axis = normalized(axis_arg, r), size = input.size(axis);
  if (auto v = outside(views.view(indices), -size, size))
    return Outcome::unsupported(call.op + ": index value " + std::to_string(*v) + " is outside " + range(-size, size) +
                                "; the op drops its update with no error (MS-TSE10), no LibTorch scatter does");
  auto [out, out_t] = views.fresh(input.dtype(), input.shape());
  out_t.copy_(views.view(input));
  if (indices.numel() == 0) return Outcome::of_outputs({out});
  const at::Tensor index_t = wrapped_long(indices, size, views), src = views.view(updates);
  if (reduction == "add") {
    out_t.scatter_add_(axis, index_t, src);
  } else {
    out_t.scatter_(axis, index_t, src);
  }
  return Outcome::of_outputs({out});
}

// MS-MS2..MS-MS7, MS-MS11 (before 2.10) / MS-MSA2..MS-MSA7, then scatter_ / scatter_add_ into a
// copy of input; index values outside [0, s) and the shape rule MS-MS9 are left to LibTorch
// (unspecified: MS-MS8, MS-MS9, MS-MSA8).
Outcome mint_scatter(const OpCall& call, TorchViews& views, bool add) {
  const Tensor &input = operand(call, "input"), &index = operand(call, "index");
  const Tensor* src = call.tensor("src");
  if (!add) has_src(call);  // exactly one of src and value
  if (add && !src) throw MalformedCall{call.op + ": missing tensor operand 'src'"};
  const int64_t r = input.rank(), raw_dim = dim_arg(call);
  if (r < 1 || index.rank() < 1 || (src && src->rank() < 1))
    return fail(ErrorCategory::RankMismatch, call.op, "input, index and src must have rank >= 1");
  if (raw_dim < -r || raw_dim >= r) return fail(ErrorCategory::DimOutOfRange, call.op, "dim out of range");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, call.op, "index must be int32 or int64");
  if (index.rank() != r || (src && src->rank() != r))
    return fail(ErrorCategory::RankMismatch, call.op, "index and src must have input's rank");
  if (src && src->dtype() != input.dtype())
    return fail(ErrorCategory::DtypeMismatch, call.op, "src must have input's dtype");
  const int64_t dim = normalized(raw_dim, r);
  if (add && (!fits(index, input, dim) || !fits(index, *src, -1)))
    return fail(ErrorCategory::ShapeMismatch, call.op, "index larger than src, or than input apart from dim");
  if (!add && !ref::rule_holds("MS-MS11", call.framework_version))
    if (auto v = outside(views.view(index), 0, INT64_MAX))
      return fail(ErrorCategory::IndexOutOfBounds, call.op, "index value " + std::to_string(*v) + " is negative");
  auto [out, out_t] = views.fresh(input.dtype(), input.shape());
  out_t.copy_(views.view(input));
  if (index.numel() == 0) return Outcome::of_outputs({out});
  const at::Tensor index_t = views.view(index).to(at::kLong);
  if (add) {
    out_t.scatter_add_(dim, index_t, views.view(*src));
  } else if (src) {
    out_t.scatter_(dim, index_t, views.view(*src));
  } else {
    out_t.scatter_(dim, index_t, torch_scalar(*call.scalar_arg("value")));
  }
  return Outcome::of_outputs({out});
}

Outcome mint_scatter_src(const OpCall& call, TorchViews& views) { return mint_scatter(call, views, false); }
Outcome mint_scatter_add(const OpCall& call, TorchViews& views) { return mint_scatter(call, views, true); }

}  // namespace

void register_mindspore_elements(LibTorchOps& ops) {
  ops.add("mindspore.mint.scatter", mint_scatter_src);
  ops.add("mindspore.mint.scatter_add", mint_scatter_add);
  ops.add("mindspore.ops.gather_elements", gather_elements);
  ops.add("mindspore.ops.tensor_scatter_elements", tensor_scatter_elements);
}

}  // namespace sp::libtorch
