// torch_index_select.cc — cpu kernel for torch.index_select.
//
// Validate (backend_rules::check_torch_index_select, shared with the cuda
// backends: T-D1, T-IS3, T-IS4; a 0-d input with other than one index value
// refused as PyTorch 2.x refuses it), then treat the
// call as a gather whose index is the 1-D index expanded over out's shape
// (stride 0 in every dim but dim): gather_kernel writes every out element
// once and checks each index value as it reads it (out is fresh, so a bad
// value only costs a discarded tensor; the scan then names the first one).
// Parallel over out's (outer, k) rows for large outputs (gather_kernel).
// Fast path (in gather_kernel, chosen by the walk): applies when input is
// unit-stride over the coalesced dims after dim — the index is constant
// along them, so each selected slice is one bounds check and one memcpy.
// Calls with no out element to write (an empty index, a size-0 dim of
// input elsewhere) and 0-d inputs still check every index value
// (LibTorch 1.13 does: T-IS6).
#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"

namespace sp::cpu {
namespace {

Outcome torch_index_select(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_index_select(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const Shape input_shape = logical_shape(input);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(input_shape.size()));
  const auto d = static_cast<size_t>(dim);
  const int64_t size = input_shape[d];
  const int64_t K = index.numel();
  // The index as a 1-D walk: K values, `index_stride` apart (0-d: one value).
  const Shape index_shape{K};
  const Shape index_strides{index.rank() == 0 ? 0 : index.stride(0)};
  Shape walk_shape = input_shape;
  walk_shape[d] = K;
  const Shape out_shape = input.rank() == 0 ? Shape{} : walk_shape;
  // Nothing to write (or, for a 0-d input, out is input itself once its one
  // value is 0): only the values need checking.
  if (input.rank() == 0 || checked_numel(walk_shape) == 0) {
    if (K > 0 && find_bad_index(index.dtype(), data(index), index_shape, index_strides, 0, size, cpu.pool()))
      return cpu.first_bad_index_error(index, index_shape, index_strides, 0, size, dim);
    return Outcome::of_outputs({input.rank() == 0 ? input.contiguous() : Tensor::zeros(input.dtype(), out_shape)});
  }
  Tensor out = cpu.uninitialized(input.dtype(), out_shape);
  Shape x_strides(walk_shape.size(), 0);  // the index moves along dim only
  x_strides[d] = index_strides[0];
  const IndexWalk walk =
      make_walk(walk_shape, dim, logical_strides(input), x_strides, contiguous_strides(walk_shape), size);
  if (gather_kernel(input.dtype(), index.dtype(), data(input), data(index), data(out), walk, cpu.pool()))
    return Outcome::of_outputs({out});
  return cpu.first_bad_index_error(index, index_shape, index_strides, 0, size, dim);
}

}  // namespace

void register_torch_index_select(CpuOps& ops) { ops.add("torch.index_select", torch_index_select); }

}  // namespace sp::cpu
