#include "reference/dialect_onnx.h"

namespace sp::ref::onnx_rules {
namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string name_of(DType t) { return std::string(dtype_name(t)); }

}  // namespace

std::optional<int64_t> onnx_schema_version(RuleLog& log, std::string_view clause, std::string_view op, int64_t opset,
                                           const std::vector<int64_t>& versions) {
  std::optional<int64_t> in_force;
  for (int64_t v : versions)
    if (v <= opset) in_force = v;
  std::string listed;
  for (int64_t v : versions) listed += (listed.empty() ? "" : ", ") + str(v);
  const bool ok = log.check(
      in_force.has_value(), clause,
      "opset=" + str(opset) + " >= " + str(versions.front()) + " (" + std::string(op) + " versions " + listed + ")" +
          (in_force ? "; schema version " + str(*in_force) : ""),
      ErrorCategory::InvalidArgument,
      std::string(op) + " does not exist before opset " + str(versions.front()) + ", got opset " + str(opset));
  return ok ? in_force : std::nullopt;
}

bool onnx_dtype_allowed(RuleLog& log, std::string_view clause, std::string_view name, DType t, int64_t version) {
  const bool allowed = t != DType::BFloat16 || version >= 13;
  return log.check(
      allowed, clause,
      std::string(name) + ".dtype=" + name_of(t) + " allowed by T at version " + str(version) + " (bfloat16 from 13)",
      ErrorCategory::UnsupportedDtype,
      std::string(name) + " dtype " + name_of(t) + " is not allowed by type constraint T at version " + str(version));
}

bool onnx_index_dtype_int32_or_int64(RuleLog& log, std::string_view clause, const Tensor& indices) {
  const DType t = indices.dtype();
  return log.check(t == DType::Int32 || t == DType::Int64, clause, "indices.dtype=" + name_of(t) + " in Tind",
                   ErrorCategory::IndexDtype,
                   "indices must be tensor(int32) or tensor(int64) (Tind), but got " + name_of(t));
}

std::optional<int64_t> onnx_wrap_axis(RuleLog& log, std::string_view clause, int64_t axis, int64_t r) {
  const bool ok = axis >= -r && axis <= r - 1;
  log.check(ok, clause, "axis=" + str(axis) + " in [-" + str(r) + ", " + str(r - 1) + "]", ErrorCategory::DimOutOfRange,
            "axis " + str(axis) + " is out of range [-" + str(r) + ", " + str(r - 1) + "] for rank " + str(r));
  if (!ok) return std::nullopt;
  return axis < 0 ? axis + r : axis;
}

std::optional<int64_t> onnx_normalise_index(int64_t v, int64_t s) {
  if (v < -s || v > s - 1) return std::nullopt;
  return v < 0 ? v + s : v;
}

std::optional<ReduceMode> onnx_reduction_mode(RuleLog& log, std::string_view clause, std::string_view op,
                                              const std::string& reduction, int64_t version) {
  std::optional<ReduceMode> mode;
  if (reduction == "none") mode = ReduceMode::None;
  if (version >= 16 && reduction == "add") mode = ReduceMode::Add;
  if (version >= 16 && reduction == "mul") mode = ReduceMode::Multiply;
  if (version >= 18 && reduction == "max") mode = ReduceMode::Max;
  if (version >= 18 && reduction == "min") mode = ReduceMode::Min;
  const std::string allowed = version >= 18   ? "none, add, mul, max, min"
                              : version >= 16 ? "none, add, mul"
                                              : "none (no reduction attribute)";
  log.check(mode.has_value(), clause,
            "reduction=\"" + reduction + "\" in {" + allowed + "} at schema version " + str(version),
            ErrorCategory::InvalidReduce,
            "reduction \"" + reduction + "\" is not allowed at " + std::string(op) + " version " + str(version) + " (" +
                allowed + ")");
  return mode;
}

bool same_rank_at_least_one(RuleLog& log, std::string_view clause, const Tensor& data, std::string_view name,
                            const Tensor& other) {
  const int64_t r = data.rank();
  return log.check(
      r >= 1 && other.rank() == r, clause,
      "data rank=" + str(r) + " >= 1 and " + std::string(name) + " rank=" + str(other.rank()) + " == r",
      ErrorCategory::RankMismatch,
      "data and " + std::string(name) + " must have the same rank r >= 1, got " + str(r) + " and " + str(other.rank()));
}

bool updates_dtype_matches(RuleLog& log, const Tensor& data, const Tensor& updates) {
  return log.check(data.dtype() == updates.dtype(), "ONNX-SE2",
                   "updates.dtype=" + name_of(updates.dtype()) + " == data.dtype=" + name_of(data.dtype()),
                   ErrorCategory::DtypeMismatch, "updates must have data's type T");
}

bool updates_shape_is_indices_shape(RuleLog& log, const Tensor& indices, const Tensor& updates) {
  return log.check(
      indices.shape() == updates.shape(), "ONNX-SE4",
      "updates.shape=" + format_shape(updates.shape()) + " == indices.shape=" + format_shape(indices.shape()),
      ErrorCategory::ShapeMismatch,
      "updates.shape " + format_shape(updates.shape()) + " must equal indices.shape " + format_shape(indices.shape()));
}

bool indices_fit_data(const Tensor& data, const Tensor& indices, int64_t axis, std::string* where) {
  for (int64_t d = 0; d < data.rank(); ++d) {
    if (d == axis || indices.size(d) <= data.size(d)) continue;
    if (where)
      *where = "indices.shape[" + str(d) + "]=" + str(indices.size(d)) + " > data.shape[" + str(d) +
               "]=" + str(data.size(d)) + " (d != axis)";
    return false;
  }
  return true;
}

bool index_values_in_bounds(RuleLog& log, std::string_view clause, const Tensor& data, const Tensor& indices,
                            int64_t axis) {
  const int64_t s = data.size(axis);
  std::optional<std::string> offender;
  if (indices.numel() > 0) {
    Shape idx(static_cast<size_t>(indices.rank()), 0);
    do {
      const int64_t v = read_index(indices, idx);
      if (!onnx_normalise_index(v, s)) {
        offender = "index " + str(v) + " (" + element_text("indices", indices, idx) + ") is out of bounds [-" + str(s) +
                   ", " + str(s - 1) + "] for axis " + str(axis) + " with size " + str(s);
        break;
      }
    } while (next_index(idx, indices.shape()));
  }
  return log.check(!offender, clause,
                   offender ? *offender : "every index value in [-s, s-1], s = data.shape[axis] = " + str(s),
                   ErrorCategory::IndexOutOfBounds, offender.value_or(""));
}

}  // namespace sp::ref::onnx_rules
