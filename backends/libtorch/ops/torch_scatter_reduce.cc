// torch_scatter_reduce.cc — Tensor.scatter_reduce_ / torch.scatter_reduce
// (reduce sum/prod/mean/amax/amin, include_self), natively: in place on a
// view of self, or through scatter_reduce_out into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome scatter_reduce(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  const std::string reduce = *call.string_arg("reduce");
  const bool include_self = call.bool_arg("include_self").value_or(true);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor src_t = views.view(operand(call, "src"));
  if (in_place) {
    self_t.scatter_reduce_(dim, index_t, src_t, reduce, include_self);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::scatter_reduce_out(out_t, self_t, dim, index_t, src_t, reduce, include_self);
  return Outcome::of_outputs({out});
}

Outcome scatter_reduce_in_place(const OpCall& call, TorchViews& views) { return scatter_reduce(call, views, true); }
Outcome scatter_reduce_out_of_place(const OpCall& call, TorchViews& views) {
  return scatter_reduce(call, views, false);
}

}  // namespace

void register_torch_scatter_reduce(LibTorchOps& ops) {
  ops.add_twins("torch.scatter_reduce_", scatter_reduce_in_place, scatter_reduce_out_of_place);
}

}  // namespace sp::libtorch
