// torch_scatter_backward.cc — the gradients of Tensor.scatter_(dim, index,
// src|value, reduce=None) and torch.scatter(...) with respect to self and
// src (ops "torch.scatter_.backward", "torch.scatter.backward").
//
// Rules (clause T-GR7), the forward being self[index[i][j][k]][j][k] =
// src[i][j][k] (dim 0; 002, T-S1):
//   grad_self = grad_output, with every element an index position writes
//               set to 0 (the forward replaced its value: it no longer
//               depends on self; the zero's sign is open, T-GR5)
//   grad_src[i][j][k] = grad_output[index[i][j][k]][j][k]   (a gather, exact bits)
// With duplicate indices every writer receives the slot's gradient, although
// only one writer's value survived the forward (002 Warning: "the gradient
// will be incorrect (it will be propagated to all locations in the source
// that correspond to the same index)").
// The `value` form has no src: only grad_self. reduce='add' / 'multiply':
// no document gives a gradient, the call is unspecified (T-GR8).
//
// Checks, in order: the forward's own (torch_scatter.cc, on a contiguous
// copy of self; T-GR1), self and src floating (T-GR2), grad_output shaped
// and typed like self (T-GR3), src.shape == index.shape when src is given
// (002 Note: "The backward pass is implemented only for src.shape ==
// index.shape", T-GR4). Visit: index positions row-major.
#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation torch_scatter_backward(const OpCall& call, Trace* trace) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: the `value` form
  const ref::BackwardStart start = ref::start_backward(call, ref::kTorchBackwardClauses, trace, [&](ref::RuleLog& log) {
    if (src) ref::src_shape_equals_index_shape(log, *src, index);
  });
  if (start.answer) return *start.answer;
  if (const std::optional<std::string> reduce = call.string_arg("reduce"))
    return ref::unspecified_expectation("T-GR8: scatter_ with reduce='" + *reduce + "': no document gives its gradient",
                                        trace);
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), ref::logical_rank(self));

  ref::GradientBuilder grad_self("grad_self", grad_output, "(no index position writes self there; T-GR7)", trace);
  std::optional<ref::GradientBuilder> grad_src;
  if (src) grad_src.emplace("grad_src", Tensor::zeros(src->dtype(), src->shape()), "", trace);
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape target = ref::position_along_dim(self, p, dim, p.value);
    // grad_self[index[i][j][k]][j][k] = 0
    grad_self.mask(target, "T-GR7", &p,
                   trace ? ref::because_index(p, trace) + " overwrote self" + format_index(target) : "");
    // grad_src[i][j][k] = grad_output[index[i][j][k]][j][k]
    if (grad_src)
      grad_src->copy(ref::same_position(*src, p), grad_output, ref::position_along_dim(grad_output, p, dim, p.value),
                     "grad_output", &p, ref::because_index(p, trace));
  });
  std::vector<ExpectedTensor> grads{grad_self.finish()};
  if (grad_src) grads.push_back(grad_src->finish());
  std::vector<Note> notes{{"T-GR7",
                           "grad_self = grad_output zeroed where index writes; grad_src = "
                           "grad_output gathered along dim (every duplicate writer gets the gradient)"}};
  return ref::gradients_expectation(start, std::move(grads), std::move(notes));
}

}  // namespace sp
