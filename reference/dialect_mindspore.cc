#include "reference/dialect_mindspore.h"

#include <stdexcept>

#include "reference/dialect_torch.h"
#include "reference/messages_mindspore.h"
#include "reference/versions.h"

namespace sp::ref::mindspore_rules {
namespace {

namespace msg = mindspore_messages;

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

bool follows_r2_10_or_later(const std::string& doc_version) { return rule_holds("MS-N1", doc_version); }

bool dim_in_range(RuleLog& log, int64_t dim, int64_t rank) {
  return log.check(dim >= -rank && dim < rank, "MS-D1",
                   "dim=" + str(dim) + " in [" + str(-rank) + ", " + str(rank) + ")", ErrorCategory::DimOutOfRange,
                   msg::dim_out_of_range(dim, rank));
}

bool rank_within_limit(RuleLog& log, const Tensor& self) {
  return log.check(self.rank() <= 8, "MS-L1", "self rank " + str(self.rank()) + " <= 8", ErrorCategory::RankLimit,
                   msg::rank_limit(self.rank()));
}

bool index_dtype_supported(RuleLog& log, const Tensor& index) {
  const DType t = index.dtype();
  return log.check(t == DType::Int32 || t == DType::Int64, "MS-I1",
                   "index.dtype=" + std::string(dtype_name(t)) + " is int32 or int64", ErrorCategory::IndexDtype,
                   msg::index_dtype(t));
}

bool src_dtype_matches(RuleLog& log, const Tensor& self, const Tensor& src) {
  return log.check(
      self.dtype() == src.dtype(), "MS-K1",
      "self.dtype=" + std::string(dtype_name(self.dtype())) + " == src.dtype=" + std::string(dtype_name(src.dtype())),
      ErrorCategory::DtypeMismatch, msg::src_dtype());
}

std::optional<ReduceMode> reduce_mode(RuleLog& log, const std::optional<std::string>& reduce) {
  if (!reduce) return ReduceMode::None;
  const bool add = *reduce == "add", multiply = *reduce == "multiply";
  if (!log.check(add || multiply, "MS-R1", "reduce='" + *reduce + "' is 'add' or 'multiply'",
                 ErrorCategory::InvalidReduce, msg::reduce_mode(*reduce)))
    return std::nullopt;
  return add ? ReduceMode::Add : ReduceMode::Multiply;
}

bool value_overload_exists(RuleLog& log, bool r2_10_or_later) {
  return log.check(!r2_10_or_later, "MS-N2", "value overload exists in this documentation version",
                   ErrorCategory::InvalidArgument, msg::value_overload_removed());
}

bool index_is_empty(RuleLog& log, const Tensor& index) {
  const bool empty = index.numel() == 0;
  if (empty) log.note("index is empty: self is returned unchanged; rank, shape and value rules skipped [MS-E1]");
  return empty;
}

bool same_rank(RuleLog& log, const std::string& other_name, const Tensor& other, const Tensor& index) {
  return log.check(index.rank() == other.rank(), "MS-S1",
                   "index rank " + str(index.rank()) + " == " + other_name + " rank " + str(other.rank()),
                   ErrorCategory::RankMismatch, msg::index_rank(other_name));
}

bool index_within(RuleLog& log, const char* clause, const std::string& other_name, const Tensor& other,
                  const Tensor& index) {
  bool all = true;
  for (int64_t d = 0; d < index.rank(); ++d) {
    const std::string fact = "index.size(" + str(d) + ")=" + str(index.size(d)) + " <= " + other_name + ".size(" +
                             str(d) + ")=" + str(other.size(d));
    all &= log.check(index.size(d) <= other.size(d), clause, fact, ErrorCategory::ShapeMismatch,
                     msg::index_size(d, index.size(d), other_name, other.size(d)));
  }
  return all;
}

std::optional<uint64_t> convert_value(RuleLog& log, const Scalar& value, DType t) {
  // No c10 underneath: a float >= 2^63 simply does not fit int64.
  const bool fits = !torch_rules::scalar_overflows(value, t) && !torch_rules::value_conversion_is_undefined(value, t);
  if (!log.check(fits, "MS-V1", "value " + value.to_string() + " fits " + std::string(dtype_name(t)),
                 ErrorCategory::ValueOutOfRange, msg::value_conversion(value.to_string(), t)))
    return std::nullopt;
  return torch_rules::scalar_to_bits(value, t);
}

std::optional<std::string> undefined_index_value(const Tensor& index, int64_t dim, int64_t size, bool r2_10_or_later) {
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    const std::string where = "index" + format_index(pos) + "=" + str(v);
    if (v < -size || v >= size)
      return "MS-B1: " + where + " is outside [-" + str(size) + ", " + str(size) + ") for dim " + str(dim) +
             "; the document calls this undefined on Ascend and lists no error";
    if (v < 0 && r2_10_or_later) return "MS-N1: " + where + " is negative; r2.10+ documentation calls this undefined";
  } while (next_index(pos, index.shape()));
  return std::nullopt;
}

}  // namespace sp::ref::mindspore_rules
