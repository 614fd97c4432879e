// mindspore_tensor_scatter_elements_backward.cc — the gradients of
// mindspore.ops.tensor_scatter_elements(input_x, indices, updates, axis,
// reduction) with respect to input_x and updates (op
// "mindspore.ops.tensor_scatter_elements.backward").
//
// MindSpore's r2.10 page (mindspore 2.10.0's docstring) says one thing about
// the backward, in its Note: "The backward is supported only for the case
// `updates.shape == indices.shape`" (MS-TSEG4) — which the forward's MS-TSE5
// already requires, so it adds no error. The rest is read from the
// forward's formula (MS-TSE1), as MS-GR5 is, out = copy of input_x:
//   output[indices[i][j][k]][j][k] = updates[i][j][k]    # axis 0, "none"
//   output[indices[i][j][k]][j][k] += updates[i][j][k]   # axis 0, "add"
// "none" (MS-TSEG5): grad_input_x = grad_output with every element an index
//   position writes set to 0 (either sign); grad_updates[i][j][k] =
//   grad_output[indices[i][j][k]][j][k] (exact bits); a target written more
//   than once (MS-TSE11: the output's value is nondeterministic): each of
//   its writers' grad_updates is the slot's gradient or 0 (as MS-GR5).
// "add" (MS-TSEG6): grad_input_x = grad_output; grad_updates gathers it.
// An index value the forward drops (MS-TSE10: >= s, before 2.10 also < -s)
// writes nothing: its grad_updates element is +0.0 and input_x's gradient
// passes there (MS-TSEG7, noted where it happens). Before 2.10 a negative
// value in [-s, 0) addresses v + s; from 2.10 the forward is unspecified
// (MS-TSE14), and so the backward (MS-TSEG1). The only other reductions are
// the forward's error (MS-TSE8), carried over.
//
// Checks, in order: the forward's own (mindspore_tensor_scatter_elements.cc;
// MS-TSEG1), input_x and updates floating (MS-TSEG2), grad_output shaped and
// typed like input_x (MS-TSEG3). Visit: index positions row-major.
// Every answer, errors and unspecified ones included, notes MS-TSE14 where
// an index value is negative (campaign entries key by it: MindSpore's
// GatherD rewrites such a value in the caller's index).
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/ops/mindspore.ops.tensor_scatter_elements.html
// (r2.10), SEMANTICS.md "Gradients / MindSpore", MS-TSEG*.
#include <cmath>
#include <optional>

#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {
namespace {

// Whether grad_output holds -0.0 or a NaN at an element an index value in
// [-s, s) writes: reduction 'add' passes those through (MS-TSEG6, exact
// bits), MindSpore 2.10.0 returns +0.0 and its canonical NaN there (a
// campaign entry keys by the note this decides).
bool signed_zero_or_nan_written(const Tensor& grad_output, const Tensor& input, const Tensor& indices, int64_t axis,
                                int64_t s) {
  bool found = false;
  ref::for_each_index_position(indices, [&](const ref::IndexPosition& p) {
    if (found || p.value < -s || p.value >= s) return;
    const double g =
        grad_output.value_at(ref::position_along_dim(input, p, axis, p.value < 0 ? p.value + s : p.value)).as_double();
    found = std::isnan(g) || (g == 0.0 && std::signbit(g));
  });
  return found;
}

}  // namespace

Expectation mindspore_tensor_scatter_elements_backward(const OpCall& call, Trace* trace) {
  static const ref::BackwardClauses kClauses{"MS-TSEG1", "MS-TSEG2", "MS-TSEG3",
                                             "only floating point tensors have gradients"};
  const OpSpec& op = op_spec(call);
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  bool negative = false;
  if (ref::index_values_readable(indices))
    ref::for_each_index_position(indices, [&](const ref::IndexPosition& p) { negative = negative || p.value < 0; });
  const auto noted = [&](Expectation e) {
    if (negative) e.notes.push_back({"MS-TSE14", "a negative index value (undefined from MindSpore 2.10)"});
    return e;
  };
  const ref::BackwardStart start = ref::start_backward(call, kClauses, trace);
  if (start.answer) return noted(*start.answer);
  const bool add = op.arg_or_default(call, "reduction")->s == "add";
  const int64_t axis = ref::wrap_dim(op.arg_or_default(call, "axis")->i, input.rank());
  const int64_t s = input.size(axis);
  bool dropped = false;
  const auto along = [&](int64_t v) -> std::optional<int64_t> {
    if (v < -s || v >= s) {
      dropped = true;  // MS-TSE10: the update is dropped
      return std::nullopt;
    }
    return v < 0 ? v + s : v;
  };
  std::vector<ExpectedTensor> grads =
      ref::element_scatter_gradients({.input = &input,
                                      .index = &indices,
                                      .src = call.tensor("updates"),
                                      .grad_output = call.tensor(std::string(kGradOutput)),
                                      .dim = axis,
                                      .add = add,
                                      .along = along,
                                      .input_grad = "grad_input_x",
                                      .src_grad = "grad_updates",
                                      .clause = add ? "MS-TSEG6" : "MS-TSEG5"},
                                     trace);
  std::vector<Note> notes;
  if (!add)
    notes.push_back({"MS-TSEG5",
                     "reduction 'none': grad_input_x = grad_output zeroed where indices write; grad_updates = "
                     "grad_output gathered (a duplicate writer's element: the slot's gradient or 0)"});
  else if (signed_zero_or_nan_written(*call.tensor(std::string(kGradOutput)), input, indices, axis, s))
    notes.push_back({"MS-TSEG6", "reduction 'add': -0.0 or NaN in grad_output where indices write, passed through"});
  if (dropped)
    notes.push_back({"MS-TSEG7", "an index value out of bounds: its update dropped, its gradient +0.0 (MS-TSE10)"});
  return noted(ref::gradients_expectation(start, std::move(grads), std::move(notes)));
}

}  // namespace sp
