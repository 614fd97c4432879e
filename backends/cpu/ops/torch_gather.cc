// torch_gather.cc — cpu kernel for torch.gather.
//
// Validate (backends/common/arg_rules.h), then one pass that writes every
// output element and checks each index value as it reads it (the output is
// fresh, so a bad index only costs a discarded tensor).
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"

namespace sp::cpu {
namespace {

Outcome torch_gather(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_gather(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  if (index.numel() == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), index.shape())});
  Tensor out = cpu.uninitialized(input.dtype(), index.shape());
  const Shape input_shape = logical_shape(input), index_shape = logical_shape(index);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(input_shape.size()));
  const int64_t size = input_shape[static_cast<size_t>(dim)];
  const IndexWalk walk = make_walk(index_shape, dim, logical_strides(input), logical_strides(index),
                                   contiguous_strides(index_shape), size);
  if (gather_kernel(input.dtype(), index.dtype(), data(input), data(index), data(out), walk, cpu.pool()))
    return Outcome::of_outputs({out});
  return cpu.first_bad_index_error(index, index_shape, logical_strides(index), 0, size, dim);
}

}  // namespace

void register_torch_gather(CpuOps& ops) { ops.add("torch.gather", torch_gather); }

}  // namespace sp::cpu
