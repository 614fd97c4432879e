// torch_gather.cc — torch.gather through at::gather_out (input, dim, index ->
// the caller's out= when given, else a fresh out).
#include "backends/libtorch/libtorch_common.h"

namespace sp::libtorch {
namespace {

Outcome run_torch_gather(const OpCall& call, TorchViews& views) {
  const Tensor& input = operand(call, "input");
  const Tensor& index = operand(call, "index");
  const at::Tensor input_t = views.view(input);
  const at::Tensor index_t = views.view(index);
  OutSlot out(call, views, input.dtype(), index.shape());  // the caller's out= when given
  at::gather_out(out.tensor(), input_t, dim_arg(call), index_t);
  return Outcome::of_outputs({out.result(views)});
}

}  // namespace

void register_torch_gather(LibTorchOps& ops) { ops.add("torch.gather", run_torch_gather); }

}  // namespace sp::libtorch
