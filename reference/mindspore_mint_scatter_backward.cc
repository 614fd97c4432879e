// mindspore_mint_scatter_backward.cc — the gradients of
// mindspore.mint.scatter(input, dim, index, src) and
// mindspore.mint.scatter_add(input, dim, index, src) with respect to input
// and src (ops "mindspore.mint.scatter.backward",
// "mindspore.mint.scatter_add.backward").
//
// mint.scatter's r2.10 page (mindspore 2.10.0's docstring) says one thing
// about the backward, in its note: "The backward propagation is supported
// only for the case `src.shape == index.shape` when `src` is a tensor"
// (MS-MSG4; the forward takes a larger src). mint.scatter_add's page says
// nothing of it. The rest is read from each forward's formula, as MS-GR5
// is, out = copy of input:
//   output[index[i][j][k]][j][k] = src[i][j][k]    # mint.scatter, dim 0
//   input[index[i][j][k]][j][k] += src[i][j][k]    # mint.scatter_add, dim 0
// mint.scatter (MS-MSG5): grad_input = grad_output with every element an
//   index position writes set to 0 (either sign); grad_src gathers
//   grad_output (exact bits; a duplicate writer: the slot's gradient or 0,
//   the page giving no order, MS-MS10). A float src (`value`): grad_input
//   only.
// mint.scatter_add (MS-MSG6): grad_input = grad_output; grad_src gathers it
//   where index has a position; src elements past index's shape, which the
//   forward never reads (MS-MSA7 allows a larger src), get +0.0.
// Index values outside [0, s) make the forward unspecified (MS-MS8,
// MS-MSA8), and so the backward (MS-MSG1): every value here is in range.
//
// Every answer notes MS-MS8 (MS-MSA8) where an index value is negative.
// Checks, in order: the forward's own (mindspore_mint_scatter.cc, versioned;
// MS-MSG1), input and a tensor src floating (MS-MSG2), grad_output shaped
// and typed like input (MS-MSG3), then mint.scatter's src.shape ==
// index.shape (MS-MSG4). Visit: index positions row-major.
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/mint/mindspore.mint.scatter.html and
// .../mint/mindspore.mint.scatter_add.html (r2.10), SEMANTICS.md "Gradients / MindSpore", MS-MSG*.
#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {
namespace {

Expectation mint_scatter_backward(const OpCall& call, Trace* trace, bool add) {
  static const ref::BackwardClauses kClauses{"MS-MSG1", "MS-MSG2", "MS-MSG3",
                                             "only floating point tensors have gradients"};
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: mint.scatter's float src
  // MS-MS8 / MS-MSA8 on every answer, errors and unspecified ones included,
  // where an index value is negative (campaign entries key by it:
  // MindSpore's backward rewrites such a value in the caller's index).
  bool negative = false;
  if (ref::index_values_readable(index))
    ref::for_each_index_position(index, [&](const ref::IndexPosition& p) { negative = negative || p.value < 0; });
  const auto noted = [&](Expectation e) {
    if (negative) e.notes.push_back({add ? "MS-MSA8" : "MS-MS8", "a negative index value"});
    return e;
  };
  const ref::BackwardStart start = ref::start_backward(call, kClauses, trace, [&](ref::RuleLog& log) {
    if (add || !src) return;
    // The note has no exception for an empty index.
    log.check(src->shape() == index.shape(), "MS-MSG4",
              "src shape " + format_shape(src->shape()) + " == index shape " + format_shape(index.shape()) +
                  " (the backward needs src's shape to be index's)",
              ErrorCategory::ShapeMismatch,
              "The backward propagation is supported only for the case src.shape == index.shape when src is a "
              "tensor (src " +
                  format_shape(src->shape()) + ", index " + format_shape(index.shape()) + ")");
  });
  if (start.answer) return noted(*start.answer);
  std::vector<ExpectedTensor> grads = ref::element_scatter_gradients(
      {.input = &input,
       .index = &index,
       .src = src,
       .grad_output = call.tensor(std::string(kGradOutput)),
       .dim = ref::wrap_dim(*call.int_arg("dim"), input.rank()),
       .add = add,
       .along = [](int64_t v) -> std::optional<int64_t> { return v; },  // in [0, s): MS-MS8, MS-MSA8
       .input_grad = "grad_input",
       .src_grad = "grad_src",
       .clause = add ? "MS-MSG6" : "MS-MSG5"},
      trace);
  std::vector<Note> notes{
      add ? Note{"MS-MSG6",
                 "grad_input = grad_output; grad_src = grad_output gathered (src elements past index's shape: 0)"}
          : Note{"MS-MSG5",
                 "grad_input = grad_output zeroed where index writes; grad_src = grad_output gathered (a "
                 "duplicate writer's element: the slot's gradient or 0)"}};
  return noted(ref::gradients_expectation(start, std::move(grads), std::move(notes)));
}

}  // namespace

Expectation mindspore_mint_scatter_backward(const OpCall& call, Trace* trace) {
  return mint_scatter_backward(call, trace, false);
}
Expectation mindspore_mint_scatter_add_backward(const OpCall& call, Trace* trace) {
  return mint_scatter_backward(call, trace, true);
}

}  // namespace sp
