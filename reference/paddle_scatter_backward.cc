// paddle_scatter_backward.cc — the gradients of paddle.scatter(x, index,
// updates, overwrite=True) with respect to x and updates (op
// "paddle.scatter.backward"; what paddle.grad answers).
//
// Rules, the forward being 004's listing (PD-F1, PD-F2): rows are
// addressed along dim 0; an indexed row of out is updates' rows alone in
// both modes (overwrite replaces x's row; accumulate first sets it to zero),
// so it no longer depends on x:
//   grad_x = grad_output with every row index[i] set to 0         (PD-GR4;
//            the zero's sign is open, T-GR5)
//   grad_updates[i] = grad_output[index[i]] for i < len(index)    (PD-GR5)
// in both modes and for every duplicate: each update row that wrote (or was
// added into) a row gets that row's gradient, as in PyTorch's scatter_
// (T-GR7) — Paddle 3.3.1 measured the same in overwrite mode. Rows of
// updates past len(index) are never read (PD-S1): their gradient is +0.0.
// A negative index value wraps as in the forward (PD-B3; before Paddle 3.0
// the forward is unspecified and so is the backward).
//
// Checks, in order: the forward's own (paddle_scatter.cc; PD-GR1), x and
// updates floating (PD-GR2), grad_output shaped and typed like x (PD-GR3).
// An [N, 1] index is read as its N values (PD-I3); the forward's allowed
// errors (PD-I3, PD-T1) stay allowed.
#include "reference/backward_common.h"
#include "reference/dialect_paddle.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation paddle_scatter_backward(const OpCall& call, Trace* trace) {
  const ref::BackwardStart start = ref::start_backward(call, ref::kPaddleBackwardClauses, trace);
  if (start.answer) return *start.answer;
  const Tensor& x = *call.tensor("x");
  const Tensor& updates = *call.tensor("updates");
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  Tensor index = *call.tensor("index");
  if (index.rank() == 2 && index.size(1) == 1)  // PD-I3: its N values
    index = Tensor::view(index.dtype(), {index.size(0)}, {index.stride(0)}, index.offset(), index.storage());

  ref::GradientBuilder grad_x("grad_x", grad_output, "(no index value names this row; PD-GR4)", trace);
  ref::GradientBuilder grad_updates("grad_updates", Tensor::zeros(updates.dtype(), updates.shape()), "", trace);
  const Shape row_shape(x.shape().begin() + 1, x.shape().end());
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    if (checked_numel(row_shape) == 0) return;
    const int64_t row = p.value < 0 ? p.value + x.size(0) : p.value;  // PD-B3 wraps
    const std::string because = ref::because_index(p, trace);
    Shape rest(row_shape.size(), 0);
    do {
      Shape target{row}, at{p.pos[0]};
      target.insert(target.end(), rest.begin(), rest.end());
      at.insert(at.end(), rest.begin(), rest.end());
      // grad_x[index[i]] = 0
      grad_x.mask(target, "PD-GR4", &p, trace ? because + " replaced row " + std::to_string(row) + " of x" : "");
      // grad_updates[i] = grad_output[index[i]]
      grad_updates.copy(at, grad_output, target, "grad_output", &p, because);
    } while (next_index(rest, row_shape));
  });
  std::vector<Note> notes{{"PD-GR4", "grad_x = grad_output with the indexed rows zeroed (both modes)"},
                          {"PD-GR5", "grad_updates[i] = grad_output[index[i]], every duplicate included"}};
  if (updates.size(0) > index.size(0))
    notes.push_back({"PD-GR5", "rows of updates past len(index) are never read: their gradient is 0"});
  if (auto n = ref::paddle_rules::rank_ten_note({&x, &index, &updates, &grad_output})) notes.push_back(*n);
  return ref::gradients_expectation(start, {grad_x.finish(), grad_updates.finish()}, std::move(notes));
}

}  // namespace sp
