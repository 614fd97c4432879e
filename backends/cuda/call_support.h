// call_support.h — host helpers of the CUDA backend's ops (cuda_backend.cc):
// operands and layouts for a job, refusals, scalar conversion, and the
// messages of a bad index value found by the validation pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/cuda/cuda_ops.h"
#include "reference/op_call.h"
#include "reference/tensor.h"

namespace sp::cuda::call_support {

// A documented failure, or "unsupported" by this backend: thrown by the
// helpers and the ops, turned into the op's Outcome by the backend.
struct Refusal {
  Outcome outcome;
};

// What an op needs of the backend that runs it.
struct OpContext {
  const Executor& executor;
  const std::string& name;  // the backend's name, for "unsupported" reasons
  bool deterministic;
};

// `t`'s storage described with `meta`.
HostOperand operand(const Tensor& t, const TensorMeta& meta);
// `t`'s layout (rank 0 as [1] with `rank0_as_1`); unsupported above kMaxMetaRank.
TensorMeta meta_or_refuse(const Tensor& t, bool rank0_as_1);
// Throws the op's error.
[[noreturn]] void fail(ErrorCategory c, std::string message);
// PyTorch's reduce string: none, "add", "multiply"; nullopt for any other.
std::optional<WriteMode> parse_reduce(const std::optional<std::string>& reduce);
// The scalar as dtype `t` (c10::checked_convert, used by both PyTorch and
// MindSpore's value overloads).
uint64_t convert_scalar(const Scalar& value, DType t);
// The index value at validation position `linear` of `walked`, read through
// that layout (expanded and broadcast walks name the value the kernel read).
int64_t index_value_at(const Tensor& index, const TensorMeta& walked, int64_t linear);
// PyTorch's bad index: "index v is out of bounds for dimension d with size s".
[[noreturn]] void report_bad_index(const Tensor& index, const TensorMeta& walked, int64_t linear, int64_t dim,
                                   int64_t size);
// ONNX's bad index: "indices[i, j] = v is outside [lo, s - 1] for axis a of size s".
[[noreturn]] void report_onnx_bad_index(const Tensor& indices, const TensorMeta& walked, int64_t linear, int64_t lo,
                                        int axis, int64_t size);

// Runs `job` on cx's executor into `self` in place (in-place ops) or into a
// contiguous copy of it, the answer's "out"; the target's layout is self's
// (rank 0 as [1] with `rank0_as_1`). A failed validation pass becomes
// PyTorch's index_out_of_bounds (report_bad_index).
Outcome scatter_into(const OpContext& cx, const OpCall& call, const Tensor& self, ScatterJob job, const Tensor& index,
                     bool rank0_as_1);
// The index_* family's job (index_add, index_copy, index_fill,
// index_reduce): a scatter along `d` whose index is call's 1-D "index"
// expanded over `walked`'s shape (stride 0 on every dim but d), so position
// (.., i, ..) lands on self[.., index[i], ..]; the validation pass reads the
// 1-D index, every value checked before any write. Sets dtype (self's),
// index, index_for_validation and dim.
ScatterJob index_family_job(const OpCall& call, const TensorMeta& walked, int d);

}  // namespace sp::cuda::call_support
