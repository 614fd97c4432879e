// paddle_gather_nd.cc — paddle.gather_nd(x, index) -> out.
//
// Formula ("output[(i_0, ..., i_{K-2})] = input[index[(i_0, ..., i_{K-2})]]";
// PD-GN1), Q = index.shape[-1]:
//   for idx in ndindex(index.shape[:-1]):
//     out[idx] = x[tuple(index[idx])]        # a slice x.shape[Q:] when Q < x.ndim
// out.shape = index.shape[:-1] + x.shape[Q:], out.dtype = x's. Q = 0 selects
// the whole of x at every position. The mechanics are ONNX GatherND's with
// no batch dims (reference/nd_slices.h).
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   PD-GN2  index.ndim > 1 ("The index input with rank > 1") (invalid_argument)
//   PD-GN3  index dtype int32 or int64                        (index_dtype)
//   PD-GN4  Q = index.shape[-1] <= x.ndim                     (shape_mismatch)
//   PD-GN5  every index[..., j] < s = x.shape[j] and, from Paddle 3.0, >= -s
//           (index_out_of_bounds); from 3.0 v < 0 is v + s, before a
//           negative value makes the call unspecified
//   PD-GN6  x dtype documented (bool, float16, float32, float64, int32,
//           int64); another allows both the result and unsupported_dtype
// Notes (campaign expectation entries key by them): a float16 x (PD-GN6:
// documented), an x or index with no element (PD-GN7: every rule still
// applies), an x of rank above 8 or an out of rank above 7 (PD-GN8).
// Visit order: the tuples row-major, then each slice row-major; every
// element of out is written once (exact bits: x's own, -0.0 and NaN payloads).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/gather_nd_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring: its three text cases and its
// code example; 2.6.2's docstring is the same); where silent, PaddlePaddle
// 3.3.1 and 2.6.2 CPU measured (SEMANTICS.md PD-GN*).
#include <algorithm>

#include "reference/nd_slices.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Bool || t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::Int32 ||
         t == DType::Int64;
}

}  // namespace

Expectation paddle_gather_nd(const OpCall& call, Trace* trace) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const bool wraps = ref::rule_holds("PD-GN5", call.framework_version);
  ref::RuleLog log(trace);

  const bool rank_ok = log.check(index.rank() > 1, "PD-GN2", "index.ndim=" + str(index.rank()) + " > 1",
                                 ErrorCategory::InvalidArgument, "The index input with rank > 1");
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, "PD-GN3", "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, "index's dtype should be int32, int64");
  bool negative = false;
  if (rank_ok) {
    const int64_t q = index.shape().back();
    const bool q_ok = log.check(q <= x.rank(), "PD-GN4", "index.shape[-1]=" + str(q) + " <= x.ndim=" + str(x.rank()),
                                ErrorCategory::ShapeMismatch, "index.shape[-1] <= input.rank");
    if (q_ok && ref::index_values_readable(index)) {
      namespace nd = ref::nd;
      const auto offender =
          nd::first_out_of_bounds(x.shape(), index, 0, wraps ? nd::Negatives::Wrap : nd::Negatives::Unchecked);
      log.check(!offender, "PD-GN5", offender.value_or("every index[..., j] in bounds of x.shape[j]"),
                ErrorCategory::IndexOutOfBounds, offender.value_or(""));
      negative = !offender && !wraps && nd::first_out_of_bounds(x.shape(), index, 0, nd::Negatives::Refused);
    }
  }
  const bool documented = dtype_documented(x.dtype());
  std::vector<Note> notes;
  if (x.numel() == 0 || index.numel() == 0)
    notes.push_back({"PD-GN7", "an operand without elements: every rule still applies"});
  if (x.dtype() == DType::Float16) notes.push_back({"PD-GN6", "a documented float16 x"});
  const int64_t out_rank = rank_ok ? index.rank() - 1 + x.rank() - std::min(index.shape().back(), x.rank()) : 0;
  if (x.rank() > 8 || out_rank > 7)
    notes.push_back({"PD-GN8", "an x of rank " + str(x.rank()) + ", an out of rank " + str(out_rank) +
                                   ": the page states no limit"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative)
    return ref::unspecified_expectation("PD-GN5: a negative index value before Paddle 3.0 (PR #68780)", trace);

  OutputBuilder out("out", Tensor::zeros(x.dtype(), ref::nd::slices_shape(x.shape(), index.shape(), 0)), trace);
  ref::nd::gather_slices(out, "x", x, ref::nd::index_tuples(x.shape(), index, 0), 0);
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = "PD-GN6";
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " is not documented";
    e.notes.push_back({"PD-GN6", "undocumented x dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
