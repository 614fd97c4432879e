// paddle_index_add.cc — Tensor.index_add_(x, index, axis, value, alpha=1)
// (in place, writes x) and paddle.index_add(...) (out of place: out = a
// copy of x, then the same additions; x is unchanged).
//
// Formula ("Adds the elements of the input tensor with value tensor by
// selecting the indices in the order given in index"; PD-IA1), axis 0:
//   out[index[i], :, :] += alpha * value[i, :, :]
// alpha * value is one product rounded to value's dtype (Paddle computes
// `value * alpha` before the kernel), then one rounded add. Duplicates
// accumulate (a float element of >= 2 terms: any order).
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-IA2  axis in [-r, r), r = x.ndim (a 0-d x has none)   (dim_out_of_range)
//   PD-IA3  index is 1-D                                    (invalid_argument)
//   PD-IA4  index dtype int32 or int64                      (index_dtype)
//   PD-IA5  value dtype == x dtype                          (dtype_mismatch)
//   PD-IA6  value.ndim == x.ndim                            (rank_mismatch)
//   PD-IA7  value.shape[d] == x.shape[d] for d != axis and
//           value.shape[axis] == len(index)                 (shape_mismatch)
//   PD-IA10 alpha only from Paddle 3.3 (invalid_argument before)
//   PD-IA8  every index value < S = x.shape[axis] and, from Paddle 3.0,
//           >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S, before a
//           negative value makes the call unspecified
//   PD-IA9  x dtype documented (float16, float32, float64, int32, int64);
//           another allows both the result and unsupported_dtype
// Then: a bool alpha, a float alpha with an integer x, or one x's dtype
// cannot hold, is unspecified (PD-IA10: the page does not say how it
// converts); in place, an x with internal overlap is unspecified (PD-IA11).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/zh/api/paddle/index_add_cn.html
// (docs 3.x, with its two examples) and PaddlePaddle 3.3.1's docstring
// (alpha); the 2.6 page where it differs; where silent, 3.3.1 CPU measured.

#include <algorithm>

#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::Int32 || t == DType::Int64;
}

// alpha * v rounded to dtype t (integers wrap); `alpha` is already in t.
Value scaled(DType t, Value v, Value alpha) {
  if (is_floating(t)) return value_from_bits(t, bits_from_value(t, Value::of_float(v.f * alpha.f)));
  const uint64_t product = static_cast<uint64_t>(v.i) * static_cast<uint64_t>(alpha.i);  // wraps
  return value_from_bits(t, bits_from_value(t, Value::of_int(static_cast<int64_t>(product))));
}

// PD-IA2..PD-IA8 in order; *negative: a negative index value was read.
void check_call(ref::RuleLog& log, const OpCall& call, bool* negative) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &value = *call.tensor("value");
  const int64_t r = x.rank(), axis_arg = *call.int_arg("axis");
  const bool axis_ok = log.check(axis_arg >= -r && axis_arg < r, "PD-IA2", "axis=" + str(axis_arg) + " in [-r, r)",
                                 ErrorCategory::DimOutOfRange, "Attr(dim) is out of range");
  const int64_t axis = axis_ok && axis_arg < 0 ? axis_arg + r : axis_arg;
  const bool index_1d = log.check(index.rank() == 1, "PD-IA3", "index.ndim=" + str(index.rank()) + " == 1",
                                  ErrorCategory::InvalidArgument, "The 'shape' of Input(Index) must be 1-D tensor");
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-IA4", "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, "Input(Index) holds the wrong type, it desires to be int32 or int64");
  log.check(value.dtype() == x.dtype(), "PD-IA5", "value.dtype == x.dtype", ErrorCategory::DtypeMismatch,
            "the data type of value is the same as x");
  const bool ranks_ok = log.check(value.rank() == r, "PD-IA6", "value.ndim == x.ndim", ErrorCategory::RankMismatch,
                                  "The add_value must be the same dimension as x.");
  if (axis_ok && index_1d && ranks_ok) {
    bool fits = value.size(axis) == index.size(0);
    for (int64_t d = 0; d < r; ++d) fits = fits && (d == axis || value.size(d) == x.size(d));
    log.check(fits, "PD-IA7",
              "value.shape=" + format_shape(value.shape()) + " is x.shape=" + format_shape(x.shape()) +
                  " with axis replaced by len(index)=" + str(index.size(0)),
              ErrorCategory::ShapeMismatch, "value's dims equal x's apart from axis, its axis dim len(index)");
  }
  if (call.arg("alpha") && !ref::rule_holds("PD-IA10", call.framework_version))
    log.check(false, "PD-IA10", "index_add takes alpha (Paddle >= 3.3)", ErrorCategory::InvalidArgument,
              "index_add() got an unexpected keyword argument 'alpha'");
  if (!axis_ok || !index_1d || !ref::index_values_readable(index)) return;
  const int64_t size = x.size(axis);
  const bool wraps = ref::rule_holds("PD-IA8", call.framework_version);
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = ref::read_index(index, {i});
    if (!log.check((v >= -size || !wraps) && v < size, "PD-IA8",
                   "index[" + str(i) + "]=" + str(v) + " in [-" + str(size) + ", " + str(size) + ")",
                   ErrorCategory::IndexOutOfBounds,
                   "Variable value (index) of OP(index_add) expected >= " + str(wraps ? -size : 0) + " and < " +
                       str(size) + ", but got " + str(v)))
      return;
    *negative = *negative || v < 0;
  }
}

// The notes that name what a framework is known to read otherwise
// (campaign expectation entries key by them): an operand with no element
// (PD-IA12: every rule still applies), a rank above 8 (PD-IA13: the page
// states no limit), an alpha other than 1 (PD-IA10: Paddle computes
// value * alpha first, with its multiply kernel's dtypes and conversions).
std::vector<Note> rule_notes(const OpCall& call) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &value = *call.tensor("value");
  std::vector<Note> notes;
  if (x.numel() == 0 || index.numel() == 0 || value.numel() == 0)
    notes.push_back({"PD-IA12", "an operand without elements: every rule still applies"});
  if (std::max(x.rank(), value.rank()) > 8)
    notes.push_back({"PD-IA13", "an operand of rank above 8: the page states no limit"});
  if (const Arg* alpha = call.arg("alpha")) {
    const Scalar& a = alpha->scalar;
    const bool one = a.kind == Scalar::Kind::Int ? a.i == 1 : a.kind == Scalar::Kind::Float ? a.f == 1.0 : a.b;
    if (!one) notes.push_back({"PD-IA10", "alpha != 1: value is scaled before index_add (Paddle: value * alpha)"});
  }
  return notes;
}

}  // namespace

Expectation paddle_index_add(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &value = *call.tensor("value");
  const Scalar alpha = call.arg("alpha") ? call.arg("alpha")->scalar : Scalar::of_int(1);
  ref::RuleLog log(trace);
  bool negative = false;
  check_call(log, call, &negative);
  const bool documented = dtype_documented(x.dtype());
  std::vector<Note> notes = rule_notes(call);
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative && !ref::rule_holds("PD-IA8", call.framework_version))
    return ref::unspecified_expectation("PD-IA8: a negative index value before Paddle 3.0 (PR #68780)", trace);
  if (alpha.kind == Scalar::Kind::Bool || (alpha.kind == Scalar::Kind::Float && !is_floating(x.dtype())) ||
      ref::torch_rules::scalar_overflows(alpha, x.dtype()) ||
      ref::torch_rules::value_conversion_is_undefined(alpha, x.dtype()))
    return ref::unspecified_expectation("PD-IA10: alpha " + alpha.to_string() + " in " +
                                            std::string(dtype_name(x.dtype())) + ": the page says no conversion",
                                        trace);
  // Paddle scales value by alpha in value's dtype (`value * alpha`) before the kernel.
  const Value alpha_in_dtype = value_from_bits(x.dtype(), ref::torch_rules::scalar_to_bits(alpha, x.dtype()));
  if (op.in_place && x.has_internal_overlap())
    return ref::unspecified_expectation("PD-IA11: x " + x.describe() + " has internal overlap", trace);

  const int64_t axis = *call.int_arg("axis") < 0 ? *call.int_arg("axis") + x.rank() : *call.int_arg("axis");
  const int64_t size = x.size(axis);
  OutputBuilder out(op.output, x, trace);
  // out[..., index[i], ...] += alpha * value[..., i, ...]
  ref::for_each_slice_position(index, value, axis, [&](const ref::IndexPosition& p, const Shape& at, Shape target) {
    if (p.value < 0) target[static_cast<size_t>(axis)] += size;  // PD-IA8 wraps
    out.reduce(ref::physical_index(x, target), ReduceMode::Add, scaled(x.dtype(), value.value_at(at), alpha_in_dtype),
               ref::read_from(p, "value", value, at));
  });
  if (!op.in_place) notes.push_back({"PD-IA1", "out-of-place: out = a copy of x, then the additions"});
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-IA9";
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " is not documented";
    e.notes.push_back({"PD-IA9", "undocumented x dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
