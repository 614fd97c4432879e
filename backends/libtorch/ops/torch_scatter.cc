// torch_scatter.cc — Tensor.scatter_ / torch.scatter (src|value, reduce) and Tensor.scatter_add_ /
// torch.scatter_add, natively: in place on a view of self, or through the
// _out overloads into a fresh output.
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome run_torch_scatter(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  if (in_place) {
    scatter_in_place(self_t, dim, index_t, call, views);
    return Outcome::of_outputs({self});
  }
  OutSlot out(call, views, self.dtype(), self.shape());  // the caller's out= when given
  at::Tensor& out_t = out.tensor();
  if (has_src(call)) {
    const at::Tensor src = views.view(operand(call, "src"));
    if (call.string_arg("reduce")) {
      at::scatter_out(out_t, self_t, dim, index_t, src, *call.string_arg("reduce"));
    } else {
      at::scatter_out(out_t, self_t, dim, index_t, src);
    }
  } else if (call.string_arg("reduce")) {
    at::scatter_out(out_t, self_t, dim, index_t, torch_scalar(*call.scalar_arg("value")), *call.string_arg("reduce"));
  } else {
    at::scatter_out(out_t, self_t, dim, index_t, torch_scalar(*call.scalar_arg("value")));
  }
  return Outcome::of_outputs({out.result(views)});
}

Outcome run_torch_scatter_add(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor src_t = views.view(operand(call, "src"));
  if (in_place) {
    self_t.scatter_add_(dim, index_t, src_t);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::scatter_add_out(out_t, self_t, dim, index_t, src_t);
  return Outcome::of_outputs({out});
}

Outcome scatter_in_place_op(const OpCall& call, TorchViews& views) { return run_torch_scatter(call, views, true); }
Outcome scatter_out_of_place(const OpCall& call, TorchViews& views) { return run_torch_scatter(call, views, false); }
Outcome scatter_add_in_place(const OpCall& call, TorchViews& views) { return run_torch_scatter_add(call, views, true); }
Outcome scatter_add_out_of_place(const OpCall& call, TorchViews& views) {
  return run_torch_scatter_add(call, views, false);
}

}  // namespace

void register_torch_scatter(LibTorchOps& ops) {
  ops.add_twins("torch.scatter_", scatter_in_place_op, scatter_out_of_place);
  ops.add_twins("torch.scatter_add_", scatter_add_in_place, scatter_add_out_of_place);
}

}  // namespace sp::libtorch
