// onnx_rules.cc — see onnx_rules.h. Checks in the order the ONNX runtime
// reports them: opset, attributes, dtypes, ranks, shapes.
#include "backends/common/onnx_rules.h"

#include "reference/op_table.h"

namespace sp::backend_rules {
namespace {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::optional<Violation> check_opset(const OpCall& call) {
  const int64_t first = onnx_first_opset(call.op), opset = onnx_opset(call);
  if (opset < first)
    return Violation{ErrorCategory::InvalidArgument, call.op.substr(5) + " is not defined before opset " +
                                                         std::to_string(first) + " (opset " + std::to_string(opset) +
                                                         ")"};
  return std::nullopt;
}

// Type constraint T: every dtype from opset 13, all but bfloat16 before;
// never bfloat16 for Scatter (deprecated at 11, before bfloat16 came).
std::optional<Violation> check_data_dtype(const OpCall& call, const Tensor& data) {
  if (data.dtype() == DType::BFloat16 && (onnx_opset(call) < 13 || call.op == "onnx.Scatter"))
    return Violation{ErrorCategory::UnsupportedDtype, call.op.substr(5) + " takes no bfloat16 before opset 13 (opset " +
                                                          std::to_string(onnx_opset(call)) + ")"};
  return std::nullopt;
}

std::optional<Violation> rank_below_one(const std::string& name, const Tensor& t) {
  if (t.rank() >= 1) return std::nullopt;
  return Violation{ErrorCategory::InvalidArgument, name + " must have rank >= 1, got a 0-d tensor"};
}

// reduction: none at every opset, add / mul from 16, max / min from 18.
std::optional<Violation> check_reduction(const OpCall& call) {
  const OpSpec& op = op_spec(call);
  if (!op.arg("reduction")) return std::nullopt;
  const std::string r = op.arg_or_default(call, "reduction")->s;
  const int64_t opset = onnx_opset(call);
  const int64_t since = r == "none" ? 0 : (r == "add" || r == "mul") ? 16 : (r == "max" || r == "min") ? 18 : -1;
  if (since < 0 || opset < since)
    return Violation{ErrorCategory::InvalidReduce, "reduction '" + r + "' is not supported by " + call.op.substr(5) +
                                                       " at opset " + std::to_string(opset)};
  return std::nullopt;
}

std::optional<Violation> check_index_dtype(const Tensor& indices, bool int32_ok) {
  if (indices.dtype() == DType::Int64 || (int32_ok && indices.dtype() == DType::Int32)) return std::nullopt;
  return Violation{ErrorCategory::IndexDtype, std::string("indices must be ") +
                                                  (int32_ok ? "int32 or int64" : "int64") + ", got " +
                                                  std::string(dtype_name(indices.dtype()))};
}

std::optional<Violation> check_axis(const OpCall& call, int64_t rank) {
  const int64_t axis = op_spec(call).arg_or_default(call, "axis")->i;
  if (axis < -rank || axis >= rank)
    return Violation{ErrorCategory::DimOutOfRange, "axis " + std::to_string(axis) + " is outside [" +
                                                       std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]"};
  return std::nullopt;
}

// indices' sizes within data's apart from axis.
std::optional<Violation> check_within(const Tensor& data, const Tensor& indices, int64_t axis) {
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices.size(d) > data.size(d))
      return Violation{ErrorCategory::ShapeMismatch, "indices " + shape_str(indices.shape()) + " exceeds data " +
                                                         shape_str(data.shape()) + " in dim " + std::to_string(d)};
  return std::nullopt;
}

// The scatters' first checks, in the order both kernels run them: the
// opset, the reduction, updates' dtype against data's, data's dtype.
std::optional<Violation> check_scatter_prologue(const OpCall& call) {
  if (auto v = check_opset(call)) return v;
  if (auto v = check_reduction(call)) return v;
  const Tensor& data = *call.tensor("data");
  const Tensor& updates = *call.tensor("updates");
  if (updates.dtype() != data.dtype())
    return Violation{ErrorCategory::DtypeMismatch, "updates (" + std::string(dtype_name(updates.dtype())) +
                                                       ") must have data's dtype (" +
                                                       std::string(dtype_name(data.dtype())) + ")"};
  return check_data_dtype(call, data);
}

}  // namespace

int64_t onnx_first_opset(const std::string& op) {
  if (op == "onnx.Scatter") return 9;
  if (op == "onnx.GatherElements" || op == "onnx.ScatterElements" || op == "onnx.GatherND" || op == "onnx.ScatterND")
    return 11;
  return 0;
}

int64_t onnx_opset(const OpCall& call) { return op_spec(call).arg_or_default(call, "opset")->i; }

bool onnx_negatives_wrap(const OpCall& call) { return !(call.op == "onnx.Scatter" && onnx_opset(call) < 11); }

std::optional<Violation> check_onnx_gather_elements(const OpCall& call) {
  if (auto v = check_opset(call)) return v;
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  if (auto v = check_data_dtype(call, data)) return v;
  if (auto v = check_index_dtype(indices, true)) return v;
  if (data.rank() < 1 || indices.rank() != data.rank())
    return Violation{ErrorCategory::RankMismatch, "data (rank " + std::to_string(data.rank()) + ") and indices (rank " +
                                                      std::to_string(indices.rank()) +
                                                      ") must have the same rank >= 1"};
  if (auto v = check_axis(call, data.rank())) return v;
  return std::nullopt;
}

std::optional<Violation> check_onnx_scatter_elements(const OpCall& call) {
  if (auto v = check_scatter_prologue(call)) return v;
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  if (auto v = check_index_dtype(indices, true)) return v;
  if (data.rank() < 1 || indices.rank() != data.rank() || updates.rank() != data.rank())
    return Violation{ErrorCategory::RankMismatch, "data, indices and updates must have the same rank >= 1"};
  if (auto v = check_axis(call, data.rank())) return v;
  if (updates.shape() != indices.shape())
    return Violation{ErrorCategory::ShapeMismatch, "updates " + shape_str(updates.shape()) +
                                                       " must have indices' shape " + shape_str(indices.shape())};
  return std::nullopt;
}

std::optional<Violation> check_onnx_indices_fit(const OpCall& call) {
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  int64_t axis = op_spec(call).arg_or_default(call, "axis")->i;
  if (axis < 0) axis += data.rank();
  return check_within(data, indices, axis);
}

std::optional<Violation> check_onnx_gather_nd(const OpCall& call) {
  if (auto v = check_opset(call)) return v;
  const int64_t b = op_spec(call).arg_or_default(call, "batch_dims")->i;
  if (b != 0 && onnx_opset(call) < 12)
    return Violation{ErrorCategory::InvalidArgument, "batch_dims is not an attribute of GatherND before opset 12"};
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  if (auto v = check_data_dtype(call, data)) return v;
  if (auto v = rank_below_one("data", data)) return v;
  if (auto v = rank_below_one("indices", indices)) return v;
  if (auto v = check_index_dtype(indices, false)) return v;
  if (b < 0 || b >= std::min(data.rank(), indices.rank()))
    return Violation{ErrorCategory::InvalidArgument,
                     "batch_dims " + std::to_string(b) + " must be in [0, min(rank(data), rank(indices)))"};
  for (int64_t d = 0; d < b; ++d)
    if (data.size(d) != indices.size(d))
      return Violation{ErrorCategory::ShapeMismatch, "the batch dims of indices " + shape_str(indices.shape()) +
                                                         " and data " + shape_str(data.shape()) + " differ"};
  const int64_t k = indices.shape().back();
  if (k < 1 || k > data.rank() - b)
    return Violation{ErrorCategory::ShapeMismatch, "indices.shape[-1] = " + std::to_string(k) + " must be in [1, " +
                                                       std::to_string(data.rank() - b) + "]"};
  return std::nullopt;
}

std::optional<Violation> check_onnx_scatter_nd(const OpCall& call) {
  if (auto v = check_scatter_prologue(call)) return v;
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  if (auto v = rank_below_one("data", data)) return v;
  if (auto v = rank_below_one("indices", indices)) return v;
  if (auto v = check_index_dtype(indices, false)) return v;
  const int64_t k = indices.shape().back();
  if (k > data.rank())
    return Violation{ErrorCategory::ShapeMismatch, "indices.shape[-1] = " + std::to_string(k) + " must be at most " +
                                                       std::to_string(data.rank()) + ", data's rank"};
  Shape expected(indices.shape().begin(), indices.shape().end() - 1);
  expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
  if (updates.rank() != static_cast<int64_t>(expected.size()))
    return Violation{ErrorCategory::RankMismatch, "updates has rank " + std::to_string(updates.rank()) + ", not " +
                                                      std::to_string(expected.size()) + " = q + r - k - 1"};
  if (updates.shape() != expected)
    return Violation{ErrorCategory::ShapeMismatch, "updates " + shape_str(updates.shape()) + " must be " +
                                                       shape_str(expected) + " (indices.shape[:-1] + data.shape[k:])"};
  return std::nullopt;
}

}  // namespace sp::backend_rules
