#include "reference/dialect_torch.h"

#include <cmath>
#include <map>
#include <string>

#include "reference/messages_torch.h"
#include "reference/versions.h"

namespace sp::ref::torch_rules {
namespace {

namespace msg = torch_messages;

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

bool scalar_overflows(const Scalar& v, DType t) {
  if (v.kind == Scalar::Kind::Bool || t == DType::Bool) return false;  // bool never overflows either way
  const double lowest = dtype_lowest(t), max = dtype_max(t);
  if (v.kind == Scalar::Kind::Int) {
    if (t == DType::UInt8) return v.i > 255 || v.i < -255;  // unsigned targets let negatives wrap
    return static_cast<double>(v.i) < lowest || static_cast<double>(v.i) > max;
  }
  if (std::isinf(v.f)) return is_integral(t);  // float dtypes hold infinities
  if (std::isnan(v.f)) return is_integral(t);
  return v.f < lowest || v.f > max;  // the untruncated value: 127.9 does not fit int8
}

uint64_t scalar_to_bits(const Scalar& value, DType t) {
  switch (value.kind) {
    case Scalar::Kind::Bool:
      return bits_from_value(t, Value::of_int(value.b ? 1 : 0));
    case Scalar::Kind::Int:
      return bits_from_value(t, Value::of_int(value.i));
    case Scalar::Kind::Float:
      // c10 builds Half/BFloat16 from a float: the double rounds to float
      // first (a second rounding that can differ from a direct one).
      if (t == DType::Float16 || t == DType::BFloat16)
        return bits_from_value(t, Value::of_float(static_cast<float>(value.f)));
      return bits_from_value(t, Value::of_float(value.f));
  }
  return 0;
}

bool dim_in_range(RuleLog& log, int64_t dim, int64_t rank) {
  return log.check(dim >= -rank && dim < rank, "T-D1",
                   "dim=" + str(dim) + " in [" + str(-rank) + ", " + str(rank) + ")", ErrorCategory::DimOutOfRange,
                   msg::dim_out_of_range(dim, rank));
}

bool scatter_gather_index_dtype(RuleLog& log, std::string_view op, const Tensor& index, const std::string& version) {
  const std::string dtype(dtype_name(index.dtype()));
  if (rule_holds("T-I2", version))
    return log.check(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, "T-I2",
                     "index.dtype=" + dtype + " is int32 or int64 (torch >= 2.8)", ErrorCategory::IndexDtype,
                     msg::index_dtype(op, true));
  return log.check(index.dtype() == DType::Int64, "T-I1", "index.dtype=" + dtype + " is int64",
                   ErrorCategory::IndexDtype, msg::index_dtype(op, false));
}

bool index_is_empty(RuleLog& log, const Tensor& index) {
  const bool empty = index.numel() == 0;
  if (empty)
    log.note("index is empty: no element is read or written; rank, shape, value and bounds rules skipped [T-E1]");
  return empty;
}

bool src_dtype_matches(RuleLog& log, std::string_view op, const Tensor& self, const Tensor& src) {
  return log.check(
      self.dtype() == src.dtype(), "T-K1",
      "self.dtype=" + std::string(dtype_name(self.dtype())) + " == src.dtype=" + std::string(dtype_name(src.dtype())),
      ErrorCategory::DtypeMismatch, msg::src_dtype(op));
}

std::optional<ReduceMode> reduce_mode(RuleLog& log, const std::optional<std::string>& reduce) {
  if (!reduce) return ReduceMode::None;
  const bool add = *reduce == "add", multiply = *reduce == "multiply";
  if (!log.check(add || multiply, "T-R1", "reduce='" + *reduce + "' is 'add' or 'multiply'",
                 ErrorCategory::InvalidReduce, msg::reduce_add_or_multiply()))
    return std::nullopt;
  return add ? ReduceMode::Add : ReduceMode::Multiply;
}

std::optional<ReduceMode> scatter_reduce_mode(RuleLog& log, const std::string& reduce) {
  static const std::map<std::string, ReduceMode> modes = {{"sum", ReduceMode::Add},
                                                          {"prod", ReduceMode::Multiply},
                                                          {"mean", ReduceMode::Mean},
                                                          {"amax", ReduceMode::Max},
                                                          {"amin", ReduceMode::Min}};
  const auto it = modes.find(reduce);
  if (!log.check(it != modes.end(), "T-RD3", "reduce='" + reduce + "' is one of sum, prod, mean, amax, amin",
                 ErrorCategory::InvalidReduce, msg::scatter_reduce_mode()))
    return std::nullopt;
  return it->second;
}

bool reduction_supports_dtype(RuleLog& log, ReduceMode mode, DType t) {
  const std::string dtype(dtype_name(t));
  return log.check(!(mode == ReduceMode::Mean && t == DType::Bool), "T-RD7",
                   "reduce of dtype " + dtype + " is implemented", ErrorCategory::UnsupportedDtype,
                   msg::reduce_mean_bool());
}

bool same_rank(RuleLog& log, std::string_view clause, std::string_view other_name, const Tensor& other,
               const Tensor& index) {
  return log.check(
      logical_rank(index) == logical_rank(other), clause,
      "index rank " + str(logical_rank(index)) + " == " + std::string(other_name) + " rank " + str(logical_rank(other)),
      ErrorCategory::RankMismatch, msg::index_rank(other_name));
}

std::string scatter_shape_message(const Tensor& self, const Tensor& index, const Tensor* src, int64_t dim) {
  return msg::scatter_index_shape(self, index, src, dim);
}

bool index_within_src(RuleLog& log, const Tensor& index, const Tensor& src, const std::string& message) {
  bool all = true;
  for (int64_t d = 0; d < logical_rank(index); ++d) {
    const std::string fact = "index.size(" + str(d) + ")=" + str(logical_size(index, d)) + " <= src.size(" + str(d) +
                             ")=" + str(logical_size(src, d));
    all &=
        log.check(logical_size(index, d) <= logical_size(src, d), "T-S3", fact, ErrorCategory::ShapeMismatch, message);
  }
  return all;
}

bool index_within_self_apart_from_dim(RuleLog& log, const Tensor& self, const Tensor& index, int64_t dim,
                                      const std::string& message) {
  bool all = true;
  for (int64_t d = 0; d < logical_rank(index); ++d) {
    if (d == dim) continue;
    const std::string fact = "index.size(" + str(d) + ")=" + str(logical_size(index, d)) + " <= self.size(" + str(d) +
                             ")=" + str(logical_size(self, d));
    all &=
        log.check(logical_size(index, d) <= logical_size(self, d), "T-S4", fact, ErrorCategory::ShapeMismatch, message);
  }
  return all;
}

bool index_within_input_apart_from_dim(RuleLog& log, const Tensor& input, const Tensor& index, int64_t dim) {
  bool all = true;
  for (int64_t d = 0; d < logical_rank(index); ++d) {
    if (d == dim) continue;
    const std::string fact = "index.size(" + str(d) + ")=" + str(logical_size(index, d)) + " <= input.size(" + str(d) +
                             ")=" + str(logical_size(input, d));
    all &= log.check(logical_size(index, d) <= logical_size(input, d), "T-G4", fact, ErrorCategory::ShapeMismatch,
                     msg::gather_index_shape(d, index, input, dim));
  }
  return all;
}

bool index_is_vector(RuleLog& log, const Tensor& index) {
  return log.check(index.rank() <= 1, "T-IS3", "index rank " + str(index.rank()) + " <= 1",
                   ErrorCategory::InvalidArgument, msg::index_select_index_rank());
}

bool index_is_int32_or_int64(RuleLog& log, const Tensor& index) {
  return log.check(index.dtype() == DType::Int32 || index.dtype() == DType::Int64, "T-IS4",
                   "index.dtype=" + std::string(dtype_name(index.dtype())) + " is int32 or int64",
                   ErrorCategory::IndexDtype, msg::index_select_index_dtype());
}

bool index_select_values_in_bounds(RuleLog& log, const Tensor& index, int64_t size) {
  if (index.numel() == 0) return true;
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < 0 || v >= size)
      return log.check(false, "T-IS6", "index" + format_index(pos) + "=" + str(v) + " in [0, " + str(size) + ")",
                       ErrorCategory::IndexOutOfBounds, msg::index_out_of_range_in_self());
  } while (next_index(pos, index.shape()));
  log.note("every index value in [0, " + str(size) + ") [T-IS6] ok");
  return true;
}

namespace {
bool stride_zero_over_several(const Tensor& t) {
  for (int64_t d = 0; d < t.rank(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}
}  // namespace

std::optional<std::string> undetected_overlap(const Tensor& self) {
  if (!self.has_internal_overlap() || stride_zero_over_several(self)) return std::nullopt;
  return "T-O2: self " + self.describe() +
         " has overlapping elements without a stride-0 dim: LibTorch does not detect it, what it writes depends "
         "on its order";
}

Expectation with_undetected_overlap(Expectation e, bool in_place, const Tensor& self) {
  if (in_place && undetected_overlap(self) && !e.allows_error(ErrorCategory::OverlappingOutput)) {
    e.errors.push_back(ErrorCategory::OverlappingOutput);
    e.notes.push_back(
        Note{"T-O2", "self " + self.describe() +
                         " overlaps without a stride-0 dim: a backend that detects it may report overlapping_output"});
  }
  return e;
}

bool no_internal_overlap(RuleLog& log, const Tensor& self) {
  return log.check(!stride_zero_over_several(self), "T-O1", "self " + self.describe() + " has no internal overlap",
                   ErrorCategory::OverlappingOutput, msg::internal_overlap());
}

std::optional<uint64_t> convert_value(RuleLog& log, const Scalar& value, DType t) {
  if (!log.check(!scalar_overflows(value, t), "T-V1",
                 "value " + value.to_string() + " fits " + std::string(dtype_name(t)), ErrorCategory::ValueOutOfRange,
                 msg::value_overflow(t)))
    return std::nullopt;
  return scalar_to_bits(value, t);
}

bool value_conversion_is_undefined(const Scalar& value, DType t) {
  // 2^63 passes c10's test (int64 max rounds up to 2^63 as a double) and the
  // cast that follows is undefined behaviour in C++.
  return value.kind == Scalar::Kind::Float && t == DType::Int64 && value.f >= 0x1p63;
}

bool index_values_in_bounds(RuleLog& log, const Tensor& index, int64_t dim, int64_t size) {
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < 0 || v >= size)
      return log.check(false, "T-B1", "index" + format_index(pos) + "=" + str(v) + " in [0, " + str(size) + ")",
                       ErrorCategory::IndexOutOfBounds, msg::index_out_of_bounds(v, dim, size));
  } while (next_index(pos, index.shape()));
  log.note("every index value in [0, " + str(size) + ") [T-B1] ok");
  return true;
}

bool index_add_index_is_vector(RuleLog& log, const Tensor& index) {
  return log.check(index.rank() <= 1, "T-IA2", "index rank " + str(index.rank()) + " <= 1",
                   ErrorCategory::InvalidArgument, msg::index_add_index_rank(index.rank()));
}

bool index_add_index_dtype(RuleLog& log, const Tensor& index) {
  return log.check(index.dtype() == DType::Int32 || index.dtype() == DType::Int64, "T-IA3",
                   "index.dtype=" + std::string(dtype_name(index.dtype())) + " is int32 or int64",
                   ErrorCategory::IndexDtype, msg::index_add_index_dtype(index.dtype()));
}

bool index_add_source_dtype(RuleLog& log, const Tensor& self, const Tensor& source) {
  return log.check(self.dtype() == source.dtype(), "T-IA4",
                   "source.dtype=" + std::string(dtype_name(source.dtype())) +
                       " == self.dtype=" + std::string(dtype_name(self.dtype())),
                   ErrorCategory::DtypeMismatch, msg::index_add_source_dtype(self.dtype(), source.dtype()));
}

bool index_add_source_has_dim(RuleLog& log, const Tensor& source, int64_t dim) {
  return log.check(dim == 0 || dim < source.rank(), "T-IA5",
                   "dim " + str(dim) + " == 0 or < source rank " + str(source.rank()), ErrorCategory::ShapeMismatch,
                   msg::index_add_source_has_dim(dim, source.rank()));
}

bool index_add_source_length(RuleLog& log, const Tensor& index, const Tensor& source, int64_t dim) {
  const int64_t along = source.rank() == 0 ? 1 : source.size(dim);
  return log.check(index.numel() == along, "T-IA6",
                   "len(index)=" + str(index.numel()) + " == source.size(" + str(dim) + ")=" + str(along),
                   ErrorCategory::ShapeMismatch, msg::index_add_source_length(index.numel(), along, dim));
}

// Whether source's slice along dim broadcasts to self's (right-aligned,
// each size equal or 1): the mis-shaped sources LibTorch 1.13's CPU
// index_add_ / index_reduce_ accept (T-IA13).
bool source_slice_broadcasts(const Shape& self_shape, const Shape& source_shape, int64_t dim) {
  if (dim >= static_cast<int64_t>(source_shape.size())) return false;
  Shape self_slice = self_shape, source_slice = source_shape;
  self_slice.erase(self_slice.begin() + dim);
  source_slice.erase(source_slice.begin() + dim);
  if (source_slice.size() > self_slice.size()) return false;
  for (size_t k = 1; k <= source_slice.size(); ++k) {
    const int64_t s = source_slice[source_slice.size() - k], t = self_slice[self_slice.size() - k];
    if (s != t && s != 1) return false;
  }
  return true;
}

bool index_add_source_shape_physical(RuleLog& log, const Tensor& self, const Tensor& source, int64_t dim) {
  Shape self_sizes = self.shape();
  Shape source_sizes = source.shape();
  if (self.rank() > 0 && source.rank() > 0) {
    self_sizes.erase(self_sizes.begin() + dim);
    source_sizes.erase(source_sizes.begin() + dim);
  }
  return log.check(self_sizes == source_sizes, "T-IA14",
                   "source shape " + format_shape(source.shape()) + " matches self's " + format_shape(self.shape()) +
                       " apart from dim " + str(dim) + " (torch >= 2.3)",
                   ErrorCategory::ShapeMismatch, msg::index_add_source_shape_physical(self, source));
}

IndexAddMeta index_add_meta(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source,
                            int64_t dim_arg, bool in_place, const std::string& version) {
  const int64_t rank = logical_rank(self);
  const bool dim_ok = dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? wrap_dim(dim_arg, rank) : dim_arg;
  const bool vector = index_add_index_is_vector(log, index);
  index_add_index_dtype(log, index);
  index_add_source_dtype(log, self, source);
  if (dim_ok && index_add_source_has_dim(log, source, dim)) index_add_source_length(log, index, source, dim);
  const bool physical_shape = rule_holds("T-IA14", version);
  if (physical_shape && log.passed()) index_add_source_shape_physical(log, self, source, dim);
  if (in_place) no_internal_overlap(log, self);
  return {dim_ok, dim, vector, physical_shape};
}

bool index_add_source_shape(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source, int64_t dim) {
  Shape expected = logical_shape(self);
  expected[static_cast<size_t>(dim)] = index.numel();
  const Shape actual = logical_shape(source);
  // The same rule; the broadcastable sub-case is cited as T-IA13, where
  // LibTorch 1.13 CPU deviates, so a known-deviation entry can name it.
  // (LibTorch's slice comparison: self of rank >= 2, source of rank >= 1.)
  const bool broadcasts = actual != expected && self.rank() >= 2 && source.rank() >= 1 &&
                          dim < static_cast<int64_t>(actual.size()) &&
                          actual[static_cast<size_t>(dim)] == expected[static_cast<size_t>(dim)] &&
                          source_slice_broadcasts(expected, actual, dim);
  return log.check(actual == expected, broadcasts ? "T-IA13" : "T-IA8",
                   "source shape " + format_shape(source.shape()) + " == self's with dim " + str(dim) +
                       " replaced by " + str(index.numel()) + " " + format_shape(expected),
                   ErrorCategory::ShapeMismatch, msg::index_add_source_shape(self, source, dim, index.numel()));
}

std::optional<uint64_t> index_add_alpha(RuleLog& log, const Scalar& alpha, DType t) {
  if (!log.check(!scalar_overflows(alpha, t), "T-IA9",
                 "alpha " + alpha.to_string() + " fits " + std::string(dtype_name(t)), ErrorCategory::ValueOutOfRange,
                 msg::value_overflow(t)))
    return std::nullopt;
  return scalar_to_bits(alpha, t);
}

bool index_add_values_in_bounds(RuleLog& log, const Tensor& index, int64_t size) {
  if (index.numel() == 0) return true;
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < 0 || v >= size)
      return log.check(false, "T-IA10", "index" + format_index(pos) + "=" + str(v) + " in [0, " + str(size) + ")",
                       ErrorCategory::IndexOutOfBounds, msg::index_out_of_range_in_self());
  } while (next_index(pos, index.shape()));
  log.note("every index value in [0, " + str(size) + ") [T-IA10] ok");
  return true;
}

bool index_copy_index_is_vector(RuleLog& log, const Tensor& index) {
  return log.check(index.rank() <= 1, "T-IC2", "index rank " + str(index.rank()) + " <= 1",
                   ErrorCategory::InvalidArgument, msg::index_copy_index_rank(index.rank()));
}

bool index_copy_index_dtype(RuleLog& log, const Tensor& index) {
  return log.check(index.dtype() == DType::Int64, "T-IC3",
                   "index.dtype=" + std::string(dtype_name(index.dtype())) + " is int64", ErrorCategory::IndexDtype,
                   msg::index_copy_index_dtype(index.dtype()));
}

bool index_copy_source_dtype(RuleLog& log, const Tensor& self, const Tensor& source) {
  return log.check(self.dtype() == source.dtype(), "T-IC4",
                   "source.dtype=" + std::string(dtype_name(source.dtype())) +
                       " == self.dtype=" + std::string(dtype_name(self.dtype())),
                   ErrorCategory::DtypeMismatch, msg::index_copy_source_dtype(self.dtype(), source.dtype()));
}

bool index_copy_source_shape(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source, int64_t dim) {
  Shape expected = logical_shape(self);
  expected[static_cast<size_t>(dim)] = index.numel();
  const Shape actual = logical_shape(source);
  return log.check(actual == expected, "T-IC5",
                   "source shape " + format_shape(source.shape()) + " == self's with dim " + str(dim) +
                       " replaced by " + str(index.numel()) + " " + format_shape(expected),
                   ErrorCategory::ShapeMismatch, msg::index_copy_source_shape(self, source, dim, index.numel()));
}

bool index_copy_values_in_bounds(RuleLog& log, const Tensor& index, int64_t dim, int64_t size) {
  if (index.numel() == 0) return true;
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < 0 || v >= size)
      return log.check(false, "T-IC7", "index" + format_index(pos) + "=" + str(v) + " in [0, " + str(size) + ")",
                       ErrorCategory::IndexOutOfBounds, msg::index_copy_out_of_bounds(v, dim, size));
  } while (next_index(pos, index.shape()));
  log.note("every index value in [0, " + str(size) + ") [T-IC7] ok");
  return true;
}

bool index_fill_index_dtype(RuleLog& log, const Tensor& index) {
  return log.check(index.dtype() == DType::Int64, "T-IF2",
                   "index.dtype=" + std::string(dtype_name(index.dtype())) + " is int64", ErrorCategory::IndexDtype,
                   msg::index_fill_index_dtype());
}

bool index_fill_index_is_vector(RuleLog& log, const Tensor& index) {
  return log.check(index.rank() <= 1, "T-IF3", "index rank " + str(index.rank()) + " <= 1",
                   ErrorCategory::InvalidArgument, msg::index_fill_index_rank());
}

std::optional<uint64_t> index_fill_value(RuleLog& log, const Scalar& value, DType t) {
  if (!log.check(!scalar_overflows(value, t), "T-IF4",
                 "value " + value.to_string() + " fits " + std::string(dtype_name(t)), ErrorCategory::ValueOutOfRange,
                 msg::value_overflow(t)))
    return std::nullopt;
  return scalar_to_bits(value, t);
}

bool index_fill_values_within(RuleLog& log, const Tensor& index, int64_t dim, int64_t size) {
  if (index.numel() == 0) return true;
  Shape pos(static_cast<size_t>(index.rank()), 0);
  do {
    const int64_t v = read_index(index, pos);
    if (v < -size || v >= size)
      return log.check(false, "T-IF5",
                       "index" + format_index(pos) + "=" + str(v) + " in [" + str(-size) + ", " + str(size) + ")",
                       ErrorCategory::IndexOutOfBounds, msg::index_out_of_bounds(v, dim, size));
  } while (next_index(pos, index.shape()));
  log.note("every index value in [" + str(-size) + ", " + str(size) + ") [T-IF5] ok");
  return true;
}

std::optional<ReduceMode> index_reduce_mode(RuleLog& log, const std::string& reduce) {
  static const std::map<std::string, ReduceMode> modes = {
      {"prod", ReduceMode::Multiply}, {"mean", ReduceMode::Mean}, {"amax", ReduceMode::Max}, {"amin", ReduceMode::Min}};
  const auto it = modes.find(reduce);
  if (!log.check(it != modes.end(), "T-IR3", "reduce='" + reduce + "' is one of prod, mean, amax, amin",
                 ErrorCategory::InvalidReduce, msg::index_reduce_mode(reduce)))
    return std::nullopt;
  return it->second;
}

bool take_along_dim_same_rank(RuleLog& log, const Tensor& input, const Tensor& indices) {
  return log.check(input.rank() == indices.rank(), "T-TA3",
                   "indices rank " + str(indices.rank()) + " == input rank " + str(input.rank()),
                   ErrorCategory::RankMismatch, msg::take_along_dim_rank(input.rank(), indices.rank()));
}

bool take_along_dim_indices_long(RuleLog& log, const Tensor& indices, bool flattened) {
  // The same rule; an empty indices without dim is cited as T-TA12, where
  // LibTorch 1.13 deviates (its gather skips the dtype check of an empty
  // index), so a known-deviation entry can name it.
  const bool deviation_case = flattened && indices.numel() == 0;
  return log.check(indices.dtype() == DType::Int64, deviation_case ? "T-TA12" : "T-TA4",
                   "indices.dtype=" + std::string(dtype_name(indices.dtype())) + " is int64", ErrorCategory::IndexDtype,
                   msg::take_along_dim_indices_dtype(indices.dtype()));
}

bool take_along_dim_broadcasts(RuleLog& log, const Tensor& input, const Tensor& indices, int64_t dim) {
  bool all = true;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (d == dim) continue;
    const int64_t a = input.size(d), b = indices.size(d);
    all &= log.check(a == b || a == 1 || b == 1, "T-TA5",
                     "input.size(" + str(d) + ")=" + str(a) + " and indices.size(" + str(d) + ")=" + str(b) +
                         " are equal or one is 1",
                     ErrorCategory::ShapeMismatch, msg::broadcast_size(a, b, d));
  }
  return all;
}

}  // namespace sp::ref::torch_rules
