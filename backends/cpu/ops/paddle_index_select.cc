// paddle_index_select.cc — cpu kernel for paddle.index_select.
//
// Validate (PD-IS2..PD-IS4 in the reference's order), read the index values
// into a contiguous int64 index with negatives wrapped (PD-IS5 from Paddle
// 3.0; before, a negative value fails cleanly: the reference leaves it
// unspecified), then gather_kernel over out's shape with that index
// expanded along every dim but axis (stride 0), as torch.index_select's
// kernel does.
#include <string>

#include "backends/cpu/cpu_context.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome index_select(CpuContext& cpu, const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t r = x.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (index.rank() != 1) return fail(ErrorCategory::InvalidArgument, "index must be 1-D");
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg, size = x.size(axis), K = index.size(0);
  const int64_t lo = ref::rule_holds("PD-IS5", call.framework_version) ? -size : 0;
  Tensor wrapped = Tensor::zeros(DType::Int64, {K});
  for (int64_t i = 0; i < K; ++i) {
    const int64_t v = index.value_at({i}).i;
    if (v < lo || v >= size)
      return fail(ErrorCategory::IndexOutOfBounds,
                  "index " + std::to_string(v) + " is out of bounds for size " + std::to_string(size));
    wrapped.set_bits_at({i}, static_cast<uint64_t>(v < 0 ? v + size : v));
  }
  Shape out_shape = x.shape();
  out_shape[static_cast<size_t>(axis)] = K;
  Tensor out = cpu.uninitialized(x.dtype(), out_shape);
  if (checked_numel(out_shape) == 0) return Outcome::of_outputs({out});
  Shape index_strides(out_shape.size(), 0);  // the index moves along axis only
  index_strides[static_cast<size_t>(axis)] = 1;
  const IndexWalk walk = make_walk(out_shape, axis, x.strides(), index_strides, contiguous_strides(out_shape), size);
  if (!gather_kernel(x.dtype(), DType::Int64, data(x), data(wrapped), data(out), walk, cpu.pool()))
    return fail(ErrorCategory::IndexOutOfBounds, "index out of bounds");  // scanned above: does not happen
  return Outcome::of_outputs({out});
}

}  // namespace

void register_paddle_index_select(CpuOps& ops) { ops.add("paddle.index_select", index_select); }

}  // namespace sp::cpu
