// paddle_take_along_axis.cc — paddle.take_along_axis(arr, indices, axis,
// broadcast=True) -> out.
//
// Formula ("Take values from the input array by given indices matrix along
// the designated axis"; PD-TA1), for a 2-D arr and axis 0:
//   out[i][j] = arr[indices[i][j]][j]
// over every position of out. broadcast=True (PD-TA5): out's shape is arr's
// and indices' broadcast against each other apart from axis (equal sizes,
// or one of them 1), indices' size along axis; both are read broadcast.
// broadcast=False (PD-TA6): out has indices' shape, arr is read at out's
// positions apart from axis.
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-TA2  indices.ndim == arr.ndim                         (rank_mismatch)
//   PD-TA3  axis in [-r, r), r = arr.ndim (a 0-d arr has none) (dim_out_of_range)
//   PD-TA4  indices dtype int32 or int64                    (index_dtype)
//   PD-TA5  broadcast=True: every d != axis has equal sizes or a 1 (shape_mismatch)
//   PD-TA6  broadcast=False: indices.shape[d] <= arr.shape[d] for d != axis (shape_mismatch)
//   PD-TA7  every index value out reads is < S = arr.shape[axis], and from
//           Paddle 3.0 >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S,
//           before a negative value makes the call unspecified
//   PD-TA8  arr dtype documented (3.x: bfloat16, float16, float32, float64,
//           int32, int64, uint8; 2.6: float32, float64); another dtype allows
//           both the result and unsupported_dtype
// Answers cite a half-precision arr (PD-TA8) and a rank above 8 (PD-TA2:
// Paddle's broadcast stops at 8 dims, its tensors at 9) as notes: campaign
// expectation entries key by them.
// Visit order: out's positions in row-major order (a gather: no duplicates
// matter). Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/take_along_axis_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring) and the 2.6 page; where silent,
// PaddlePaddle 3.3.1 CPU measured (reference/SEMANTICS.md, PD-TA*).
#include <algorithm>

#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/output_shapes.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t, const std::string& version) {
  if (t == DType::Float32 || t == DType::Float64) return true;
  return (t == DType::BFloat16 || t == DType::Float16 || t == DType::Int32 || t == DType::Int64 || t == DType::UInt8) &&
         ref::rule_holds("PD-TA8", version);
}

// The position of an operand of shape `s` (out's rank) that out's position
// `p` reads: 0 in its size-1 dims that out broadcasts, `along` at `axis`.
Shape read_position(const Shape& s, const Shape& p, int64_t axis, int64_t along) {
  Shape at(s.size());
  for (size_t d = 0; d < s.size(); ++d) at[d] = s[d] == 1 ? 0 : p[d];
  at[static_cast<size_t>(axis)] = along;
  return at;
}

// The result of a valid call: out[p] = arr[p with axis := indices[p]], both
// read broadcast; an undocumented arr dtype also allows unsupported_dtype (PD-TA8).
Expectation gathered(const Tensor& arr, const Tensor& indices, int64_t axis, int64_t size, const Shape& out_shape,
                     std::vector<Note> notes, bool documented, Trace* trace) {
  const Tensor empty = Tensor::zeros(arr.dtype(), out_shape);
  OutputBuilder out("out", empty, trace);
  if (checked_numel(out_shape) > 0) {
    Shape p(out_shape.size(), 0);
    do {
      const Shape at_index = read_position(indices.shape(), p, axis, p[static_cast<size_t>(axis)]);
      const ref::IndexPosition ip{at_index, at_index, ref::read_index(indices, at_index)};
      const Shape at = read_position(arr.shape(), p, axis, ip.value < 0 ? ip.value + size : ip.value);
      out.overwrite(p, arr.bits_at(at), ref::read_from(ip, "arr", arr, at));
    } while (next_index(p, out_shape));
  }
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-TA8";
    e.error_message = "arr dtype " + std::string(dtype_name(arr.dtype())) + " is not documented";
    e.notes.push_back({"PD-TA8", "undocumented arr dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace

Expectation paddle_take_along_axis(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor& arr = *call.tensor("arr");
  const Tensor& indices = *call.tensor("indices");
  const bool broadcast = op.arg_or_default(call, "broadcast")->b;
  const bool negatives_wrap = ref::rule_holds("PD-TA7", call.framework_version);
  const int64_t r = arr.rank(), axis_arg = *call.int_arg("axis");
  ref::RuleLog log(trace);

  const bool ranks_ok =
      log.check(indices.rank() == r, "PD-TA2", "indices.ndim=" + str(indices.rank()) + " == arr.ndim=" + str(r),
                ErrorCategory::RankMismatch, "`indices` and `arr` must have the same number of dimensions!");
  const bool axis_ok =
      log.check(axis_arg >= -r && axis_arg < r, "PD-TA3", "axis=" + str(axis_arg) + " in [-r, r)",
                ErrorCategory::DimOutOfRange, "'axis'  must be in the range of [-" + str(r) + ", " + str(r) + ")");
  const int64_t axis = axis_ok && axis_arg < 0 ? axis_arg + r : axis_arg;
  const DType it = indices.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-TA4", "indices.dtype is int32 or int64",
            ErrorCategory::IndexDtype,
            "The data type of indices should be one of ['int32', 'int64'], but got " + std::string(dtype_name(it)));
  std::optional<Shape> out_shape;
  if (ranks_ok && axis_ok) {
    out_shape = shape_rules::along_axis(op, call, arr);
    bool fits = true;
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && indices.size(d) > arr.size(d)) fits = false;
    if (broadcast)
      log.check(out_shape.has_value(), "PD-TA5",
                "indices " + format_shape(indices.shape()) + " and arr " + format_shape(arr.shape()) +
                    " broadcast apart from axis",
                ErrorCategory::ShapeMismatch, "indices and arr must broadcast against each other apart from axis");
    else
      log.check(fits, "PD-TA6", "indices within arr apart from axis", ErrorCategory::ShapeMismatch,
                "Size does not match: expected index " + format_shape(indices.shape()) + " to be smaller than self " +
                    format_shape(arr.shape()) + " apart from dimension " + str(axis));
  }
  const int64_t size = ranks_ok && axis_ok ? arr.size(axis) : 0;
  bool negative = false;
  if (out_shape && ref::index_values_readable(indices) && checked_numel(*out_shape) > 0) {
    Shape p(out_shape->size(), 0);
    do {  // the index values out reads (PD-TA7)
      const Shape at = read_position(indices.shape(), p, axis, p[static_cast<size_t>(axis)]);
      const int64_t v = ref::read_index(indices, at);
      if (!log.check((v >= -size || !negatives_wrap) && v < size, "PD-TA7",
                     "indices" + format_shape(at) + "=" + str(v) + " in [-" + str(size) + ", " + str(size) + ")",
                     ErrorCategory::IndexOutOfBounds, "index " + str(v) + " is out of bounds for size " + str(size)))
        break;
      negative = negative || v < 0;
    } while (next_index(p, *out_shape));
  }
  const bool documented = dtype_documented(arr.dtype(), call.framework_version);
  std::vector<Note> notes;
  if (arr.dtype() == DType::BFloat16 || arr.dtype() == DType::Float16)
    notes.push_back({"PD-TA8", "a documented half-precision arr dtype (3.0)"});
  if (std::max(r, indices.rank()) > 8)
    notes.push_back(
        {"PD-TA2", "an operand of rank " + str(std::max(r, indices.rank())) + ": the page states no limit"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative && !negatives_wrap)
    return ref::unspecified_expectation("PD-TA7: a negative index value before Paddle 3.0 (PR #68780)", trace);

  return gathered(arr, indices, axis, size, *out_shape, std::move(notes), documented, trace);
}

}  // namespace sp
