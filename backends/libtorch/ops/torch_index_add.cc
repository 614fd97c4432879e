// torch_index_add.cc — Tensor.index_add_ / torch.index_add (alpha), natively:
// in place on a view of self, or through index_add_out into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome index_add(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  const Scalar alpha = call.scalar_arg("alpha").value_or(Scalar::of_int(1));  // the op table's default
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor source_t = views.view(operand(call, "source"));
  if (in_place) {
    self_t.index_add_(dim, index_t, source_t, torch_scalar(alpha));
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::index_add_out(out_t, self_t, dim, index_t, source_t, torch_scalar(alpha));
  return Outcome::of_outputs({out});
}

Outcome index_add_in_place(const OpCall& call, TorchViews& views) { return index_add(call, views, true); }
Outcome index_add_out_of_place(const OpCall& call, TorchViews& views) { return index_add(call, views, false); }

}  // namespace

void register_torch_index_add(LibTorchOps& ops) {
  ops.add_twins("torch.index_add_", index_add_in_place, index_add_out_of_place);
}

}  // namespace sp::libtorch
