// mindspore_tensor_scatter_elements.cc —
// mindspore.ops.tensor_scatter_elements(input_x, indices, updates, axis=0,
// reduction="none") -> output (ONNX ScatterElements' semantics with
// MindSpore's rules: an index value out of range drops its update).
//
// Formula (the page's 3-D listing; clause MS-TSE1), output = copy of input_x:
//   output[indices[i][j][k]][j][k] = updates[i][j][k]   # axis 0, "none"
//   output[i][indices[i][j][k]][k] += updates[i][j][k]  # axis 1, "add"
// Before MindSpore 2.10 a negative index value v in [-s, 0) addresses
// v + s (s = input_x.shape[axis]; 2.7.2: values beyond "the upper or lower
// bounds" are dropped); from 2.10 a negative value makes the call
// unspecified (versioned rule MS-TSE14: "Negative `indices` are illegal
// input and will lead to undefined behavior").
//
// Checks, in the order they run (all run; every violation is collected):
//   MS-TSE2  input_x, indices and updates have rank >= 1 (ValueError)
//                                                          (rank_mismatch)
//   MS-TSE3  indices dtype int32 or int64 (TypeError)      (index_dtype)
//   MS-TSE4  indices and updates have input_x's rank (ValueError)
//                                                          (rank_mismatch)
//   MS-TSE5  updates.shape == indices.shape (ValueError)   (shape_mismatch)
//   MS-TSE6  updates dtype == input_x dtype                (dtype_mismatch)
//   MS-TSE7  axis in [-r, r), r = input_x's rank           (dim_out_of_range)
//   MS-TSE8  reduction "none" or "add"                     (invalid_reduce)
// Then what the page leaves undefined: MS-TSE9 indices.shape[d] >
// input_x.shape[d] for some d != axis (the formula's other coordinates
// leave input_x) makes the call unspecified.
// MS-TSE10: an index value >= s (before 2.10 also < -s) is no error: its
// update is dropped ("instead of raising an index error, the corresponding
// `updates` will not be updated"; the note names no device: every device).
// MS-TSE11: two index positions with one target: "none" — any writer may win
// ("the value of that position in the output will be nondeterministic");
// "add" — every term, in any order (float interval).
// No exemption for an empty indices: every rule applies (MS-TSE13, a note).
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/ops/mindspore.ops.tensor_scatter_elements.html
// (r2.10; mindspore 2.10.0's docstring, which lists no exceptions: their
// types from the r2.5 page), 2.7.2's docstring for MS-TSE14, SEMANTICS.md
// MS-TSE*.
#include <limits>

#include "reference/dialect_mindspore_elements.h"
#include "reference/op_call.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {

Expectation mindspore_tensor_scatter_elements(const OpCall& call, Trace* trace) {
  namespace rules = ref::mindspore_elements;
  const OpSpec& op = op_spec(call);
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  const int64_t axis_arg = op.arg_or_default(call, "axis")->i;
  const std::string reduction = op.arg_or_default(call, "reduction")->s;
  ref::RuleLog log(trace);

  bool ranks_ok = rules::rank_at_least_one(log, "MS-TSE2", "input_x", input);
  ranks_ok = rules::rank_at_least_one(log, "MS-TSE2", "indices", indices) && ranks_ok;
  ranks_ok = rules::rank_at_least_one(log, "MS-TSE2", "updates", updates) && ranks_ok;
  rules::index_dtype_int32_or_int64(log, "MS-TSE3", "indices", indices);
  if (ranks_ok) {
    const bool same = rules::same_rank(log, "MS-TSE4", "input_x", input, "indices", indices) &&
                      rules::same_rank(log, "MS-TSE4", "input_x", input, "updates", updates);
    if (same)
      log.check(updates.shape() == indices.shape(), "MS-TSE5",
                "updates.shape " + format_index(updates.shape()) + " == indices.shape " + format_index(indices.shape()),
                ErrorCategory::ShapeMismatch, "The shape of 'updates' must be the shape of 'indices'");
  }
  rules::same_dtype(log, "MS-TSE6", "input_x", input, "updates", updates);
  const std::optional<int64_t> axis = rules::dim_in_range(log, "MS-TSE7", "axis", axis_arg, input.rank());
  const bool add = reduction == "add";
  log.check(add || reduction == "none", "MS-TSE8", "reduction='" + reduction + "' is 'none' or 'add'",
            ErrorCategory::InvalidReduce, "reduction must be 'none' or 'add', but got '" + reduction + "'");
  std::vector<Note> notes;
  if (indices.numel() == 0) notes.push_back({"MS-TSE13", "an empty indices: every rule still applies"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    e.notes = std::move(notes);
    return e;
  }
  for (int64_t d = 0; d < input.rank(); ++d)
    if (d != *axis && indices.size(d) > input.size(d)) {
      const std::string where = "indices.shape[" + std::to_string(d) + "]=" + std::to_string(indices.size(d)) +
                                " > input_x.shape[" + std::to_string(d) + "]=" + std::to_string(input.size(d));
      return ref::unspecified_expectation(
          "MS-TSE9: " + where + " (d != axis): the formula's other coordinates leave input_x; the page gives no rule",
          trace);
    }

  const int64_t s = input.size(*axis);
  if (ref::rule_holds("MS-TSE14", call.framework_version))
    if (const auto negative = rules::first_outside(indices, "indices", 0, std::numeric_limits<int64_t>::max()))
      return ref::unspecified_expectation(
          "MS-TSE14: " + *negative +
              " (negative): from MindSpore 2.10 \"Negative `indices` are illegal input and "
              "will lead to undefined behavior\"",
          trace);
  OutputBuilder out("out", input, trace);
  bool dropped = false;
  // output[i][indices[i][j][k]][k] (+)= updates[i][j][k]; outside [-s, s): dropped
  ref::for_each_index_position(indices, [&](const ref::IndexPosition& p) {
    if (p.value < -s || p.value >= s) {
      if (!dropped) log.note("MS-TSE10: " + ref::element_text("indices", indices, p.pos) + " out of bounds: dropped");
      dropped = true;
      return;
    }
    const Shape target = ref::position_along_dim(input, p, *axis, p.value < 0 ? p.value + s : p.value);
    const WriteOrigin from = ref::read_from(p, "updates", updates, p.pos);
    if (add)
      out.reduce(target, ReduceMode::Add, updates.value_at(p.pos), from);
    else
      out.overwrite(target, updates.bits_at(p.pos), from);
  });
  if (dropped) notes.push_back({"MS-TSE10", "an index value out of bounds: its update dropped, no error"});
  notes.push_back({"MS-TSE11", add ? "reduction 'add' includes input_x's value; order not given (float: interval)"
                                   : "reduction 'none': a target written twice holds any of its writers"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
