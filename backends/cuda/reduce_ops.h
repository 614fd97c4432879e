// reduce_ops.h — the scatter_reduce-style ops of the CUDA backend, as
// functions over the backend's context (call_support.h), called by the
// backend class (cuda_backend.cc). They throw call_support::Refusal for a
// documented failure or an unsupported call.
//
// All run the scatter job (jobs.h) with a reduction mode: atomics in `cuda`
// (CAS or the hardware's max / min / add; float32 adds keep subnormals,
// kernels/atomics.h), the sorted position-ordered reduction in
// `cuda-deterministic`. include_self=False fills every indexed target with
// the reduction's identity first; mean counts each target's terms (atomic
// counters, or the sorted run's length) and divides once.
#pragma once

#include "backends/cuda/call_support.h"
#include "reference/op_call.h"

namespace sp::cuda {

// The reduction's identity, as dtype `t`'s bits: add (sum, mean) 0, multiply
// 1, max -inf (integers: lowest; bool: false), min +inf (max; true).
uint64_t identity_bits(DType t, WriteMode mode);

// torch.scatter_reduce_ / torch.scatter_reduce: sum, prod, mean, amax, amin;
// include_self (default True).
Outcome torch_scatter_reduce(const call_support::OpContext& cx, const OpCall& call);
// torch.index_reduce_ / torch.index_reduce: prod, mean, amax, amin;
// include_self (default True).
Outcome torch_index_reduce(const call_support::OpContext& cx, const OpCall& call);

}  // namespace sp::cuda
