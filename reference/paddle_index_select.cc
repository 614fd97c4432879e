// paddle_index_select.cc — paddle.index_select(x, index, axis=0) -> out.
//
// Formula ("Returns a new tensor which indexes the input tensor along
// dimension axis using the entries in index"; PD-IS1), axis 0:
//   out[i, :, :] = x[index[i], :, :]
// out has x's rank and dtype, x's shape with axis replaced by len(index).
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-IS2  axis in [-r, r), r = x.ndim (a 0-d x has none)   (dim_out_of_range)
//   PD-IS3  index is 1-D                                    (invalid_argument)
//   PD-IS4  index dtype int32 or int64                      (index_dtype)
//   PD-IS5  every index value < S = x.shape[axis] and, from Paddle 3.0,
//           >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S, before a
//           negative value makes the call unspecified
//   PD-IS6  x dtype documented (float16, float32, float64, int32, int64;
//           complex64/128 are not modelled); another allows both the result
//           and unsupported_dtype
// Notes name what a framework is known to read otherwise (campaign
// expectation entries key by them): an x of rank above 8 (PD-IS7: the page
// states no limit), a float16 x (PD-IS8: documented), an x or index with
// no element (PD-IS9: every rule still applies).
// Visit order: i = 0 .. len(index)-1, each slice row-major.
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/index_select_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring and its two examples) and the
// 2.6 page; where silent, PaddlePaddle 3.3.1 CPU measured (SEMANTICS.md PD-IS*).
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/paddle_select.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::Int32 || t == DType::Int64;
}

std::string bounds_message(int64_t v, int64_t size, bool wraps) {
  return "Variable value (index) of OP(index_select) expected >= " + str(wraps ? -size : 0) + " and < " + str(size) +
         ", but got " + str(v);
}

constexpr ref::paddle_select::SelectClauses kClauses{
    .clause = {"PD-IS2", "PD-IS3", "PD-IS4", "PD-IS5", "PD-IS6"},
    .message = {"Attr(dim) is out of range", "The 'shape' of Input(Index) must be 1-D tensor",
                "Input(Index) holds the wrong type, it desires to be int32 or int64", bounds_message,
                "is not documented"}};

}  // namespace

namespace ref::paddle_select {

Expectation select_along_axis(const OpCall& call, const SelectClauses& c, bool zero_d_index, bool documented,
                              std::vector<Note> notes, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t r = x.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  const bool wraps = rule_holds(c.clause.bounds, call.framework_version);
  RuleLog log(trace);

  const bool axis_ok = log.check(axis_arg >= -r && axis_arg < r, c.clause.axis, "axis=" + str(axis_arg) + " in [-r, r)",
                                 ErrorCategory::DimOutOfRange, c.message.axis);
  const int64_t axis = axis_ok && axis_arg < 0 ? axis_arg + r : axis_arg;
  const bool index_ok = log.check(zero_d_index ? index.rank() <= 1 : index.rank() == 1, c.clause.index_rank,
                                  "index.ndim=" + str(index.rank()) + (zero_d_index ? " is 0 or 1" : " == 1"),
                                  ErrorCategory::InvalidArgument, c.message.index_rank);
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, c.clause.index_dtype, "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, c.message.index_dtype);
  bool negative = false;
  const int64_t size = axis_ok ? x.size(axis) : 0;
  if (axis_ok && index_ok && index_values_readable(index)) {
    for (int64_t i = 0; i < index.numel(); ++i) {  // a 1-D index's numel is its length
      const int64_t v = read_index(index, index.rank() == 0 ? Shape{} : Shape{i});
      if (!log.check((v >= -size || !wraps) && v < size, c.clause.bounds,
                     "index[" + str(i) + "]=" + str(v) + " in [-" + str(size) + ", " + str(size) + ")",
                     ErrorCategory::IndexOutOfBounds, c.message.bounds(v, size, wraps)))
        break;
      negative = negative || v < 0;
    }
  }
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative && !wraps)
    return unspecified_expectation(
        std::string(c.clause.bounds) + ": a negative index value before Paddle 3.0 (PR #68780)", trace);

  // out[..., i, ...] = x[..., index[i], ...] (a 0-d index: no i, axis dropped)
  const Shape out_shape = *op.output_shape.shape(op, call, x);
  OutputBuilder out("out", Tensor::zeros(x.dtype(), out_shape), trace);
  if (checked_numel(out_shape) > 0) {
    Shape p(out_shape.size(), 0);
    do {
      Shape at = p;
      const int64_t i = index.rank() == 0 ? 0 : p[static_cast<size_t>(axis)];
      const Shape ipos = index.rank() == 0 ? Shape{} : Shape{i};
      const IndexPosition ip{ipos, {i}, read_index(index, ipos)};
      const int64_t row = ip.value < 0 ? ip.value + size : ip.value;  // the bounds clause wraps
      if (index.rank() == 0)
        at.insert(at.begin() + axis, row);
      else
        at[static_cast<size_t>(axis)] = row;
      out.overwrite(p, x.bits_at(at), read_from(ip, "x", x, at));
    } while (next_index(p, out_shape));
  }
  Expectation e = outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = c.clause.dtype;
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " " + c.message.dtype;
    e.notes.push_back({c.clause.dtype, "undocumented x dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace ref::paddle_select

Expectation paddle_index_select(const OpCall& call, Trace* trace) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  std::vector<Note> notes;
  if (x.rank() > 8) notes.push_back({"PD-IS7", "an x of rank " + str(x.rank()) + ": the page states no limit"});
  if (x.dtype() == DType::Float16) notes.push_back({"PD-IS8", "a documented float16 x"});
  if (x.numel() == 0 || index.numel() == 0)
    notes.push_back({"PD-IS9", "an operand without elements: every rule still applies"});
  return ref::paddle_select::select_along_axis(call, kClauses, /*zero_d_index=*/false, dtype_documented(x.dtype()),
                                               std::move(notes), trace);
}

}  // namespace sp
