// paddle_scatter.cc — paddle.scatter translated onto index_copy_ / index_fill_ + index_add_.
#include <algorithm>

#include "backends/libtorch/libtorch_common.h"
#include "reference/versions.h"

namespace sp::libtorch {
namespace {

// paddle.scatter (seed 004) translated onto index_copy_ / index_fill_ +
// index_add_ along dim 0 of a copy of x:
//   overwrite=True:  out = x.clone(); out.index_copy_(0, index, updates)
//   overwrite=False: out = x.clone(); out.index_fill_(0, index, 0);
//                    out.index_add_(0, index, updates)
// (004: with overwrite=False every indexed row is first set to zero, then
// the updates are summed into it.) Paddle's argument rules are checked
// first, in Paddle's terms: x has rank >= 1 and index is 1-D
// (invalid_argument), index int32/int64 (index_dtype), updates dtype == x
// dtype (dtype_mismatch), updates.shape == [n] + x.shape[1:], n >= len(index)
// (shape_mismatch; index_add_ would broadcast other shapes), index values
// in [0, x.shape[0]) (index_out_of_bounds; negative values, which 004
// leaves undescribed, are rejected rather than wrapped — from Paddle 3.0,
// PD-B3, values in [-x.shape[0], 0) wrap). x dtypes beyond the documented float32/float64 are computed
// like any other.
Outcome translate_paddle_scatter(const OpCall& call, TorchViews& views) {
  const Tensor& x = operand(call, "x");
  const Tensor& index = operand(call, "index");
  const Tensor& updates = operand(call, "updates");
  const bool overwrite = call.bool_arg("overwrite").value_or(true);
  const std::string op = "paddle.scatter: ";
  if (x.rank() == 0) return Outcome::of_error(ErrorCategory::InvalidArgument, op + "x must have ndim >= 1");
  if (index.rank() != 1) {
    return Outcome::of_error(ErrorCategory::InvalidArgument,
                             op + "index must be 1-D, got ndim " + std::to_string(index.rank()));
  }
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64) {
    return Outcome::of_error(ErrorCategory::IndexDtype,
                             op + "index dtype " + std::string(dtype_name(index.dtype())) + " is not int32 or int64");
  }
  if (updates.dtype() != x.dtype()) {
    return Outcome::of_error(ErrorCategory::DtypeMismatch,
                             op + "updates dtype " + std::string(dtype_name(updates.dtype())) +
                                 " differs from x dtype " + std::string(dtype_name(x.dtype())));
  }
  const Shape& u = updates.shape();
  if (u.size() != x.shape().size() || !std::equal(u.begin() + 1, u.end(), x.shape().begin() + 1) ||
      u[0] < index.size(0)) {
    return Outcome::of_error(ErrorCategory::ShapeMismatch,
                             op + "updates shape " + format_shape(u) +
                                 " is not [n] + x.shape[1:] with n >= len(index) = " + std::to_string(index.size(0)));
  }
  at::Tensor index_t = views.view(index).to(at::kLong);
  // index_copy_ into a zero-row x fails inside LibTorch with an unrelated
  // storage error, so the bounds are checked here, as Paddle does: values
  // below x.shape[0] and not negative — except from Paddle 3.0 (PD-B3,
  // reference/versions.h), where values in [-x.shape[0], 0) address row
  // v + x.shape[0] and the translation wraps them.
  const bool negatives_wrap = ref::rule_holds("PD-B3", call.framework_version);
  if (index.numel() > 0) {
    const int64_t largest = index_t.max().item<int64_t>();
    const int64_t smallest = index_t.min().item<int64_t>();
    const int64_t lowest = negatives_wrap ? -x.size(0) : 0;
    if (largest >= x.size(0) || smallest < lowest) {
      const int64_t bad = largest >= x.size(0) ? largest : smallest;
      return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                               op + "index value " + std::to_string(bad) + " is outside [" + std::to_string(lowest) +
                                   ", x.shape[0] = " + std::to_string(x.size(0)) + ")");
    }
    if (negatives_wrap && smallest < 0) index_t = index_t.remainder(x.size(0));
  }
  // Only updates' first len(index) rows are read (PD-S1).
  const at::Tensor updates_t = views.view(updates).narrow(0, 0, index.size(0));
  auto [out, out_t] = views.fresh(x.dtype(), x.shape());
  out_t.copy_(views.view(x));
  if (overwrite) {
    out_t.index_copy_(0, index_t, updates_t);
  } else {
    out_t.index_fill_(0, index_t, 0);
    out_t.index_add_(0, index_t, updates_t);
  }
  return Outcome::of_outputs({out});
}

}  // namespace

void register_paddle_scatter(LibTorchOps& ops) { ops.add("paddle.scatter", translate_paddle_scatter); }

}  // namespace sp::libtorch
