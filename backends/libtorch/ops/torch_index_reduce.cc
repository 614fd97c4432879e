// torch_index_reduce.cc — Tensor.index_reduce_ / torch.index_reduce (reduce,
// include_self), natively: in place on a view of self, or through
// index_reduce_out into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome index_reduce(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  const std::string reduce = *call.string_arg("reduce");
  const bool include_self = call.bool_arg("include_self").value_or(true);  // the op table's default
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor source_t = views.view(operand(call, "source"));
  if (in_place) {
    self_t.index_reduce_(dim, index_t, source_t, reduce, include_self);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::index_reduce_out(out_t, self_t, dim, index_t, source_t, reduce, include_self);
  return Outcome::of_outputs({out});
}

Outcome index_reduce_in_place(const OpCall& call, TorchViews& views) { return index_reduce(call, views, true); }
Outcome index_reduce_out_of_place(const OpCall& call, TorchViews& views) { return index_reduce(call, views, false); }

}  // namespace

void register_torch_index_reduce(LibTorchOps& ops) {
  ops.add_twins("torch.index_reduce_", index_reduce_in_place, index_reduce_out_of_place);
}

}  // namespace sp::libtorch
