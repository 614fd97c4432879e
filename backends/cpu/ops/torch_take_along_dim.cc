// torch_take_along_dim.cc — cpu kernel for torch.take_along_dim.
//
// Validate in LibTorch 1.13's order (backend_rules::check_torch_take_along_dim,
// shared with the cuda backends: with dim T-TA3 rank, T-TA4 dtype, T-D1 dim,
// T-TA5 broadcast; without: T-TA4), then run gather_kernel over out's
// shape: a dim where input (or indices) has size 1 and out does not gets
// stride 0 in that operand, which is the broadcast without a copy. Without
// dim both operands are read as 1-D (a contiguous copy first where the view
// is not contiguous) and gathered along 0. gather_kernel checks each index
// value against [0, s) as it reads it, so negative values are refused as
// LibTorch 1.13 refuses them (the reference allows that or the wrap, T-TA7);
// the scan then names the first bad value. An out with no element reads no
// value (T-TA6). A 0-d input with a dim is read as shape [1] (T-D2; the
// reference allows that or LibTorch's error, T-TA9).
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"

namespace sp::cpu {
namespace {

// Gathers `input` (logical `a_shape`/`a_strides`) at `indices` (logical
// `x_shape`/`x_strides`) along `dim` into a fresh out of `out_shape`; the
// walk is `walk_shape` (out's logical shape), operands broadcast to it.
Outcome gather_broadcast(CpuContext& cpu, const Tensor& input, const Shape& a_shape, Shape a_strides,
                         const Tensor& indices, const Shape& x_shape, Shape x_strides, const Shape& walk_shape,
                         const Shape& out_shape, int64_t dim) {
  const int64_t size = a_shape[static_cast<size_t>(dim)];
  if (checked_numel(walk_shape) == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), out_shape)});
  for (size_t k = 0; k < walk_shape.size(); ++k) {
    if (static_cast<int64_t>(k) != dim && a_shape[k] != walk_shape[k]) a_strides[k] = 0;
    if (x_shape[k] != walk_shape[k]) x_strides[k] = 0;
  }
  Tensor out = cpu.uninitialized(input.dtype(), out_shape);
  const IndexWalk walk = make_walk(walk_shape, dim, a_strides, x_strides, contiguous_strides(walk_shape), size);
  if (gather_kernel(input.dtype(), indices.dtype(), data(input), data(indices), data(out), walk, cpu.pool()))
    return Outcome::of_outputs({out});
  return cpu.first_bad_index_error(indices, walk_shape, x_strides, 0, size, dim);
}

Outcome torch_take_along_dim(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_take_along_dim(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("input");
  const Tensor& indices = *call.tensor("indices");
  const std::optional<int64_t> dim = call.int_arg("dim");
  if (!dim) {
    // input.flatten()[indices.flatten()]: both read as 1-D.
    const Tensor flat_input = input.is_contiguous() ? input : input.contiguous();
    const Tensor flat_indices = indices.is_contiguous() ? indices : indices.contiguous();
    const Shape a_shape{flat_input.numel()}, x_shape{flat_indices.numel()};
    return gather_broadcast(cpu, flat_input, a_shape, Shape{1}, flat_indices, x_shape, Shape{1}, x_shape, x_shape, 0);
  }
  const Shape a_shape = logical_shape(input), x_shape = logical_shape(indices);
  const int64_t d = wrap_dim(*dim, static_cast<int64_t>(a_shape.size()));
  Shape walk_shape = a_shape;
  for (size_t k = 0; k < walk_shape.size(); ++k)
    walk_shape[k] = static_cast<int64_t>(k) == d ? x_shape[k] : (a_shape[k] == 1 ? x_shape[k] : a_shape[k]);
  const Shape out_shape = input.rank() == 0 ? Shape{} : walk_shape;
  return gather_broadcast(cpu, input, a_shape, logical_strides(input), indices, x_shape, logical_strides(indices),
                          walk_shape, out_shape, d);
}

}  // namespace

void register_torch_take_along_dim(CpuOps& ops) { ops.add("torch.take_along_dim", torch_take_along_dim); }

}  // namespace sp::cpu
