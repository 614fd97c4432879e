// torch_backward.cc — the backward ops of torch.gather, torch.scatter(_),
// torch.scatter_add(_) and torch.scatter_reduce(_) (`<id>.backward`,
// reference/op_table.h), by LibTorch's own autograd: the gradients a PyTorch
// user gets from torch.autograd.grad, not a re-derivation of them.
//
// Each differentiable operand the call passes becomes a leaf,
// view(operand).detach().requires_grad_(true) — a view over the caller's
// bytes with the caller's layout (transposed, gapped, offset, expanded), so
// the backward formulas see what a user's tensors would be. The forward runs
// out of place (at::gather / at::scatter / at::scatter_add /
// at::scatter_reduce): an in-place id's gradient with respect to self is the
// gradient with respect to self's value before the call, which is what the
// out-of-place op differentiates, and autograd refuses an in-place op on a
// leaf anyway. Then torch::autograd::grad({out}, leaves, {grad_output}); a
// leaf the graph does not reach (allow_unused) has gradient zero.
//
// Errors are LibTorch's own, classified by libtorch_errors.cc like the
// forward ops' (LibTorchBackend::run catches them): requires_grad_ on an
// integer operand ("Only Tensors of floating point and complex dtype can require
// gradients"), the forward's argument checks (bounds, dims, dtypes, shapes),
// then autograd's checks of grad_output and of the gradients it computes (a
// src whose shape is not index's: "invalid gradient at index 1"). Whatever
// LibTorch accepts is answered as it computes it, with no check of our own,
// so where LibTorch is laxer than the documented rules the comparator shows
// it: C++ autograd sums a grad_output the output's shape expands to (Python's
// torch.autograd.grad refuses it), casts one of another dtype, and accepts
// an empty index with a larger src (tests/libtorch_backward_test.cc).
//
// paddle.scatter.backward is not here: a translation of paddle.scatter onto
// LibTorch ops would give PyTorch's autograd of the translation, not
// Paddle's gradient.
// c10::AutoGradMode's own header: torch 2.8's autograd.h no longer brings it
// in (2.0's and 1.13's did).
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include <map>
#include <string>
#include <vector>

#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"

namespace sp::libtorch {
namespace {

// The leaves, by operand name.
using Leaves = std::map<std::string, at::Tensor>;

// The forward, run out of place on the leaves (and the call's other
// operands): its output is what grad_output is the gradient of.
using Forward = at::Tensor (*)(const OpCall& call, TorchViews& views, const Leaves& leaves);

// A differentiable operand's leaf when it has one, else its plain view.
at::Tensor input(const OpCall& call, TorchViews& views, const Leaves& leaves, const std::string& name) {
  const auto it = leaves.find(name);
  return it != leaves.end() ? it->second : views.view(operand(call, name));
}

at::Tensor gather_forward(const OpCall& call, TorchViews& views, const Leaves& leaves) {
  return at::gather(input(call, views, leaves, "input"), dim_arg(call), views.view(operand(call, "index")));
}

// scatter(self, dim, index, src|value[, reduce]): the overload the forward op
// would call (torch_scatter.cc), out of place.
at::Tensor scatter_forward(const OpCall& call, TorchViews& views, const Leaves& leaves) {
  const at::Tensor self = input(call, views, leaves, "self");
  const int64_t dim = dim_arg(call);
  const at::Tensor index = views.view(operand(call, "index"));
  const std::optional<std::string> reduce = call.string_arg("reduce");
  if (has_src(call)) {
    const at::Tensor src = input(call, views, leaves, "src");
    return reduce ? at::scatter(self, dim, index, src, *reduce) : at::scatter(self, dim, index, src);
  }
  const at::Scalar value = torch_scalar(*call.scalar_arg("value"));
  return reduce ? at::scatter(self, dim, index, value, *reduce) : at::scatter(self, dim, index, value);
}

at::Tensor scatter_add_forward(const OpCall& call, TorchViews& views, const Leaves& leaves) {
  return at::scatter_add(input(call, views, leaves, "self"), dim_arg(call), views.view(operand(call, "index")),
                         input(call, views, leaves, "src"));
}

at::Tensor scatter_reduce_forward(const OpCall& call, TorchViews& views, const Leaves& leaves) {
  if (!call.string_arg("reduce")) throw MalformedCall{call.op + ": missing argument 'reduce'"};
  return at::scatter_reduce(input(call, views, leaves, "self"), dim_arg(call), views.view(operand(call, "index")),
                            input(call, views, leaves, "src"), *call.string_arg("reduce"),
                            call.bool_arg("include_self").value_or(true));
}

// The gradients grad_<operand>, in grad_operands' order, each a fresh
// contiguous tensor of its operand's shape and dtype.
Outcome run_backward(const OpCall& call, TorchViews& views, Forward forward) {
  const std::vector<std::string> names = grad_operands(op_spec(call), call);
  const Tensor& grad_output = operand(call, std::string(kGradOutput));
  // The backend may be called from a thread (or a server) that disabled
  // gradient recording; a backward needs it on.
  const c10::AutoGradMode grad_mode(true);
  Leaves leaves;
  torch::autograd::variable_list inputs;
  for (const std::string& name : names) {
    at::Tensor leaf = views.view(operand(call, name)).detach().requires_grad_(true);
    leaves.emplace(name, leaf);
    inputs.push_back(std::move(leaf));
  }
  const at::Tensor out = forward(call, views, leaves);
  const torch::autograd::variable_list grads =
      torch::autograd::grad({out}, inputs, {views.view(grad_output)}, /*retain_graph=*/false, /*create_graph=*/false,
                            /*allow_unused=*/true);
  std::vector<Tensor> result;
  for (size_t i = 0; i < names.size(); ++i) {
    const Tensor& of = operand(call, names[i]);
    auto [grad, grad_t] = views.fresh(of.dtype(), of.shape());  // zeros: an unused leaf's gradient
    if (grads[i].defined()) grad_t.copy_(grads[i]);
    result.push_back(std::move(grad));
  }
  return Outcome::of_outputs(std::move(result));
}

Outcome gather_backward(const OpCall& call, TorchViews& views) { return run_backward(call, views, gather_forward); }
Outcome scatter_backward(const OpCall& call, TorchViews& views) { return run_backward(call, views, scatter_forward); }
Outcome scatter_add_backward(const OpCall& call, TorchViews& views) {
  return run_backward(call, views, scatter_add_forward);
}
Outcome scatter_reduce_backward(const OpCall& call, TorchViews& views) {
  return run_backward(call, views, scatter_reduce_forward);
}

}  // namespace

void register_torch_backward(LibTorchOps& ops) {
  ops.add_backward("torch.gather", gather_backward);
  ops.add_backward("torch.scatter_", scatter_backward);
  ops.add_backward("torch.scatter_add_", scatter_add_backward);
  ops.add_backward("torch.scatter_reduce_", scatter_reduce_backward);
}

}  // namespace sp::libtorch
