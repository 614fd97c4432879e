// torch_scatter_add_backward.cc — the gradients of Tensor.scatter_add_(dim,
// index, src) and torch.scatter_add(...) with respect to self and src (ops
// "torch.scatter_add_.backward", "torch.scatter_add.backward").
//
// Rules (clause T-GR9), the forward being self[index[i][j][k]][j][k] +=
// src[i][j][k] (dim 0; 002, T-A1): every element of the result is self's
// element plus the src terms that point at it, so
//   grad_self = grad_output                                  (exact bits)
//   grad_src[i][j][k] = grad_output[index[i][j][k]][j][k]   (a gather, exact bits)
// Duplicates: each src term of a slot gets the slot's whole gradient.
//
// Checks, in order: the forward's own (torch_scatter_add.cc, on a
// contiguous copy of self; T-GR1), self and src floating (T-GR2),
// grad_output shaped and typed like self (T-GR3), src.shape == index.shape
// (T-GR4: the scatter_add_ documentation's note "The backward pass is
// implemented only for src.shape == index.shape", as 002's for scatter_).
#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation torch_scatter_add_backward(const OpCall& call, Trace* trace) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  const ref::BackwardStart start = ref::start_backward(call, ref::kTorchBackwardClauses, trace, [&](ref::RuleLog& log) {
    ref::src_shape_equals_index_shape(log, src, index);
  });
  if (start.answer) return *start.answer;
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), ref::logical_rank(self));

  ref::GradientBuilder grad_self("grad_self", grad_output, "(self's element is a term of the sum; T-GR9)", trace);
  ref::GradientBuilder grad_src("grad_src", Tensor::zeros(src.dtype(), src.shape()), "", trace);
  // grad_src[i][j][k] = grad_output[index[i][j][k]][j][k]
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    grad_src.copy(ref::same_position(src, p), grad_output, ref::position_along_dim(grad_output, p, dim, p.value),
                  "grad_output", &p, ref::because_index(p, trace));
  });
  return ref::gradients_expectation(start, {grad_self.finish(), grad_src.finish()},
                                    {{"T-GR9", "grad_self = grad_output; grad_src = grad_output gathered along dim"}});
}

}  // namespace sp
