// call_support.cc — see call_support.h.
#include "backends/cuda/call_support.h"

#include <cstring>

#include "backends/cuda/tensor_meta.h"
#include "reference/dialect_torch.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"

namespace sp::cuda::call_support {

HostOperand operand(const Tensor& t, const TensorMeta& meta) {
  HostOperand op;
  op.meta = meta;
  if (t.storage()) {
    op.storage = t.storage()->data();
    op.storage_bytes = t.storage()->size();
  }
  return op;
}

TensorMeta meta_or_refuse(const Tensor& t, bool rank0_as_1) {
  const std::optional<TensorMeta> m = meta_of(t, rank0_as_1);
  if (!m)
    throw Refusal{Outcome::unsupported("rank " + std::to_string(t.rank()) + " exceeds the cuda backend's limit of " +
                                       std::to_string(kMaxMetaRank))};
  return *m;
}

void fail(ErrorCategory c, std::string message) { throw Refusal{Outcome::of_error(c, std::move(message))}; }

std::optional<WriteMode> parse_reduce(const std::optional<std::string>& reduce) {
  if (!reduce) return WriteMode::Overwrite;
  if (*reduce == "add") return WriteMode::Add;
  if (*reduce == "multiply") return WriteMode::Multiply;
  return std::nullopt;
}

uint64_t convert_scalar(const Scalar& value, DType t) {
  if (ref::torch_rules::value_conversion_is_undefined(value, t))
    throw Refusal{Outcome::unsupported("converting " + value.to_string() + " to " + std::string(dtype_name(t)) +
                                       " is undefined behaviour in c10")};
  if (ref::torch_rules::scalar_overflows(value, t))
    fail(ErrorCategory::ValueOutOfRange, ref::torch_messages::value_overflow(t));
  return ref::torch_rules::scalar_to_bits(value, t);
}

int64_t index_value_at(const Tensor& index, const TensorMeta& walked, int64_t linear) {
  int64_t multi[kMaxMetaRank] = {};
  linear_to_multi_index(linear, walked, multi);
  const std::byte* at = index.storage()->data() + element_offset(walked, multi) * dtype_size(index.dtype());
  uint64_t bits = 0;
  std::memcpy(&bits, at, dtype_size(index.dtype()));  // little-endian: the element is the low bytes
  return value_from_bits(index.dtype(), bits).i;
}

void report_bad_index(const Tensor& index, const TensorMeta& walked, int64_t linear, int64_t dim, int64_t size) {
  fail(ErrorCategory::IndexOutOfBounds,
       ref::torch_messages::index_out_of_bounds(index_value_at(index, walked, linear), dim, size));
}

void report_onnx_bad_index(const Tensor& indices, const TensorMeta& walked, int64_t linear, int64_t lo, int axis,
                           int64_t size) {
  int64_t multi[kMaxMetaRank] = {};
  linear_to_multi_index(linear, walked, multi);
  std::string at;
  for (int d = 0; d < walked.rank; ++d) at += (d ? ", " : "") + std::to_string(multi[d]);
  fail(ErrorCategory::IndexOutOfBounds, "indices[" + at +
                                            "] = " + std::to_string(index_value_at(indices, walked, linear)) +
                                            " is outside [" + std::to_string(lo) + ", " + std::to_string(size - 1) +
                                            "] for axis " + std::to_string(axis) + " of size " + std::to_string(size));
}

Outcome scatter_into(const OpContext& cx, const OpCall& call, const Tensor& self, ScatterJob job, const Tensor& index,
                     bool rank0_as_1) {
  const bool inplace = is_inplace_op(call);
  const Tensor target = inplace ? self : self.contiguous();
  job.target = operand(target, meta_or_refuse(target, rank0_as_1));
  job.deterministic = cx.deterministic;
  const JobResult r = cx.executor.run_scatter(job, target.storage() ? target.storage()->data() : nullptr);
  if (r.first_bad_position >= 0)
    report_bad_index(index, job.index_for_validation, r.first_bad_position, job.dim, job.target.meta.sizes[job.dim]);
  return Outcome::of_outputs({target});
}

ScatterJob index_family_job(const OpCall& call, const TensorMeta& walked, int d) {
  const Tensor& index = *call.tensor("index");
  TensorMeta values;  // the index as the validation pass reads it: 1-D
  values.rank = 1;
  values.sizes[0] = index.numel();
  values.strides[0] = index.rank() == 0 ? 0 : index.stride(0);
  values.offset = index.offset();
  TensorMeta walk = walked;
  for (int k = 0; k < walk.rank; ++k) walk.strides[k] = 0;
  walk.strides[d] = values.strides[0];
  walk.offset = index.offset();
  ScatterJob job;
  job.dtype = call.tensor("self")->dtype();
  job.index_is_int64 = index.dtype() == DType::Int64;
  job.index = operand(index, walk);
  job.index_for_validation = values;
  job.dim = d;
  return job;
}

}  // namespace sp::cuda::call_support
