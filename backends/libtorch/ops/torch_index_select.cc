// torch_index_select.cc — torch.index_select through at::index_select_out
// (input, dim, index -> a fresh out of the op table's shape: input's with dim
// replaced by index.numel()). Where that shape does not exist (dim out of
// range) the functional at::index_select is called, so LibTorch reports the
// error in its own words.
// A 0-d input with an index of K > 1 values: LibTorch 1.13 writes K elements
// (stride 1) into the one-element out, past its end (T-IS7; it corrupted the
// heap here). Its out is then a 0-d view over K elements, so what LibTorch
// writes stays in memory this backend owns; the answer is the view — also
// when the caller gives an out= (the call is unspecified, T-IS7, and the
// caller's out has no room for what LibTorch would write).
#include <algorithm>

#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"

namespace sp::libtorch {
namespace {

Outcome run_torch_index_select(const OpCall& call, TorchViews& views) {
  const Tensor& input = operand(call, "input");
  const at::Tensor input_t = views.view(input);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const int64_t dim = dim_arg(call);
  OpCall without_out = call;
  without_out.tensors.erase("out");
  const std::optional<Shape> shape = output_shape_of(op_spec(call), without_out);
  if (!shape) {
    // LibTorch raises here; a result, should it come, is answered as is.
    const at::Tensor result = at::index_select(input_t, dim, index_t).contiguous();
    auto [out, out_t] = views.fresh(input.dtype(), Shape(result.sizes().begin(), result.sizes().end()));
    out_t.copy_(result);
    return Outcome::of_outputs({out});
  }
  const int64_t room = input.rank() == 0 ? std::max<int64_t>(index_t.numel(), 1) : 1;
  if (room > 1) {
    auto [buffer, buffer_t] = views.fresh(input.dtype(), Shape{room});
    at::Tensor out_t = buffer_t.as_strided({}, {}, 0);
    at::index_select_out(out_t, input_t, dim, index_t);
    return Outcome::of_outputs({Tensor::view(input.dtype(), {}, {}, 0, buffer.storage())});
  }
  if (call.tensor("out")) {  // the caller's out= (T-OUT*); after the T-IS7 guard above, which it must not bypass
    OutSlot out(call, views, input.dtype(), shape);
    at::index_select_out(out.tensor(), input_t, dim, index_t);
    return Outcome::of_outputs({out.result(views)});
  }
  auto [out, out_t] = views.fresh(input.dtype(), *shape);
  at::index_select_out(out_t, input_t, dim, index_t);
  return Outcome::of_outputs({out});
}

}  // namespace

void register_torch_index_select(LibTorchOps& ops) { ops.add("torch.index_select", run_torch_index_select); }

}  // namespace sp::libtorch
