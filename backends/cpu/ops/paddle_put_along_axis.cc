// paddle_put_along_axis.cc — cpu kernels for Tensor.put_along_axis_ and
// paddle.put_along_axis (reduce assign / add / mul / multiply / mean / amin
// / amax, include_self, broadcast).
//
// Validate (PD-PA4..PD-PA9, PD-PA12 in the reference's order), then one
// pass over the walk makes a contiguous int64 index with negatives wrapped
// (PD-PA10 from Paddle 3.0; before, a negative value fails cleanly: the
// reference leaves it unspecified) and stops at the first value outside
// [-S, S). values is read through a view with stride 0 in its broadcast
// dims (a scalar: a one-element tensor with stride 0 everywhere). Then the
// shared kernels: assign is the scatter kernel's overwrite, every other
// reduce is scatter_reduce_into (mul = prod; integers floor their mean).
// An arr with internal overlap (unspecified in place, PD-PA13) fails cleanly.
#include <string>
#include <variant>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

std::optional<Reduce> reduce_of(const std::string& r) {
  if (r == "add") return Reduce::Sum;
  if (r == "mul" || r == "multiply") return Reduce::Prod;
  if (r == "mean" || r == "amin" || r == "amax") return parse_reduce(r);
  return std::nullopt;  // assign, or not a paddle reduce ("sum", "prod" are torch's)
}

bool broadcasts_to(const Shape& from, const Shape& walk) {
  if (from.size() > walk.size()) return false;
  const size_t lead = walk.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != walk[lead + d]) return false;
  return true;
}

// `t` read over `walk` (NumPy's broadcast; stride 0 where t has size 1 or no dim).
Tensor broadcast_view(const Tensor& t, const Shape& walk) {
  Shape strides(walk.size(), 0);
  const size_t lead = walk.size() - t.shape().size();
  for (size_t d = 0; d < t.shape().size(); ++d)
    if (t.shape()[d] != 1) strides[lead + d] = t.strides()[d];
  return Tensor::view(t.dtype(), walk, strides, t.offset(), t.storage());
}

// The walk's shape, or the first violated rule as an error outcome.
std::variant<Shape, Outcome> check_operands(const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor& arr = *call.tensor("arr");
  const Tensor& indices = *call.tensor("indices");
  const Tensor* values = call.tensor("values");
  const int64_t r = arr.rank(), axis = *call.int_arg("axis");
  const auto fail = [](ErrorCategory c, const std::string& m) { return Outcome::of_error(c, m); };
  if (indices.rank() != r) return fail(ErrorCategory::RankMismatch, "indices and arr differ in rank");
  if (axis < -r || axis >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "indices must be int32 or int64");
  const std::string reduce = op.arg_or_default(call, "reduce")->s;
  if (reduce != "assign" && !reduce_of(reduce)) return fail(ErrorCategory::InvalidReduce, "reduce " + reduce);
  if (values && values->dtype() != arr.dtype()) return fail(ErrorCategory::DtypeMismatch, "values dtype");
  Shape walk = indices.shape();
  if (op.arg_or_default(call, "broadcast")->b) {
    walk = arr.shape();
    walk[a] = indices.shape()[a];
    for (size_t d = 0; d < walk.size(); ++d)
      if (d != a && indices.shape()[d] != 1 && indices.shape()[d] != arr.shape()[d])
        return fail(ErrorCategory::ShapeMismatch, "indices do not broadcast against arr");
    if (values && !broadcasts_to(values->shape(), walk))
      return fail(ErrorCategory::ShapeMismatch, "values do not broadcast to the walk");
  } else {
    if (values && values->rank() != r) return fail(ErrorCategory::RankMismatch, "values and indices differ in rank");
    for (size_t d = 0; d < walk.size(); ++d)
      if ((d != a && walk[d] > arr.shape()[d]) || (values && walk[d] > values->shape()[d]))
        return fail(ErrorCategory::ShapeMismatch, "indices larger than arr or values");
  }
  if (op.in_place && call.arg("broadcast") && !ref::rule_holds("PD-PA12", call.framework_version))
    return fail(ErrorCategory::InvalidArgument, "put_along_axis_ takes no broadcast before Paddle 3.0");
  if (reduce == "mean" && arr.dtype() == DType::Bool) return fail(ErrorCategory::UnsupportedDtype, "bool mean");
  return walk;
}

// indices read over `walk` into a contiguous int64 tensor, negatives wrapped;
// nullopt (and *bad) at the first value outside [lo, size).
std::optional<Tensor> wrapped_index(const Tensor& indices, const Shape& walk, int64_t lo, int64_t size,
                                    std::string* bad) {
  const Tensor view = broadcast_view(indices, walk);
  Tensor out = Tensor::zeros(DType::Int64, walk);
  if (checked_numel(walk) == 0) return out;
  Shape p(walk.size(), 0);
  do {
    const Value v = view.value_at(p);
    if (v.i < lo || v.i >= size) {
      *bad = "index " + std::to_string(v.i) + " is out of bounds for size " + std::to_string(size);
      return std::nullopt;
    }
    out.set_bits_at(p, static_cast<uint64_t>(v.i < 0 ? v.i + size : v.i));
  } while (next_index(p, walk));
  return out;
}

Outcome put_along_axis(CpuContext& cpu, const OpCall& call) {
  const auto checked = check_operands(call);
  if (const Outcome* error = std::get_if<Outcome>(&checked)) return *error;
  const Shape& walk = std::get<Shape>(checked);
  const OpSpec& op = op_spec(call);
  const Tensor& arr = *call.tensor("arr");
  const int64_t r = arr.rank(), axis_arg = *call.int_arg("axis");
  const int64_t axis = axis_arg < 0 ? axis_arg + r : axis_arg, size = arr.size(axis);
  const bool wraps = ref::rule_holds("PD-PA10", call.framework_version);
  std::string bad;
  const std::optional<Tensor> index = wrapped_index(*call.tensor("indices"), walk, wraps ? -size : 0, size, &bad);
  if (!index) return Outcome::of_error(ErrorCategory::IndexOutOfBounds, bad);
  if (op.in_place && arr.has_internal_overlap())
    return Outcome::of_error(ErrorCategory::OverlappingOutput, "arr " + arr.describe() + " has internal overlap");
  Tensor values;
  if (const Tensor* v = call.tensor("values")) {
    values = broadcast_view(*v, walk);
  } else {
    const Scalar s = call.arg("value")->scalar;
    if (ref::torch_rules::scalar_overflows(s, arr.dtype()) ||
        ref::torch_rules::value_conversion_is_undefined(s, arr.dtype()))
      return Outcome::of_error(ErrorCategory::ValueOutOfRange, "value " + s.to_string() + " not representable");
    const Tensor one = Tensor::zeros(arr.dtype(), {1});
    one.set_bits_at({0}, ref::torch_rules::scalar_to_bits(s, arr.dtype()));
    values = Tensor::view(arr.dtype(), walk, Shape(walk.size(), 0), 0, one.storage());
  }
  Tensor target = op.in_place ? arr : cpu.fresh_copy(arr);
  if (checked_numel(walk) == 0) return Outcome::of_outputs({target});
  const std::string reduce = op.arg_or_default(call, "reduce")->s;
  if (reduce == "assign") {
    cpu.scatter_into(target, *index, walk, index->strides(), &values, std::nullopt, axis, ScatterOp::Overwrite, false);
  } else {
    scatter_reduce_into(cpu, target, *index, values, axis, *reduce_of(reduce),
                        op.arg_or_default(call, "include_self")->b);
  }
  return Outcome::of_outputs({target});
}

}  // namespace

void register_paddle_put_along_axis(CpuOps& ops) { ops.add_twins("paddle.put_along_axis_", put_along_axis); }

}  // namespace sp::cpu
