// paddle_take_along_axis.cc — cpu kernel for paddle.take_along_axis
// (broadcast=True: arr and indices broadcast against each other apart from
// axis; broadcast=False: out has indices' shape).
//
// Validate (PD-TA2..PD-TA6 in the reference's order; out's shape from the op
// table's rule), then one pass over out's positions makes a contiguous int64
// index with negatives wrapped (PD-TA7 from Paddle 3.0; before, a negative
// value fails cleanly: the reference leaves it unspecified) and stops at
// the first value outside [-S, S); then gather_kernel over out's shape
// reads arr with stride 0 in the dims out broadcasts.
#include <string>

#include "backends/cpu/cpu_context.h"
#include "reference/op_table.h"
#include "reference/output_shapes.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

// `t`'s strides read over `out`: 0 where t has size 1 and out does not (a
// larger t, broadcast=False, is read at out's positions).
Shape broadcast_strides(const Tensor& t, const Shape& out) {
  Shape strides = t.strides();
  for (size_t d = 0; d < out.size(); ++d)
    if (t.shape()[d] == 1 && out[d] != 1) strides[d] = 0;
  return strides;
}

Outcome take_along_axis(CpuContext& cpu, const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor& arr = *call.tensor("arr");
  const Tensor& indices = *call.tensor("indices");
  const int64_t r = arr.rank(), axis_arg = *call.int_arg("axis");
  if (indices.rank() != r) return fail(ErrorCategory::RankMismatch, "indices and arr differ in rank");
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "indices must be int32 or int64");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg, size = arr.size(axis);
  const std::optional<Shape> out_shape = shape_rules::along_axis(op, call, arr);
  if (!out_shape) return fail(ErrorCategory::ShapeMismatch, "indices and arr do not broadcast apart from axis");
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && indices.size(d) > arr.size(d) && !op.arg_or_default(call, "broadcast")->b)
      return fail(ErrorCategory::ShapeMismatch, "indices larger than arr apart from axis");
  Tensor out = cpu.uninitialized(arr.dtype(), *out_shape);
  if (checked_numel(*out_shape) == 0) return Outcome::of_outputs({out});
  // indices over out's shape, contiguous int64, negatives wrapped.
  const int64_t lo = ref::rule_holds("PD-TA7", call.framework_version) ? -size : 0;
  const Tensor read = Tensor::view(indices.dtype(), *out_shape, broadcast_strides(indices, *out_shape),
                                   indices.offset(), indices.storage());
  Tensor index = Tensor::zeros(DType::Int64, *out_shape);
  Shape p(out_shape->size(), 0);
  do {
    const int64_t v = read.value_at(p).i;
    if (v < lo || v >= size)
      return fail(ErrorCategory::IndexOutOfBounds,
                  "index " + std::to_string(v) + " is out of bounds for size " + std::to_string(size));
    index.set_bits_at(p, static_cast<uint64_t>(v < 0 ? v + size : v));
  } while (next_index(p, *out_shape));
  Shape arr_shape = *out_shape;
  arr_shape[static_cast<size_t>(axis)] = size;
  const IndexWalk walk = make_walk(*out_shape, axis, broadcast_strides(arr, arr_shape), index.strides(),
                                   contiguous_strides(*out_shape), size);
  if (!gather_kernel(arr.dtype(), DType::Int64, data(arr), data(index), data(out), walk, cpu.pool()))
    return fail(ErrorCategory::IndexOutOfBounds, "index out of bounds");  // scanned above: does not happen
  return Outcome::of_outputs({out});
}

}  // namespace

void register_paddle_take_along_axis(CpuOps& ops) { ops.add("paddle.take_along_axis", take_along_axis); }

}  // namespace sp::cpu
