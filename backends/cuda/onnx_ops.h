// onnx_ops.h — the ONNX element ops of the CUDA backend, as functions over
// the backend's context (call_support.h: executor, name, mode), called by
// the backend class (cuda_backend.cc). They throw call_support::Refusal for
// a documented failure or an unsupported call.
#pragma once

#include "backends/cuda/call_support.h"
#include "reference/op_call.h"

namespace sp::cuda {

// out[p] = data[p with axis replaced by indices[p]], values in [-s, s).
Outcome onnx_gather_elements(const call_support::OpContext& cx, const OpCall& call);
// onnx.ScatterElements and onnx.Scatter: reduction none / add / mul / max /
// min.
Outcome onnx_scatter_elements(const call_support::OpContext& cx, const OpCall& call);
// onnx.GatherND (batch_dims) and onnx.ScatterND (reduction none / add / mul
// / max / min), in onnx_nd.cc.
Outcome onnx_gather_nd(const call_support::OpContext& cx, const OpCall& call);
Outcome onnx_scatter_nd(const call_support::OpContext& cx, const OpCall& call);

}  // namespace sp::cuda
