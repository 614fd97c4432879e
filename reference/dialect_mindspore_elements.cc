#include "reference/dialect_mindspore_elements.h"

namespace sp::ref::mindspore_elements {
namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string s(std::string_view v) { return std::string(v); }

}  // namespace

std::optional<int64_t> dim_in_range(RuleLog& log, std::string_view clause, std::string_view name, int64_t value,
                                    int64_t rank) {
  const std::string range = "[" + str(-rank) + ", " + str(rank) + ")";
  if (!log.check(value >= -rank && value < rank, clause, s(name) + "=" + str(value) + " in " + range,
                 ErrorCategory::DimOutOfRange,
                 "The value of '" + s(name) + "' must be in " + range + ", but got " + str(value)))
    return std::nullopt;
  return wrap_dim(value, rank);
}

bool index_dtype_int32_or_int64(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t) {
  const std::string dt(dtype_name(t.dtype()));
  return log.check(t.dtype() == DType::Int32 || t.dtype() == DType::Int64, clause,
                   s(name) + ".dtype=" + dt + " is int32 or int64", ErrorCategory::IndexDtype,
                   "The dtype of '" + s(name) + "' must be int32 or int64, but got " + dt);
}

bool rank_at_least_one(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t) {
  return log.check(t.rank() >= 1, clause, s(name) + " rank " + str(t.rank()) + " >= 1", ErrorCategory::RankMismatch,
                   "The rank of '" + s(name) + "' must be at least 1, but got " + str(t.rank()));
}

bool same_rank(RuleLog& log, std::string_view clause, std::string_view a_name, const Tensor& a, std::string_view b_name,
               const Tensor& b) {
  return log.check(a.rank() == b.rank(), clause,
                   s(b_name) + " rank " + str(b.rank()) + " == " + s(a_name) + " rank " + str(a.rank()),
                   ErrorCategory::RankMismatch,
                   "The rank of '" + s(b_name) + "' (" + str(b.rank()) + ") must equal the rank of '" + s(a_name) +
                       "' (" + str(a.rank()) + ")");
}

bool same_dtype(RuleLog& log, std::string_view clause, std::string_view a_name, const Tensor& a,
                std::string_view b_name, const Tensor& b) {
  const std::string at(dtype_name(a.dtype())), bt(dtype_name(b.dtype()));
  return log.check(
      a.dtype() == b.dtype(), clause, s(b_name) + ".dtype=" + bt + " == " + s(a_name) + ".dtype=" + at,
      ErrorCategory::DtypeMismatch,
      "The dtype of '" + s(b_name) + "' (" + bt + ") must be the dtype of '" + s(a_name) + "' (" + at + ")");
}

bool index_fits(RuleLog& log, std::string_view clause, const Tensor& index, std::string_view other_name,
                const Tensor& other, std::optional<int64_t> skip_dim) {
  bool all = true;
  for (int64_t d = 0; d < index.rank(); ++d) {
    if (skip_dim && d == *skip_dim) continue;
    const std::string fact = "index.shape[" + str(d) + "]=" + str(index.size(d)) + " <= " + s(other_name) + ".shape[" +
                             str(d) + "]=" + str(other.size(d));
    all &= log.check(index.size(d) <= other.size(d), clause, fact, ErrorCategory::ShapeMismatch,
                     "The size of index at dim " + str(d) + " (" + str(index.size(d)) + ") must not exceed " +
                         s(other_name) + "'s (" + str(other.size(d)) + ")");
  }
  return all;
}

std::optional<std::string> first_outside(const Tensor& index, std::string_view name, int64_t lo, int64_t size) {
  if (index.numel() == 0) return std::nullopt;
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < lo || v >= size) return element_text(name, index, pos) + " is outside [" + str(lo) + ", " + str(size) + ")";
  } while (next_index(pos, index.shape()));
  return std::nullopt;
}

}  // namespace sp::ref::mindspore_elements
