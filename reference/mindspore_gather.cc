// mindspore_gather.cc — mindspore.ops.gather(input_params, input_indices,
// axis, batch_dims=0) -> out (slices of input_params along axis at the
// indices: numpy.take with batch dims).
//
// Formula (the page's picture and shape rule; clause MS-G1), b = batch_dims,
// a = axis (wrapped):
//   out.shape = input_params.shape[:a] + input_indices.shape[b:] +
//               input_params.shape[a + 1:]
//   out[p0..p(a-1), i(b)..i(S-1), q...] =
//       input_params[p0..p(a-1), input_indices[p0..p(b-1), i(b)..i(S-1)], q...]
// (the first b dims of both are batch dims, read at the same position).
//
// Checks, in the order they run (all run; every violation is collected; the
// index values whenever they can be read along a valid axis, C-1):
//   MS-G2  input_indices dtype int32 or int64 (TypeError)   (index_dtype)
//   MS-G3  axis in [-R, R), R = input_params' rank          (dim_out_of_range)
//   MS-G4  0 <= batch_dims <= input_indices' rank            (invalid_argument)
//   MS-G5  axis >= batch_dims                                (invalid_argument)
//   MS-G7  every index value in [0, input_params.shape[axis]): on CPU and GPU
//          an error ("CPU与GPU平台越界访问将会抛出异常"; RuntimeError,
//          index_out_of_bounds), on Ascend undefined ("返回结果是未定义的").
//          A negative value is outside: no wrapping. The reference answers
//          for CPU, the adapter's device.
// MS-G8: a bool input_params ("The data type of input_params cannot be
// `mindspore.bool`"; the r2.5 page said so of Ascend only) allows both the
// result and unsupported_dtype.
// What the page leaves undefined: MS-G6 input_params.shape[:b] !=
// input_indices.shape[:b] (the batch dims of the two disagree) makes the
// call unspecified, even where it also breaks a rule above.
// MS-G9 (a note): an input_params of rank above 8 (the page states no
// limit; campaigns key by it).
// Visit order: out positions row-major; each written once (exact bits, C-4).
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/ops/mindspore.ops.gather.html
// (r2.10; mindspore 2.10.0's docstring, which lists no exceptions: their
// types from the r2.5 page), SEMANTICS.md MS-G*.
#include <algorithm>

#include "reference/dialect_mindspore_elements.h"
#include "reference/op_call.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

namespace shape_rules {

// ops.gather's out shape (its entry's OutputShapeRule, in
// op_table_mindspore_elements.cc): input_params.shape[:axis] +
// input_indices.shape[batch_dims:] + input_params.shape[axis + 1:]; nullopt
// when an operand is missing, axis is outside [-R, R) or batch_dims outside
// [0, rank of input_indices].
std::optional<Shape> take_along_axis_batched(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* indices = call.tensor("input_indices");
  const std::optional<int64_t> axis = call.int_arg("axis");
  const std::optional<Arg> b = op.arg_or_default(call, "batch_dims");
  const int64_t R = of.rank();
  if (!indices || !axis || !b || *axis < -R || *axis >= R || b->i < 0 || b->i > indices->rank()) return std::nullopt;
  const int64_t a = *axis < 0 ? *axis + R : *axis;
  Shape shape(of.shape().begin(), of.shape().begin() + a);
  shape.insert(shape.end(), indices->shape().begin() + b->i, indices->shape().end());
  shape.insert(shape.end(), of.shape().begin() + a + 1, of.shape().end());
  return shape;
}

}  // namespace shape_rules

Expectation mindspore_gather(const OpCall& call, Trace* trace) {
  namespace rules = ref::mindspore_elements;
  const OpSpec& op = op_spec(call);
  const Tensor& params = *call.tensor("input_params");
  const Tensor& indices = *call.tensor("input_indices");
  const int64_t axis_arg = *call.int_arg("axis");
  const int64_t b = op.arg_or_default(call, "batch_dims")->i;
  const int64_t R = params.rank(), S = indices.rank();
  ref::RuleLog log(trace);

  rules::index_dtype_int32_or_int64(log, "MS-G2", "input_indices", indices);
  const std::optional<int64_t> axis = rules::dim_in_range(log, "MS-G3", "axis", axis_arg, R);
  const bool b_ok = log.check(
      b >= 0 && b <= S, "MS-G4",
      "batch_dims=" + std::to_string(b) + " in [0, " + std::to_string(S) + "] (input_indices' rank)",
      ErrorCategory::InvalidArgument, "batch_dims must be in [0, rank of input_indices], but got " + std::to_string(b));
  if (axis && b_ok)
    log.check(*axis >= b, "MS-G5", "axis=" + std::to_string(*axis) + " >= batch_dims=" + std::to_string(b),
              ErrorCategory::InvalidArgument, "axis must be greater than or equal to batch_dims");
  if (axis && ref::index_values_readable(indices)) {
    const int64_t s = params.size(*axis);
    const std::optional<std::string> bad = rules::first_outside(indices, "input_indices", 0, s);
    log.check(!bad, "MS-G7", bad.value_or("every index value in [0, s), s = " + std::to_string(s)),
              ErrorCategory::IndexOutOfBounds,
              "input_indices must be in [0, " + std::to_string(s) + "), but " + bad.value_or(""));
  }
  // MS-G6 wins over the listed errors the call also breaks (as MS-B1 does for Tensor.scatter_): the page
  // gives no rule, so a backend may compare the batch dims before or after any other rule.
  for (int64_t d = 0; b_ok && d < std::min(b, R); ++d)
    if (params.size(d) != indices.size(d))
      return ref::unspecified_expectation("MS-G6: batch dim " + std::to_string(d) + ": input_params.shape[" +
                                              std::to_string(d) + "]=" + std::to_string(params.size(d)) +
                                              " != input_indices.shape[" + std::to_string(d) +
                                              "]=" + std::to_string(indices.size(d)) + "; the page gives no rule",
                                          trace);
  std::vector<Note> notes;
  if (R > 8) notes.push_back({"MS-G9", "input_params of rank " + std::to_string(R) + ": the page states no limit"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    e.notes = std::move(notes);
    return e;
  }

  const Shape out_shape = *shape_rules::take_along_axis_batched(op, call, params);
  const int64_t a = *axis, k = S - b;  // out = params[:a] + indices[b:] + params[a+1:]
  OutputBuilder out("out", Tensor::zeros(params.dtype(), out_shape), trace);
  if (checked_numel(out_shape) > 0) {
    Shape p(out_shape.size(), 0);
    do {
      Shape ipos(p.begin(), p.begin() + b);  // the batch dims
      ipos.insert(ipos.end(), p.begin() + a, p.begin() + a + k);
      const int64_t v = ref::read_index(indices, ipos);
      Shape from(p.begin(), p.begin() + a);
      from.push_back(v);
      from.insert(from.end(), p.begin() + a + k, p.end());
      out.overwrite(p, params.bits_at(from), WriteOrigin{"input_params", &params, &from, &ipos, v});
    } while (next_index(p, out_shape));
  }
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (params.dtype() == DType::Bool) {  // MS-G8: "cannot be mindspore.bool"; the r2.5 page: on Ascend
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "MS-G8";
    e.error_message = "The data type of input_params cannot be mindspore.bool";
    e.notes.push_back({"MS-G8", "a bool input_params: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
