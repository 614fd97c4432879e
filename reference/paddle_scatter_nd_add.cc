// paddle_scatter_nd_add.cc — paddle.scatter_nd_add(x, index, updates) -> out.
//
// Formula ("add the corresponding updates slice to the x slice which is
// obtained by the last one dimension of index"; PD-SNA1), Q = index.shape[-1]:
//   out = copy of x
//   for idx in ndindex(index.shape[:-1]):
//     out[tuple(index[idx])] += updates[idx]   # a slice x.shape[Q:] when Q < x.ndim
// A repeated tuple adds every one of its updates (the page's Case 1: index
// [1] twice gives 1 + 9 + 12 = 22); the order of the additions is not
// stated (scatter_nd's page: "the different order of repeated elements in
// index may cause different results"), so a float element of >= 2 adds is
// an interval (reference/float_bounds.h); integers wrap. Q = 0 adds every
// updates slice to the whole of x (Case 2). The mechanics are ONNX
// ScatterND's with reduction "add" (reference/nd_slices.h).
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   PD-SNA2  updates dtype == x dtype                           (dtype_mismatch)
//   PD-SNA3  index.ndim > 1 ("The index input with ndim > 1")   (invalid_argument)
//   PD-SNA4  index dtype int32 or int64                         (index_dtype)
//   PD-SNA5  Q <= x.ndim                                        (shape_mismatch)
//   PD-SNA6  updates.shape == index.shape[:-1] + x.shape[Q:]    (rank_mismatch
//            for another rank, else shape_mismatch)
//   PD-SNA7  every index[..., j] < s = x.shape[j] and, from Paddle 3.0,
//            >= -s (index_out_of_bounds); from 3.0 v < 0 is v + s, before a
//            negative value makes the call unspecified
//   PD-SNA8  x dtype documented (int32, int64, float32, float64); another
//            allows both the result and unsupported_dtype
// Notes (campaign expectation entries key by them): an operand with no
// element (PD-SNA9: every rule still applies), Q = 0 (PD-SNA10), a rank
// above 8 (PD-SNA11), a 0-d updates (PD-SNA12).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/scatter_nd_add_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring: its two text cases and its
// code example; 2.6.2's is the same); where silent, PaddlePaddle 3.3.1,
// 3.0.0 and 2.6.2 CPU measured (SEMANTICS.md PD-SNA*).
#include "reference/nd_slices.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/paddle_nd_add.h"
#include "reference/versions.h"

namespace sp {
namespace ref::paddle_nd {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The shape checks (tuple length, updates' shape) and the bounds; whether a
// negative value makes the call unspecified (before the versioned rule).
bool check_against_base(RuleLog& log, const Shape& dims, const Tensor& index, const Tensor& updates,
                        const NdAddClauses& c, bool wraps) {
  const int64_t q = index.shape().back(), r = static_cast<int64_t>(dims.size());
  if (!log.check(q <= r, c.tuple_length, "index.shape[-1]=" + str(q) + " <= " + c.base_name + " rank " + str(r),
                 ErrorCategory::ShapeMismatch, std::string("index.shape[-1] <= ") + c.base_name + "'s rank"))
    return false;
  const Shape want = nd::slices_shape(dims, index.shape(), 0);
  log.check(
      updates.shape() == want, c.updates_shape,
      "updates.shape=" + format_shape(updates.shape()) + " == index.shape[:-1] + " + c.base_name +
          "[Q:]=" + format_shape(want),
      updates.rank() == static_cast<int64_t>(want.size()) ? ErrorCategory::ShapeMismatch : ErrorCategory::RankMismatch,
      "updates must have the shape index.shape[:-1] + " + std::string(c.base_name) +
          "[index.shape[-1]:] = " + format_shape(want));
  if (!index_values_readable(index)) return false;
  const auto offender = nd::first_out_of_bounds(dims, index, 0, wraps ? nd::Negatives::Wrap : nd::Negatives::Unchecked);
  log.check(!offender, c.bounds, offender.value_or("every index[..., j] in bounds"), ErrorCategory::IndexOutOfBounds,
            offender.value_or(""));
  return !offender && !wraps && nd::first_out_of_bounds(dims, index, 0, nd::Negatives::Refused).has_value();
}

}  // namespace

Expectation add_slices(const OpCall& call, RuleLog& log, const std::optional<Tensor>& base, int64_t base_rank,
                       const Tensor& index, const Tensor& updates, bool documented, const NdAddClauses& c,
                       Trace* trace) {
  const bool wraps = rule_holds(c.bounds, call.framework_version);
  const bool rank_ok = log.check(index.rank() >= c.min_index_rank, c.index_rank,
                                 "index.ndim=" + str(index.rank()) + " >= " + str(c.min_index_rank),
                                 ErrorCategory::InvalidArgument, c.index_rank_text);
  const DType it = index.dtype();
  log.check(it == DType::Int32 || it == DType::Int64, c.index_dtype, "index.dtype is int32 or int64",
            ErrorCategory::IndexDtype, "index's dtype should be int32 or int64");
  const bool negative = base && rank_ok && check_against_base(log, base->shape(), index, updates, c, wraps);
  std::vector<Note> notes;
  if ((base && base->numel() == 0) || index.numel() == 0 || updates.numel() == 0)
    notes.push_back({c.empty, "an operand without elements: every rule still applies"});
  if (index.rank() >= 1 && index.shape().back() == 0)
    notes.push_back({c.whole, "Q = 0: every index tuple addresses the whole of " + std::string(c.base_name)});
  if (base_rank > 8 || updates.rank() > 8) notes.push_back({c.rank, "a rank above 8: the page states no limit"});
  if (updates.rank() == 0) notes.push_back({c.scalar_updates, "a 0-d updates (index ndim " + str(index.rank()) + ")"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    e.notes = std::move(notes);
    return e;
  }
  if (negative)
    return unspecified_expectation(std::string(c.bounds) + ": a negative index value before Paddle 3.0 (PR #68780)",
                                   trace);
  OutputBuilder out("out", *base, trace);
  nd::scatter_slices(out, ReduceMode::Add, updates, nd::index_tuples(base->shape(), index, 0), base->shape(),
                     index.shape().back());
  notes.push_back({c.formula, "duplicates accumulate; the order of the adds is free (float: an interval)"});
  Expectation e = outputs_expectation({out.finish()}, std::move(notes));
  if (!documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_clause = c.dtype;
    e.error_message = "dtype " + std::string(dtype_name(updates.dtype())) + " is not documented";
    e.notes.push_back({c.dtype, "undocumented dtype: the result and unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace ref::paddle_nd

Expectation paddle_scatter_nd_add(const OpCall& call, Trace* trace) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &updates = *call.tensor("updates");
  static const ref::paddle_nd::NdAddClauses kClauses{.formula = "PD-SNA1",
                                                     .index_rank = "PD-SNA3",
                                                     .min_index_rank = 2,
                                                     .index_rank_text = "The index input with ndim > 1",
                                                     .index_dtype = "PD-SNA4",
                                                     .tuple_length = "PD-SNA5",
                                                     .updates_shape = "PD-SNA6",
                                                     .bounds = "PD-SNA7",
                                                     .dtype = "PD-SNA8",
                                                     .empty = "PD-SNA9",
                                                     .whole = "PD-SNA10",
                                                     .rank = "PD-SNA11",
                                                     .scalar_updates = "PD-SNA12",
                                                     .base_name = "x"};
  ref::RuleLog log(trace);
  log.check(
      updates.dtype() == x.dtype(), "PD-SNA2",
      "updates.dtype=" + std::string(dtype_name(updates.dtype())) + " == x.dtype=" + std::string(dtype_name(x.dtype())),
      ErrorCategory::DtypeMismatch, "updates must have the same dtype as x");
  const DType t = x.dtype();
  const bool documented = t == DType::Int32 || t == DType::Int64 || t == DType::Float32 || t == DType::Float64;
  return ref::paddle_nd::add_slices(call, log, x, x.rank(), index, updates, documented, kClauses, trace);
}

}  // namespace sp
