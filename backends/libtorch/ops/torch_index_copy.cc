// torch_index_copy.cc — Tensor.index_copy_ / torch.index_copy, natively: in
// place on a view of self, or through index_copy_out into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome index_copy(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor source_t = views.view(operand(call, "source"));
  if (in_place) {
    self_t.index_copy_(dim, index_t, source_t);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::index_copy_out(out_t, self_t, dim, index_t, source_t);
  return Outcome::of_outputs({out});
}

Outcome index_copy_in_place(const OpCall& call, TorchViews& views) { return index_copy(call, views, true); }
Outcome index_copy_out_of_place(const OpCall& call, TorchViews& views) { return index_copy(call, views, false); }

}  // namespace

void register_torch_index_copy(LibTorchOps& ops) {
  ops.add_twins("torch.index_copy_", index_copy_in_place, index_copy_out_of_place);
}

}  // namespace sp::libtorch
