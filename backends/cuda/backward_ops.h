// backward_ops.h — the backward ops (`<forward>.backward`) of the CUDA
// backend, as functions over the backend's context (call_support.h), each
// composed from the forward jobs (backward_ops.cc says how). They throw
// call_support::Refusal for a documented failure or an unsupported call.
#pragma once

#include "backends/cuda/call_support.h"
#include "reference/op_call.h"

namespace sp::cuda {

// torch.gather.backward: grad_input.
Outcome torch_gather_backward(const call_support::OpContext& cx, const OpCall& call);
// torch.scatter_.backward / torch.scatter.backward: grad_self, grad_src
// (with src); reduce: unsupported (no documented gradient).
Outcome torch_scatter_backward(const call_support::OpContext& cx, const OpCall& call);
// torch.scatter_add_.backward / torch.scatter_add.backward: grad_self, grad_src.
Outcome torch_scatter_add_backward(const call_support::OpContext& cx, const OpCall& call);
// torch.scatter_reduce_.backward / torch.scatter_reduce.backward: sum,
// mean, amax, amin; prod unsupported (no documented gradient).
Outcome torch_scatter_reduce_backward(const call_support::OpContext& cx, const OpCall& call);
// paddle.scatter.backward: grad_x, grad_updates.
Outcome paddle_scatter_backward(const call_support::OpContext& cx, const OpCall& call);
// mindspore.scatter_.backward: grad_self, grad_src (with src).
Outcome mindspore_scatter_backward(const call_support::OpContext& cx, const OpCall& call);

}  // namespace sp::cuda
