#include "reference/dialect_paddle.h"

#include <algorithm>

#include "reference/messages_paddle.h"

namespace sp::ref::paddle_rules {
namespace {

namespace msg = paddle_messages;

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

bool x_rank_at_least_one(RuleLog& log, const Tensor& x) {
  return log.check(x.rank() >= 1, "PD-X1", "x.ndim=" + str(x.rank()) + " >= 1", ErrorCategory::InvalidArgument,
                   msg::x_rank(x.rank()));
}

std::optional<Note> rank_ten_note(const std::vector<const Tensor*>& operands) {
  int64_t rank = 0;
  for (const Tensor* t : operands) rank = std::max(rank, t->rank());
  if (rank < 10) return std::nullopt;
  return Note{"PD-X2", "an operand of rank " + str(rank) + ": 004 states no rank limit"};
}

bool index_is_1d(RuleLog& log, const Tensor& index) {
  return log.check(index.rank() == 1, "PD-I1", "index.ndim=" + str(index.rank()) + " == 1",
                   ErrorCategory::InvalidArgument, msg::index_rank(index.rank()));
}

bool index_dtype_supported(RuleLog& log, const Tensor& index) {
  const DType t = index.dtype();
  return log.check(t == DType::Int32 || t == DType::Int64, "PD-I2",
                   "index.dtype=" + std::string(dtype_name(t)) + " is int32 or int64", ErrorCategory::IndexDtype,
                   msg::index_dtype(t));
}

bool x_dtype_documented(RuleLog& log, const Tensor& x) {
  const DType t = x.dtype();
  const bool documented = t == DType::Float32 || t == DType::Float64;
  log.note("x.dtype=" + std::string(dtype_name(t)) + " is float32 or float64 [PD-T1] " +
           (documented ? "ok" : "not documented: the computed result and unsupported_dtype are both allowed"));
  return documented;
}

bool updates_dtype_matches(RuleLog& log, const Tensor& x, const Tensor& updates) {
  return log.check(
      x.dtype() == updates.dtype(), "PD-K1",
      "updates.dtype=" + std::string(dtype_name(updates.dtype())) + " == x.dtype=" + std::string(dtype_name(x.dtype())),
      ErrorCategory::DtypeMismatch, msg::updates_dtype());
}

bool updates_shape_matches(RuleLog& log, const Tensor& x, const Tensor& index, const Tensor& updates) {
  const Shape& u = updates.shape();
  const bool rows_fit = !u.empty() && u.size() == x.shape().size() &&
                        std::equal(u.begin() + 1, u.end(), x.shape().begin() + 1) && index.size(0) <= u[0];
  return log.check(
      rows_fit, "PD-S1",
      "updates.shape=" + format_shape(u) + " is [n] + x.shape[1:] with n >= len(index)=" + str(index.size(0)),
      ErrorCategory::ShapeMismatch, msg::updates_shape(u, x.shape(), index.size(0)));
}

bool index_values_below_length(RuleLog& log, const Tensor& index, int64_t length) {
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = read_index(index, {i});
    if (v >= length)
      return log.check(false, "PD-B1", "index[" + str(i) + "]=" + str(v) + " < x.shape[0]=" + str(length),
                       ErrorCategory::IndexOutOfBounds, msg::index_too_large(length, v));
  }
  log.note("every index value < x.shape[0]=" + str(length) + " [PD-B1] ok");
  return true;
}

bool index_values_at_least_minus_length(RuleLog& log, const Tensor& index, int64_t length) {
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = read_index(index, {i});
    if (v < -length)
      return log.check(false, "PD-B3", "index[" + str(i) + "]=" + str(v) + " >= -x.shape[0]=" + str(-length),
                       ErrorCategory::IndexOutOfBounds, msg::index_too_small(-length, v));
  }
  log.note("every index value >= -x.shape[0]=" + str(-length) + " [PD-B3] ok");
  return true;
}

std::optional<std::string> negative_index_value(const Tensor& index) {
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = read_index(index, {i});
    if (v < 0) return "PD-B2: index[" + str(i) + "]=" + str(v) + " is negative; 004 does not describe negative indices";
  }
  return std::nullopt;
}

}  // namespace sp::ref::paddle_rules
