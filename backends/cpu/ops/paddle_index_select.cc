// paddle_index_select.cc — cpu kernel for paddle.index_select.
//
// Validate (PD-IS2..PD-IS4 in the reference's order), read the index values
// into a contiguous int64 index with negatives wrapped (PD-IS5 from Paddle
// 3.0; before, a negative value fails cleanly: the reference leaves it
// unspecified), then gather_kernel over out's shape with that index
// expanded along every dim but axis (stride 0), as torch.index_select's
// kernel does. paddle.gather's kernel is this one with a 0-d index allowed
// (paddle_select_along_axis, declared in cpu_context.h).
#include <string>

#include "backends/cpu/cpu_context.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome index_select(CpuContext& cpu, const OpCall& call) {
  return paddle_select_along_axis(cpu, call, "PD-IS5", /*zero_d_index=*/false, "index must be 1-D");
}

}  // namespace

Outcome paddle_select_along_axis(CpuContext& cpu, const OpCall& call, const char* bounds_clause, bool zero_d_index,
                                 const char* rank_message) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t r = x.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (zero_d_index ? index.rank() > 1 : index.rank() != 1) return fail(ErrorCategory::InvalidArgument, rank_message);
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg, size = x.size(axis), K = index.numel();
  const int64_t lo = ref::rule_holds(bounds_clause, call.framework_version) ? -size : 0;
  Tensor wrapped = Tensor::zeros(DType::Int64, {K});
  for (int64_t i = 0; i < K; ++i) {
    const int64_t v = index.value_at(index.rank() == 0 ? Shape{} : Shape{i}).i;
    if (v < lo || v >= size)
      return fail(ErrorCategory::IndexOutOfBounds,
                  "index " + std::to_string(v) + " is out of bounds for size " + std::to_string(size));
    wrapped.set_bits_at({i}, static_cast<uint64_t>(v < 0 ? v + size : v));
  }
  Shape walk_shape = x.shape();
  walk_shape[static_cast<size_t>(axis)] = K;
  Tensor out = cpu.uninitialized(x.dtype(), walk_shape);
  if (checked_numel(walk_shape) > 0) {
    Shape index_strides(walk_shape.size(), 0);  // the index moves along axis only
    index_strides[static_cast<size_t>(axis)] = 1;
    const IndexWalk walk =
        make_walk(walk_shape, axis, x.strides(), index_strides, contiguous_strides(walk_shape), size);
    if (!gather_kernel(x.dtype(), DType::Int64, data(x), data(wrapped), data(out), walk, cpu.pool()))
      return fail(ErrorCategory::IndexOutOfBounds, "index out of bounds");  // scanned above: does not happen
  }
  if (index.rank() == 1) return Outcome::of_outputs({out});
  Shape shape = out.shape(), strides = out.strides();  // a 0-d index: axis (of size 1) dropped
  shape.erase(shape.begin() + axis);
  strides.erase(strides.begin() + axis);
  return Outcome::of_outputs({Tensor::view(x.dtype(), shape, strides, out.offset(), out.storage())});
}

void register_paddle_index_select(CpuOps& ops) { ops.add("paddle.index_select", index_select); }

}  // namespace sp::cpu
