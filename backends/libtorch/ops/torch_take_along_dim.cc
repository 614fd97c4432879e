// torch_take_along_dim.cc — torch.take_along_dim through the functional
// at::take_along_dim(input, indices, dim) (dim absent: c10::nullopt, None),
// its result copied into a fresh contiguous out; a caller's out= goes
// through at::take_along_dim_out. LibTorch 1.13 reads both
// operands with view(-1) when dim is None, so a non-contiguous input or
// indices there fails in LibTorch ("view size is not compatible with input
// tensor's size and stride"); that is answered as LibTorch's error
// (reference/SEMANTICS.md T-TA8, a known deviation).
#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"

namespace sp::libtorch {
namespace {

Outcome run_torch_take_along_dim(const OpCall& call, TorchViews& views) {
  const Tensor& input = operand(call, "input");
  const at::Tensor input_t = views.view(input);
  const at::Tensor indices_t = views.view(operand(call, "indices"));
  const std::optional<int64_t> dim = call.int_arg("dim");
  if (call.tensor("out")) {  // the caller's out= (T-OUT*), through at::take_along_dim_out
    OpCall without_out = call;
    without_out.tensors.erase("out");
    OutSlot out(call, views, input.dtype(), output_shape_of(op_spec(call), without_out));
    at::take_along_dim_out(out.tensor(), input_t, indices_t, dim ? c10::optional<int64_t>(*dim) : c10::nullopt);
    return Outcome::of_outputs({out.result(views)});
  }
  const at::Tensor result =
      at::take_along_dim(input_t, indices_t, dim ? c10::optional<int64_t>(*dim) : c10::nullopt).contiguous();
  auto [out, out_t] = views.fresh(input.dtype(), Shape(result.sizes().begin(), result.sizes().end()));
  out_t.copy_(result);
  return Outcome::of_outputs({out});
}

}  // namespace

void register_torch_take_along_dim(LibTorchOps& ops) { ops.add("torch.take_along_dim", run_torch_take_along_dim); }

}  // namespace sp::libtorch
