#include "reference/dialect_mindspore_nd.h"

namespace sp::ref::mindspore_nd_rules {
namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string name_of(DType t) { return std::string(dtype_name(t)); }

}  // namespace

std::string tensor_scatter_combiner(std::string_view op_id) {
  constexpr std::string_view kPrefix = "mindspore.tensor_scatter_";
  return op_id.substr(0, kPrefix.size()) == kPrefix ? std::string(op_id.substr(kPrefix.size())) : "";
}

bool indices_int32_or_64(RuleLog& log, std::string_view clause, const Tensor& indices) {
  const DType t = indices.dtype();
  return log.check(t == DType::Int32 || t == DType::Int64, clause, "indices.dtype=" + name_of(t) + " is int32 or int64",
                   ErrorCategory::IndexDtype, "the dtype of indices must be int32 or int64, but got " + name_of(t));
}

bool indices_rank_at_least_two(RuleLog& log, std::string_view clause, const Tensor& indices) {
  return log.check(indices.rank() >= 2, clause, "indices rank " + str(indices.rank()) + " >= 2",
                   ErrorCategory::InvalidArgument,
                   "the rank of indices must be at least 2, but got " + str(indices.rank()));
}

bool tuple_length_within(RuleLog& log, std::string_view clause, int64_t k, int64_t rank) {
  return log.check(k <= rank, clause, "indices.shape[-1]=" + str(k) + " <= rank " + str(rank),
                   ErrorCategory::ShapeMismatch,
                   "indices.shape[-1] " + str(k) + " must be at most the rank of input_x " + str(rank));
}

bool updates_dtype_matches(RuleLog& log, std::string_view clause, const Tensor& input, const Tensor& updates) {
  return log.check(input.dtype() == updates.dtype(), clause,
                   "updates.dtype=" + name_of(updates.dtype()) + " == input_x.dtype=" + name_of(input.dtype()),
                   ErrorCategory::DtypeMismatch, "updates must have input_x's dtype");
}

bool updates_shape(RuleLog& log, std::string_view clause, const Shape& shape, const Tensor& indices,
                   const Tensor& updates) {
  const int64_t k = indices.shape().back();
  Shape want(indices.shape().begin(), indices.shape().end() - 1);
  want.insert(want.end(), shape.begin() + k, shape.end());
  return log.check(
      updates.shape() == want, clause,
      "updates.shape=" + format_shape(updates.shape()) + " == indices.shape[:-1] ++ shape[k:]=" + format_shape(want),
      ErrorCategory::ShapeMismatch,
      "updates.shape " + format_shape(updates.shape()) + " must be indices.shape[:-1] + shape[" + str(k) +
          ":] = " + format_shape(want));
}

std::optional<std::string> first_value_out_of_range(const Shape& shape, const Tensor& indices) {
  if (indices.numel() == 0) return std::nullopt;
  Shape idx(static_cast<size_t>(indices.rank()), 0);
  do {
    const int64_t s = shape[static_cast<size_t>(idx.back())];
    const int64_t v = read_index(indices, idx);
    if (v < 0 || v >= s)
      return "index " + str(v) + " (" + element_text("indices", indices, idx) + ") is outside [0, " + str(s) +
             ") for dim " + str(idx.back());
  } while (next_index(idx, indices.shape()));
  return std::nullopt;
}

bool tuple_in_range(const Shape& shape, const Tensor& indices, const Shape& pos) {
  Shape at = pos;
  at.push_back(0);
  for (int64_t j = 0; j < indices.shape().back(); ++j) {
    at.back() = j;
    const int64_t v = read_index(indices, at);
    if (v < 0 || v >= shape[static_cast<size_t>(j)]) return false;
  }
  return true;
}

}  // namespace sp::ref::mindspore_nd_rules
