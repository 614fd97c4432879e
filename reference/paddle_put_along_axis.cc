// paddle_put_along_axis.cc — Tensor.put_along_axis_(arr, indices, values,
// axis, reduce='assign', include_self=True, broadcast=True) (in place,
// writes arr) and paddle.put_along_axis(...) (out of place: out = a copy of
// arr, then the same writes; arr is unchanged).
//
// Formula ("Put values into the destination array by given indices matrix
// along the designated axis"; PD-PA1), for a 2-D arr and axis 0:
//   out[indices[i][j]][j] = reduce(out[...], values[i][j])
// over every position (i, j) of the walk: with broadcast=True (PD-PA8) the
// walk is arr.shape with axis replaced by indices.shape[axis], indices (its
// size-1 dims) and values (NumPy's rule) broadcast to it; with
// broadcast=False (PD-PA9) the walk is indices.shape and values is read at
// the same position (a scalar everywhere).
//   reduce (PD-PA2): assign overwrites, add +, mul / multiply *, mean the
//   sum over the terms' count (integers floor, measured), amin / amax the
//   extreme; include_self (PD-PA3): whether an indexed element's own value
//   is a term (assign: no effect). Elements no position points at keep
//   arr's bits.
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-PA4  indices.ndim == arr.ndim                         (rank_mismatch)
//   PD-PA5  axis in [-r, r), r = arr.ndim (a 0-d arr has none) (dim_out_of_range)
//   PD-PA6  indices dtype int32 or int64                    (index_dtype)
//   PD-PA2  reduce is one of the seven documented strings   (invalid_reduce)
//   PD-PA7  a values tensor has arr's dtype                 (dtype_mismatch);
//           a scalar is converted to arr's dtype (one it cannot represent:
//           unspecified)
//   PD-PA8  broadcast=True: every d != axis has indices.shape[d] in {1,
//           arr.shape[d]}, values broadcasts to the walk    (shape_mismatch)
//   PD-PA9  broadcast=False: a values tensor has indices' rank (rank_mismatch);
//           indices.shape[d] <= arr.shape[d] for d != axis and
//           <= values.shape[d] for every d                  (shape_mismatch)
//   PD-PA12 Paddle < 3.0: Tensor.put_along_axis_ takes no broadcast argument
//           (invalid_argument when a case passes one)
//   PD-PA10 every index value v < S = arr.shape[axis], and from Paddle 3.0
//           v >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S; before,
//           a negative value (when the rules pass) makes the call unspecified
//   PD-PA11 arr dtype documented (3.x: bfloat16, float16, float32, float64,
//           int32, int64, uint8; 2.6: float32, float64); another dtype
//           allows both the result and unsupported_dtype
//   PD-PA13 in place: arr with internal overlap is unspecified
// Visit order: walk positions in row-major order; duplicates under assign
// allow any writer, float sums / products / means of >= 2 terms any order.
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/put_along_axis_en.html
// (docs 3.x; the text of PaddlePaddle 3.3.1's docstring, the same in 3.0) and
// .../en/2.6/api/paddle/put_along_axis_en.html; where silent, PaddlePaddle
// 3.3.1 CPU measured (reference/SEMANTICS.md, PD-PA*).
#include <algorithm>
#include <cmath>

#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::optional<ReduceMode> paddle_reduce_mode(const std::string& r) {
  if (r == "assign") return ReduceMode::None;
  if (r == "add") return ReduceMode::Add;
  if (r == "mul" || r == "multiply") return ReduceMode::Multiply;
  if (r == "mean") return ReduceMode::Mean;
  if (r == "amin") return ReduceMode::Min;
  if (r == "amax") return ReduceMode::Max;
  return std::nullopt;
}

bool half_precision(DType t) { return t == DType::BFloat16 || t == DType::Float16; }

// PD-PA11 (3.0: int32, int64, uint8), PD-PA14 (3.0: bfloat16, float16).
bool dtype_documented(DType t, const std::string& version) {
  if (t == DType::Float32 || t == DType::Float64) return true;
  if (half_precision(t)) return ref::rule_holds("PD-PA14", version);
  return (t == DType::Int32 || t == DType::Int64 || t == DType::UInt8) && ref::rule_holds("PD-PA11", version);
}

// NumPy's rule: `from` (right-aligned) has 1 or the walk's size in each dim.
bool broadcasts_to(const Shape& from, const Shape& walk) {
  if (from.size() > walk.size()) return false;
  const size_t lead = walk.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != walk[lead + d]) return false;
  return true;
}

// The position of a broadcast operand of shape `s` that walk position `p` reads.
Shape broadcast_position(const Shape& s, const Shape& p) {
  Shape at(s.size());
  const size_t lead = p.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d) at[d] = s[d] == 1 ? 0 : p[lead + d];
  return at;
}

// The call's operands and arguments, and what the checks found.
struct Put {
  const OpSpec& op;
  const Tensor& arr;
  const Tensor& indices;
  const Tensor* values;  // null: the scalar `value`
  std::optional<ReduceMode> mode;
  bool broadcast;
  bool negatives_wrap;
  int64_t axis = 0;
  int64_t size = 0;                // arr.shape[axis]
  Shape walk;                      // the positions written, in row-major order
  bool indices_broadcast = false;  // the walk reads indices broadcast (else at its own positions)
  bool negative = false;           // a negative index value was read
};

// PD-PA8 / PD-PA9: the walk and the shape rules of either mode.
void check_shapes(ref::RuleLog& log, Put& c) {
  const Tensor &arr = c.arr, &indices = c.indices;
  const int64_t r = arr.rank();
  c.walk = indices.shape();
  if (c.broadcast) {
    Shape walk = arr.shape();
    walk[static_cast<size_t>(c.axis)] = indices.size(c.axis);
    bool fits = true;
    for (int64_t d = 0; d < r; ++d)
      if (d != c.axis && indices.size(d) != 1 && indices.size(d) != arr.size(d)) fits = false;
    if (!log.check(fits, "PD-PA8", "indices " + format_shape(indices.shape()) + " broadcasts against arr",
                   ErrorCategory::ShapeMismatch, "indices must broadcast against arr apart from axis"))
      return;
    c.walk = walk;
    c.indices_broadcast = true;
    if (c.values)
      log.check(broadcasts_to(c.values->shape(), walk), "PD-PA8",
                "values " + format_shape(c.values->shape()) + " broadcasts to " + format_shape(walk),
                ErrorCategory::ShapeMismatch, "values must broadcast to " + format_shape(walk));
    return;
  }
  const bool value_rank_ok = !c.values || log.check(c.values->rank() == r, "PD-PA9", "values.ndim == indices.ndim",
                                                    ErrorCategory::RankMismatch,
                                                    "`indices` and `values` must have the same number of dimensions!");
  bool fits = true;
  for (int64_t d = 0; d < r; ++d)
    if ((d != c.axis && indices.size(d) > arr.size(d)) ||
        (c.values && value_rank_ok && indices.size(d) > c.values->size(d)))
      fits = false;
  log.check(fits, "PD-PA9", "indices within arr apart from axis and within values", ErrorCategory::ShapeMismatch,
            "Size does not match: expected index " + format_shape(indices.shape()) + " to be smaller than self " +
                format_shape(arr.shape()) + " apart from dimension " + str(c.axis) + " and than values");
}

// PD-PA10 over the index values the walk reads (a broadcast walk may read none).
void check_bounds(ref::RuleLog& log, Put& c) {
  if (!ref::index_values_readable(c.indices) || checked_numel(c.walk) == 0) return;
  Shape p(c.walk.size(), 0);
  do {
    const int64_t v = ref::read_index(c.indices, c.indices_broadcast ? broadcast_position(c.indices.shape(), p) : p);
    // Before 3.0 only the upper bound is a rule: any negative value is unspecified.
    if (!log.check((v >= -c.size || !c.negatives_wrap) && v < c.size, "PD-PA10",
                   "indices at walk position " + format_shape(p) + "=" + str(v) + " in [-" + str(c.size) + ", " +
                       str(c.size) + ")",
                   ErrorCategory::IndexOutOfBounds, "index " + str(v) + " is out of bounds for size " + str(c.size)))
      return;
    c.negative = c.negative || v < 0;
  } while (next_index(p, c.walk));
}

// Every check in SEMANTICS.md's order; fills `c` as far as the checks get.
void check_call(ref::RuleLog& log, const OpCall& call, Put& c) {
  const Tensor &arr = c.arr, &indices = c.indices;
  const int64_t r = arr.rank(), axis = *call.int_arg("axis");
  const bool ranks_ok =
      log.check(indices.rank() == r, "PD-PA4", "indices.ndim=" + str(indices.rank()) + " == arr.ndim=" + str(r),
                ErrorCategory::RankMismatch, "`indices` and `arr` must have the same number of dimensions!");
  const bool axis_ok =
      log.check(axis >= -r && axis < r, "PD-PA5", "axis=" + str(axis) + " in [-r, r)", ErrorCategory::DimOutOfRange,
                "'axis'  must be in the range of [-" + str(r) + ", " + str(r) + ")");
  c.axis = axis_ok && axis < 0 ? axis + r : axis;
  const DType it = indices.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-PA6", "indices.dtype is int32 or int64",
            ErrorCategory::IndexDtype,
            "The data type of indices should be one of ['int32', 'int64'], but got " + std::string(dtype_name(it)));
  const std::string reduce = c.op.arg_or_default(call, "reduce")->s;
  log.check(c.mode.has_value(), "PD-PA2", "reduce='" + reduce + "' is documented", ErrorCategory::InvalidReduce,
            "can not support reduce: '" + reduce + "' for scatter kernel");
  if (c.values)
    log.check(c.values->dtype() == arr.dtype(), "PD-PA7", "values.dtype == arr.dtype", ErrorCategory::DtypeMismatch,
              "The data types of values should be same as arr");
  if (ranks_ok && axis_ok) check_shapes(log, c);
  if (c.op.in_place && call.arg("broadcast") && !ref::rule_holds("PD-PA12", call.framework_version))
    log.check(false, "PD-PA12", "Tensor.put_along_axis_ takes broadcast (Paddle >= 3.0)",
              ErrorCategory::InvalidArgument, "put_along_axis_() got an unexpected keyword argument 'broadcast'");
  if (ranks_ok && axis_ok) {
    c.size = arr.size(c.axis);
    check_bounds(log, c);
  }
  if (log.passed() && c.mode == ReduceMode::Mean && arr.dtype() == DType::Bool)
    log.check(false, "PD-PA11", "reduce='mean' on an undocumented bool arr", ErrorCategory::UnsupportedDtype,
              "bool has no mean");
}

// The notes that name the rules a framework is known to read otherwise
// (campaign expectation entries are keyed by them): a scalar value
// (PD-PA7), indices longer than arr in some dim under broadcast (PD-PA8),
// a rank above 8 (PD-PA4: Paddle's broadcast and tensors stop at 8 and 9
// dims, which the page does not state), the half-precision dtypes (PD-PA14).
std::vector<Note> rule_notes(const Put& c) {
  std::vector<Note> notes;
  if (!c.values) notes.push_back({"PD-PA7", "a scalar value is converted to arr's dtype"});
  bool longer = false;
  for (int64_t d = 0; d < std::min(c.arr.rank(), c.indices.rank()); ++d)
    longer = longer || c.indices.size(d) > c.arr.size(d);
  if (c.broadcast && longer)
    notes.push_back({"PD-PA8", "indices longer than arr in a dim: still broadcast against arr (docs 3.x)"});
  if (c.arr.rank() > 8) notes.push_back({"PD-PA4", "arr of rank " + str(c.arr.rank()) + ": the page states no limit"});
  if (half_precision(c.arr.dtype())) notes.push_back({"PD-PA14", "a documented half-precision arr dtype (3.0)"});
  return notes;
}

// out[... indices[p] ...] = reduce(values[p]) for every walk position p;
// *nan_extreme: an amin / amax met a NaN term (PD-PA2's Decision).
ExpectedTensor put_values(const Put& c, std::optional<uint64_t> scalar_bits, bool include_self, bool* nan_extreme,
                          Trace* trace) {
  OutputBuilder out(c.op.output, c.arr, trace);
  if (!include_self) out.exclude_initial_from_reductions();
  if (checked_numel(c.walk) > 0) {
    Shape p(c.walk.size(), 0);
    do {  // a `continue` goes on at the next position
      const Shape at_index = c.indices_broadcast ? broadcast_position(c.indices.shape(), p) : p;
      const ref::IndexPosition ip{at_index, at_index, ref::read_index(c.indices, at_index)};
      Shape target = p;
      target[static_cast<size_t>(c.axis)] = ip.value < 0 ? ip.value + c.size : ip.value;  // PD-PA10 wraps
      const Shape at = c.values && c.broadcast ? broadcast_position(c.values->shape(), p) : p;
      const WriteOrigin from = c.values ? ref::read_from(ip, "values", *c.values, at) : ref::scalar_from(ip, "value");
      const uint64_t bits = c.values ? c.values->bits_at(at) : *scalar_bits;
      if (*c.mode == ReduceMode::None) {
        out.overwrite(target, bits, from);
        continue;
      }
      const Value term = value_from_bits(c.arr.dtype(), bits);
      const Value own = c.arr.value_at(target);
      if (*c.mode == ReduceMode::Max || *c.mode == ReduceMode::Min)
        *nan_extreme = *nan_extreme || (term.is_float && std::isnan(term.f)) ||
                       (include_self && own.is_float && std::isnan(own.f));
      out.reduce(target, *c.mode, term, from);
    } while (next_index(p, c.walk));
  }
  ExpectedTensor result = out.finish();
  if (*c.mode == ReduceMode::Mean)
    ref::allow_any_nan_where_initial_nan(result, c.arr.dtype(), "PD-PA2: a NaN divided by its count: any NaN");
  return result;
}

}  // namespace

Expectation paddle_put_along_axis(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  Put c{.op = op,
        .arr = *call.tensor("arr"),
        .indices = *call.tensor("indices"),
        .values = call.tensor("values"),
        .mode = paddle_reduce_mode(op.arg_or_default(call, "reduce")->s),
        .broadcast = op.arg_or_default(call, "broadcast")->b,
        .negatives_wrap = ref::rule_holds("PD-PA10", call.framework_version),
        .walk = {}};
  ref::RuleLog log(trace);
  check_call(log, call, c);
  const bool documented = dtype_documented(c.arr.dtype(), call.framework_version);
  std::vector<Note> notes = rule_notes(c);
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (c.negative && !c.negatives_wrap)
    return ref::unspecified_expectation("PD-PA10: a negative index value before Paddle 3.0 (PR #68780)", trace);
  if (op.in_place && c.arr.has_internal_overlap())
    return ref::unspecified_expectation("PD-PA13: arr " + c.arr.describe() + " has internal overlap", trace);
  std::optional<uint64_t> scalar_bits;
  if (!c.values) {
    const Scalar value = call.arg("value")->scalar;
    if (ref::torch_rules::scalar_overflows(value, c.arr.dtype()) ||
        ref::torch_rules::value_conversion_is_undefined(value, c.arr.dtype()))
      return ref::unspecified_expectation(
          "PD-PA7: value " + value.to_string() + " is not representable in " + std::string(dtype_name(c.arr.dtype())),
          trace);
    scalar_bits = ref::torch_rules::scalar_to_bits(value, c.arr.dtype());
  }
  bool nan_extreme = false;
  ExpectedTensor result = put_values(c, scalar_bits, op.arg_or_default(call, "include_self")->b, &nan_extreme, trace);
  if (nan_extreme) notes.push_back({"PD-PA2", "a NaN term of amin / amax: the result is NaN"});
  if (!op.in_place) notes.push_back({"PD-PA1", "out-of-place: out = a copy of arr, then the writes"});
  Expectation e = ref::outputs_expectation({std::move(result)}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-PA11";
    e.error_message = "arr dtype " + std::string(dtype_name(c.arr.dtype())) + " is not documented";
    e.notes.push_back({"PD-PA11", "undocumented arr dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
