// mindspore_scatter.cc — cpu kernel for MindSpore's Tensor.scatter_ (all
// four overloads; negative indices count from the end before r2.10).
//
// Validate (backends/common/arg_rules.h), then a parallel bounds scan, then
// the scatter into self. What 003 leaves undefined (internal overlap, index
// values outside [-s, s), negatives from r2.10) fails cleanly here: the
// reference allows any outcome there, and failing is the safe choice for
// an in-place kernel.
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "reference/dialect_mindspore.h"
#include "reference/dialect_torch.h"
#include "reference/messages_mindspore.h"

namespace sp::cpu {
namespace {

Outcome mindspore_scatter(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_mindspore_scatter(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  if (index.numel() == 0) return Outcome::of_outputs({self});
  const int64_t dim = wrap_dim(*call.int_arg("dim"), self.rank());
  const int64_t size = self.size(dim);
  if (self.has_internal_overlap())
    return Outcome::of_error(ErrorCategory::OverlappingOutput, "self " + self.describe() + " has internal overlap");
  const bool negatives_allowed = !ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  const int64_t lo = negatives_allowed ? -size : 0;
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), lo, size, cpu.pool()))
    return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                             ref::mindspore_messages::index_outside(bad->position, bad->value, lo, size, dim));
  const std::optional<std::string> reduce = call.string_arg("reduce");
  const ScatterOp op = reduce == "add"        ? ScatterOp::Add
                       : reduce == "multiply" ? ScatterOp::Multiply
                                              : ScatterOp::Overwrite;
  std::optional<uint64_t> value;
  if (!call.tensor("src")) value = ref::torch_rules::scalar_to_bits(*call.scalar_arg("value"), self.dtype());
  cpu.scatter_into(self, index, index.shape(), index.strides(), call.tensor("src"), value, dim, op, false);
  return Outcome::of_outputs({self});
}

}  // namespace

void register_mindspore_scatter(CpuOps& ops) { ops.add("mindspore.scatter_", mindspore_scatter); }

}  // namespace sp::cpu
