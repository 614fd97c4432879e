// paddle_gather.cc — paddle.gather(x, index, axis=None) -> out (the
// original paddle.gather; 3.3.1's PyTorch-compatible overload
// gather(input, dim, index), a take_along_axis, is not modelled).
//
// Formula ("Output is obtained by gathering entries of axis of x indexed by
// index and concatenate them together"; PD-GA1), axis 0:
//   1-D index: out[i, ...] = x[index[i], ...]   (x's shape, axis of len(index))
//   0-d index: out[...] = x[index, ...]         ("the output will reduce the
//                                                dimension where the axis pointing")
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-GA2  axis (None: 0) in [-r, r), r = x.ndim ("rank>=1": a 0-d x has
//           none)                                           (dim_out_of_range)
//   PD-GA3  index has rank 0 or 1                           (invalid_argument)
//   PD-GA4  index dtype int32 or int64                      (index_dtype)
//   PD-GA5  every index value < S = x.shape[axis] and, from Paddle 3.0,
//           >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S, before a
//           negative value makes the call unspecified
//   PD-GA6  x dtype documented on CPU (int32, int64, float32, float64,
//           uint8; float16 is GPU only, complex not modelled); another
//           allows both the result and unsupported_dtype
// Notes (campaign expectation entries key by them): an x or index with no
// element (PD-GA7: every rule still applies), an x of rank above 8 (PD-GA8).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/gather_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring: its text example and code
// example); where silent, PaddlePaddle 3.3.1 CPU measured (SEMANTICS.md PD-GA*).
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/output_shapes.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Int32 || t == DType::Int64 || t == DType::Float32 || t == DType::Float64 || t == DType::UInt8;
}

}  // namespace

Expectation paddle_gather(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t r = x.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  const bool wraps = ref::rule_holds("PD-GA5", call.framework_version);
  ref::RuleLog log(trace);

  const bool axis_ok = log.check(axis_arg >= -r && axis_arg < r, "PD-GA2", "axis=" + str(axis_arg) + " in [-r, r)",
                                 ErrorCategory::DimOutOfRange, "Attr(axis) is out of range");
  const int64_t axis = axis_ok && axis_arg < 0 ? axis_arg + r : axis_arg;
  const bool index_ok = log.check(index.rank() <= 1, "PD-GA3", "index.ndim=" + str(index.rank()) + " is 0 or 1",
                                  ErrorCategory::InvalidArgument, "The index input tensor with rank=0 or rank=1");
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-GA4", "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, "The data type of Input(Index) of gather must be int32 or int64");
  bool negative = false;
  const int64_t size = axis_ok ? x.size(axis) : 0;
  if (axis_ok && index_ok && ref::index_values_readable(index)) {
    for (int64_t i = 0; i < index.numel(); ++i) {
      const int64_t v = ref::read_index(index, index.rank() == 0 ? Shape{} : Shape{i});
      if (!log.check((v >= -size || !wraps) && v < size, "PD-GA5",
                     "index[" + str(i) + "]=" + str(v) + " in [-" + str(size) + ", " + str(size) + ")",
                     ErrorCategory::IndexOutOfBounds, "The element of Index must be in range, but received " + str(v)))
        break;
      negative = negative || v < 0;
    }
  }
  const bool documented = dtype_documented(x.dtype());
  std::vector<Note> notes;
  if (x.numel() == 0 || index.numel() == 0)
    notes.push_back({"PD-GA7", "an operand without elements: every rule still applies"});
  if (r > 8) notes.push_back({"PD-GA8", "an x of rank " + str(r) + ": the page states no limit"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative && !wraps)
    return ref::unspecified_expectation("PD-GA5: a negative index value before Paddle 3.0 (PR #68780)", trace);

  // out[..., i, ...] = x[..., index[i], ...] (a 0-d index: no i, axis dropped)
  const Shape out_shape = *shape_rules::gather_along_axis(op, call, x);
  OutputBuilder out("out", Tensor::zeros(x.dtype(), out_shape), trace);
  if (checked_numel(out_shape) > 0) {
    Shape p(out_shape.size(), 0);
    do {
      Shape at = p;
      const int64_t i = index.rank() == 0 ? 0 : p[static_cast<size_t>(axis)];
      const Shape ipos = index.rank() == 0 ? Shape{} : Shape{i};
      const ref::IndexPosition ip{ipos, {i}, ref::read_index(index, ipos)};
      const int64_t row = ip.value < 0 ? ip.value + size : ip.value;  // PD-GA5 wraps
      if (index.rank() == 0)
        at.insert(at.begin() + axis, row);
      else
        at[static_cast<size_t>(axis)] = row;
      out.overwrite(p, x.bits_at(at), ref::read_from(ip, "x", x, at));
    } while (next_index(p, out_shape));
  }
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-GA6";
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " is not documented on CPU";
    e.notes.push_back({"PD-GA6", "undocumented x dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
