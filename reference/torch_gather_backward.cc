// torch_gather_backward.cc — the gradient of torch.gather(input, dim, index)
// with respect to input (op "torch.gather.backward").
//
// Rule (clause T-GR6): gather reads input[index[i][j][k]][j][k] into
// out[i][j][k] (000, T-G1), so every out element's upstream gradient flows
// back to the input element it was read from; an input element read by
// several out elements (duplicate index values) receives the sum:
//   grad_input = zeros(input.shape)
//   grad_input[index[i][j][k]][j][k] += grad_output[i][j][k]   # dim == 0
// (dim 1, 2 move index[...] there), the scatter_add_ of 002 into zeros — 002
// calls scatter_ "the reverse operation of the manner described in gather()".
// Input elements no index position reads stay +0.0. One term is exact
// (0 + t: -0.0 becomes +0.0, a NaN any NaN); two or more are an interval,
// their summation order being unspecified (output_builder's float sums).
//
// Checks, in order: the forward's own (torch_gather.cc; an error or
// unspecified answer carries over, T-GR1), input floating (T-GR2),
// grad_output shaped and typed like out, i.e. like index with input's dtype
// (T-GR3). Visit: index positions row-major, one term each.
#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation torch_gather_backward(const OpCall& call, Trace* trace) {
  const ref::BackwardStart start = ref::start_backward(call, ref::kTorchBackwardClauses, trace);
  if (start.answer) return *start.answer;
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), ref::logical_rank(input));

  return ref::gradients_expectation(
      start,
      {ref::gather_input_gradient(
          input, index, grad_output, dim, [](int64_t v) { return v; }, trace)},
      {{"T-GR6", "grad_input = zeros, then grad_output scatter-added along dim (duplicates accumulate)"}});
}

}  // namespace sp
