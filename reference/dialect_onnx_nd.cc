#include "reference/dialect_onnx_nd.h"

#include <algorithm>

namespace sp::ref::onnx_nd_rules {
namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string name_of(DType t) { return std::string(dtype_name(t)); }

}  // namespace

bool rank_at_least_one(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t) {
  return log.check(t.rank() >= 1, clause, std::string(name) + " rank=" + str(t.rank()) + " >= 1",
                   ErrorCategory::InvalidArgument,
                   std::string(name) + " must have rank >= 1, but got rank " + str(t.rank()));
}

bool indices_int64(RuleLog& log, std::string_view clause, const Tensor& indices) {
  return log.check(indices.dtype() == DType::Int64, clause, "indices.dtype=" + name_of(indices.dtype()) + " is int64",
                   ErrorCategory::IndexDtype, "indices must be tensor(int64), but got " + name_of(indices.dtype()));
}

bool batch_dims_known(RuleLog& log, int64_t batch_dims, int64_t version) {
  return log.check(version >= 12 || batch_dims == 0, "ONNX-GN5",
                   "batch_dims=" + str(batch_dims) + " is 0 or schema version " + str(version) + " >= 12",
                   ErrorCategory::InvalidArgument, "GatherND has no attribute batch_dims before opset 12");
}

bool batch_dims_in_range(RuleLog& log, int64_t batch_dims, int64_t q, int64_t r) {
  return log.check(batch_dims >= 0 && batch_dims < std::min(q, r), "ONNX-GN6",
                   "0 <= batch_dims=" + str(batch_dims) + " < min(q=" + str(q) + ", r=" + str(r) + ")",
                   ErrorCategory::InvalidArgument,
                   "batch_dims " + str(batch_dims) + " must satisfy 0 <= b < min(q, r) = " + str(std::min(q, r)));
}

bool batch_shapes_equal(RuleLog& log, const Tensor& data, const Tensor& indices, int64_t batch_dims) {
  const Shape d(data.shape().begin(), data.shape().begin() + batch_dims);
  const Shape i(indices.shape().begin(), indices.shape().begin() + batch_dims);
  return log.check(d == i, "ONNX-GN7", "data.shape[:b]=" + format_shape(d) + " == indices.shape[:b]=" + format_shape(i),
                   ErrorCategory::ShapeMismatch,
                   "the first batch_dims dimensions of data " + format_shape(d) + " and indices " + format_shape(i) +
                       " must be equal");
}

bool gather_tuple_length(RuleLog& log, int64_t k, int64_t r, int64_t batch_dims) {
  return log.check(k >= 1 && k <= r - batch_dims, "ONNX-GN8",
                   "indices.shape[-1]=" + str(k) + " in [1, r-b=" + str(r - batch_dims) + "]",
                   ErrorCategory::ShapeMismatch,
                   "indices.shape[-1] " + str(k) + " must be between 1 and r-b = " + str(r - batch_dims));
}

bool updates_dtype_matches(RuleLog& log, const Tensor& data, const Tensor& updates) {
  return log.check(data.dtype() == updates.dtype(), "ONNX-SN5",
                   "updates.dtype=" + name_of(updates.dtype()) + " == data.dtype=" + name_of(data.dtype()),
                   ErrorCategory::DtypeMismatch, "updates must have data's type T");
}

bool scatter_tuple_length(RuleLog& log, int64_t k, int64_t r) {
  return log.check(k <= r, "ONNX-SN6", "indices.shape[-1]=" + str(k) + " <= r=" + str(r), ErrorCategory::ShapeMismatch,
                   "indices.shape[-1] " + str(k) + " must be at most the rank of data " + str(r));
}

bool updates_shape(RuleLog& log, const Tensor& data, const Tensor& indices, const Tensor& updates) {
  const Shape want = nd::slices_shape(data.shape(), indices.shape(), 0);
  const bool rank_ok = updates.rank() == static_cast<int64_t>(want.size());
  const std::string message = "updates.shape " + format_shape(updates.shape()) +
                              " must equal indices.shape[0:q-1] ++ data.shape[k:r] = " + format_shape(want);
  return log.check(updates.shape() == want, "ONNX-SN7",
                   "updates.shape=" + format_shape(updates.shape()) +
                       " == indices.shape[:-1] ++ data.shape[k:]=" + format_shape(want),
                   rank_ok ? ErrorCategory::ShapeMismatch : ErrorCategory::RankMismatch, message);
}

bool index_values_in_bounds(RuleLog& log, std::string_view clause, const Tensor& data, const Tensor& indices,
                            int64_t first_dim) {
  const std::optional<std::string> offender =
      nd::first_out_of_bounds(data.shape(), indices, first_dim, nd::Negatives::Wrap);
  return log.check(
      !offender, clause,
      offender ? *offender : "every indices[..., j] in [-s, s-1], s = data.shape[" + str(first_dim) + " + j]",
      ErrorCategory::IndexOutOfBounds, offender.value_or(""));
}

}  // namespace sp::ref::onnx_nd_rules
