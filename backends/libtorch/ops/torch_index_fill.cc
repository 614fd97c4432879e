// torch_index_fill.cc — Tensor.index_fill_ / torch.index_fill (a Python
// number value), natively: in place on a view of self, or torch.index_fill
// (LibTorch 1.13 has no out= form) copied into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome index_fill(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  const at::Scalar value = torch_scalar(*call.scalar_arg("value"));
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  if (in_place) {
    self_t.index_fill_(dim, index_t, value);
    return Outcome::of_outputs({self});
  }
  const at::Tensor result = at::index_fill(self_t, dim, index_t, value);
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  out_t.copy_(result);
  return Outcome::of_outputs({out});
}

Outcome index_fill_in_place(const OpCall& call, TorchViews& views) { return index_fill(call, views, true); }
Outcome index_fill_out_of_place(const OpCall& call, TorchViews& views) { return index_fill(call, views, false); }

}  // namespace

void register_torch_index_fill(LibTorchOps& ops) {
  ops.add_twins("torch.index_fill_", index_fill_in_place, index_fill_out_of_place);
}

}  // namespace sp::libtorch
