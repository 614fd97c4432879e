// paddle_scatter.cc — paddle.scatter(x, index, updates, overwrite=True) -> out.
// Out of place: out starts as a copy of x; x is unchanged.
//
// Formula (seed 004, the "calculation" listing; clauses PD-F1, PD-F2):
//   if not overwrite:
//       for i in range(len(index)): out[index[i]] = zeros      # PD-F2
//   for i in range(len(index)):
//       if overwrite: out[index[i]]  = updates[i]             # PD-F1
//       else:         out[index[i]] += updates[i]             # PD-F2
// Rows are addressed along dim 0; x's old value of an indexed row never
// enters the accumulate-mode result. Rows never indexed keep their bits.
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-X1  x.ndim >= 1                                  (invalid_argument)
//   PD-I1  index is 1-D                                 (invalid_argument)
//          PD-I3: an [N, 1] index allows both that error and the call with
//          its N values (Paddle's extension)
//   PD-I2  index dtype int32 or int64                   (index_dtype)
//   PD-T1  x dtype float32/float64 as documented; another dtype allows
//          both the computed result and unsupported_dtype
//   PD-K1  updates dtype == x dtype                     (dtype_mismatch)
//   PD-S1  updates.shape == [n] + x.shape[1:], n >= len(index)  (shape_mismatch);
//          only updates' first len(index) rows are read
//   PD-B1  (when the above pass) no index value >= x.shape[0]
//   PD-B3  Paddle >= 3.0 only (reference/versions.h): no index value
//          < -x.shape[0]; a value v in [-x.shape[0], 0) is row v + x.shape[0]
// Then, before Paddle 3.0 and for the undated seed (the baseline), PD-B2: a
// negative index value makes the call unspecified.
// Note PD-X2 (campaign expectation entries key by it): an operand of rank
// 10 or more, which 004 does not limit.
// Visit order: i = 0 .. len(index)-1, each row in row-major order.
// Duplicates (NOTICE: "nondeterministic", PD-U1): overwrite mode allows any
// writer (004: CPU last writer [[3,3],[4,4],[1,1]], GPU also
// [[3,3],[2,2],[1,1]]); accumulate mode allows any summation order.
#include <algorithm>
#include <functional>

#include "reference/dialect_paddle.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/reference.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {

Expectation paddle_scatter(const OpCall& call, Trace* trace);

namespace {

// PD-I3: an [N, 1] index. 004 says 1-D (PD-I1); Paddle reads it as its N
// values (ScatterInferMeta: "The last dim of the index should be 1 when the
// index is a 2D tensor"). Either answer is allowed.
Expectation n_by_one_index(const OpCall& call, const Tensor& index, Trace* trace) {
  OpCall as_1d = call;
  as_1d.tensors["index"] =
      Tensor::view(index.dtype(), {index.size(0)}, {index.stride(0)}, index.offset(), index.storage());
  Expectation e = paddle_scatter(as_1d, trace);
  if (e.unspecified) return e;
  e.allow_error(ErrorCategory::InvalidArgument, "PD-I3", "index must be a 1-D tensor, but got ndim 2");
  e.notes.push_back({"PD-I3",
                     "an [N, 1] index: 004's 1-D rule (invalid_argument) or Paddle's reading of it as its N "
                     "values, both allowed"});
  return e;
}

}  // namespace

Expectation paddle_scatter(const OpCall& call, Trace* trace) {
  namespace rules = ref::paddle_rules;
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  const bool overwrite = op_spec(call).arg_or_default(call, "overwrite")->b;  // default True
  if (index.rank() == 2 && index.size(1) == 1) return n_by_one_index(call, index, trace);
  ref::RuleLog log(trace);

  const bool x_rank_ok = rules::x_rank_at_least_one(log, x);
  const bool index_1d = rules::index_is_1d(log, index);
  rules::index_dtype_supported(log, index);
  const bool dtype_documented = rules::x_dtype_documented(log, x);
  rules::updates_dtype_matches(log, x, updates);
  if (x_rank_ok && index_1d) rules::updates_shape_matches(log, x, index, updates);
  // Paddle >= 3.0 wraps negative values (PD-B3); before, 004's silence on
  // them makes the call unspecified (PD-B2).
  const bool negatives_wrap = ref::rule_holds("PD-B3", call.framework_version);
  // The bounds rules run whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them); PD-B1 and
  // PD-B3 read the index as 1-D.
  if (x_rank_ok && index_1d && ref::index_values_readable(index)) {
    const bool below = rules::index_values_below_length(log, index, x.size(0));
    if (below && negatives_wrap) rules::index_values_at_least_minus_length(log, index, x.size(0));
  }
  const std::optional<Note> rank_note = rules::rank_ten_note({&x, &index, &updates});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (!dtype_documented) e.allow_error(ErrorCategory::UnsupportedDtype);
    if (rank_note) e.notes.push_back(*rank_note);
    return e;
  }
  if (!negatives_wrap)
    if (const auto reason = rules::negative_index_value(index)) return ref::unspecified_expectation(*reason, trace);

  OutputBuilder out("out", x, trace);
  const Shape row_shape(x.shape().begin() + 1, x.shape().end());
  // Calls `visit(target, at)` for every element of row index[i] of out
  // (target) and of row i of updates (at). Rows with no elements: none.
  const auto for_each_row_element = [&](const ref::IndexPosition& p,
                                        const std::function<void(const Shape&, const Shape&)>& visit) {
    if (checked_numel(row_shape) == 0) return;
    Shape rest(row_shape.size(), 0);
    do {
      Shape target{p.value < 0 ? p.value + x.size(0) : p.value}, at{p.pos[0]};  // PD-B3 wraps
      target.insert(target.end(), rest.begin(), rest.end());
      at.insert(at.end(), rest.begin(), rest.end());
      visit(target, at);
    } while (next_index(rest, row_shape));
  };
  if (!overwrite) {
    // out[index[i]] = zeros  (first, for every i)
    ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
      for_each_row_element(p, [&](const Shape& target, const Shape&) { out.reset_to_zero(target); });
    });
    log.note("every indexed row of out is set to zero before accumulating [PD-F2]");
  }
  // out[index[i]] = updates[i]  (overwrite)  /  out[index[i]] += updates[i]
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    for_each_row_element(p, [&](const Shape& target, const Shape& at) {
      const WriteOrigin from = ref::read_from(p, "updates", updates, at);
      if (overwrite)
        out.overwrite(target, updates.bits_at(at), from);
      else
        out.reduce(target, ReduceMode::Add, updates.value_at(at), from);
    });
  });

  std::vector<Note> notes;
  if (rank_note) notes.push_back(*rank_note);
  if (updates.size(0) > index.size(0))
    notes.push_back({"PD-S1", "updates has " + std::to_string(updates.size(0)) + " rows, len(index) is " +
                                  std::to_string(index.size(0)) + ": only its first len(index) rows are read"});
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (!dtype_documented) {
    e.errors = {ErrorCategory::UnsupportedDtype};
    e.error_message = "x dtype " + std::string(dtype_name(x.dtype())) + " is not among 004's float32, float64";
    e.error_clause = "PD-T1";
    e.notes.push_back({"PD-T1", "undocumented x dtype: the computed result or unsupported_dtype are both allowed"});
  }
  return e;
}

}  // namespace sp
