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
#include "reference/output_shapes.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::Int32 || t == DType::Int64;
}

}  // namespace

Expectation paddle_index_select(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t r = x.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  const bool wraps = ref::rule_holds("PD-IS5", call.framework_version);
  ref::RuleLog log(trace);

  const bool axis_ok = log.check(axis_arg >= -r && axis_arg < r, "PD-IS2", "axis=" + str(axis_arg) + " in [-r, r)",
                                 ErrorCategory::DimOutOfRange, "Attr(dim) is out of range");
  const int64_t axis = axis_ok && axis_arg < 0 ? axis_arg + r : axis_arg;
  const bool index_1d = log.check(index.rank() == 1, "PD-IS3", "index.ndim=" + str(index.rank()) + " == 1",
                                  ErrorCategory::InvalidArgument, "The 'shape' of Input(Index) must be 1-D tensor");
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-IS4", "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, "Input(Index) holds the wrong type, it desires to be int32 or int64");
  bool negative = false;
  const int64_t size = axis_ok ? x.size(axis) : 0;
  if (axis_ok && index_1d && ref::index_values_readable(index)) {
    for (int64_t i = 0; i < index.size(0); ++i) {
      const int64_t v = ref::read_index(index, {i});
      if (!log.check((v >= -size || !wraps) && v < size, "PD-IS5",
                     "index[" + str(i) + "]=" + str(v) + " in [-" + str(size) + ", " + str(size) + ")",
                     ErrorCategory::IndexOutOfBounds,
                     "Variable value (index) of OP(index_select) expected >= " + str(wraps ? -size : 0) + " and < " +
                         str(size) + ", but got " + str(v)))
        break;
      negative = negative || v < 0;
    }
  }
  const bool documented = dtype_documented(x.dtype());
  std::vector<Note> notes;
  if (r > 8) notes.push_back({"PD-IS7", "an x of rank " + str(r) + ": the page states no limit"});
  if (x.dtype() == DType::Float16) notes.push_back({"PD-IS8", "a documented float16 x"});
  if (x.numel() == 0 || index.numel() == 0)
    notes.push_back({"PD-IS9", "an operand without elements: every rule still applies"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative && !wraps)
    return ref::unspecified_expectation("PD-IS5: a negative index value before Paddle 3.0 (PR #68780)", trace);

  // out[..., i, ...] = x[..., index[i], ...]
  const Shape out_shape = *shape_rules::index_length_along_dim(op, call, x);
  OutputBuilder out("out", Tensor::zeros(x.dtype(), out_shape), trace);
  if (checked_numel(out_shape) > 0) {
    Shape p(out_shape.size(), 0);
    do {
      const int64_t i = p[static_cast<size_t>(axis)];
      const ref::IndexPosition ip{{i}, {i}, ref::read_index(index, {i})};
      Shape at = p;
      at[static_cast<size_t>(axis)] = ip.value < 0 ? ip.value + size : ip.value;  // PD-IS5 wraps
      out.overwrite(p, x.bits_at(at), ref::read_from(ip, "x", x, at));
    } while (next_index(p, out_shape));
  }
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-IS6";
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " is not documented";
    e.notes.push_back({"PD-IS6", "undocumented x dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
