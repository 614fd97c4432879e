// torch_scatter.cc — cpu kernels for torch.scatter_ / torch.scatter (src or
// value, reduce none/add/multiply) and torch.scatter_add_ / scatter_add.
//
// Validate (backends/common/arg_rules.h), then one scatter whose bounds
// check is fused into its reads (self untouched on a bad index). In-place
// ops write the caller's self view (its layout kept); out-of-place ones a
// fresh contiguous copy of self.
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "reference/dialect_torch.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

Outcome scatter(CpuContext& cpu, const OpCall& call, ScatterOp op) {
  if (auto v = backend_rules::check_torch_scatter(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  Tensor target = is_inplace_op(call) ? self : cpu.fresh_copy(self);
  if (index.numel() == 0) return Outcome::of_outputs({target});
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(logical_shape(self).size()));
  const int64_t size = logical_shape(self)[static_cast<size_t>(dim)];
  std::optional<uint64_t> value;
  if (!call.tensor("src")) value = ref::torch_rules::scalar_to_bits(*call.scalar_arg("value"), self.dtype());
  if (!cpu.scatter_into(target, index, logical_shape(index), logical_strides(index), call.tensor("src"), value, dim, op,
                        false, 0))
    return cpu.first_bad_index_error(index, logical_shape(index), logical_strides(index), 0, size, dim);
  return Outcome::of_outputs({target});
}

Outcome torch_scatter(CpuContext& cpu, const OpCall& call) {
  const std::optional<std::string> reduce = call.string_arg("reduce");
  const ScatterOp op = reduce == "add"        ? ScatterOp::Add
                       : reduce == "multiply" ? ScatterOp::Multiply
                                              : ScatterOp::Overwrite;
  return scatter(cpu, call, op);
}

Outcome torch_scatter_add(CpuContext& cpu, const OpCall& call) { return scatter(cpu, call, ScatterOp::Add); }

}  // namespace

void register_torch_scatter(CpuOps& ops) {
  ops.add_twins("torch.scatter_", torch_scatter);
  ops.add_twins("torch.scatter_add_", torch_scatter_add);
}

}  // namespace sp::cpu
