// paddle_index_add.cc — cpu kernels for Tensor.index_add_ and
// paddle.index_add (alpha from Paddle 3.3).
//
// Validate (PD-IA2..PD-IA8 in the reference's order), read the index values
// with negatives wrapped (PD-IA8 from Paddle 3.0; before, a negative value
// fails cleanly: the reference leaves it unspecified), then the torch
// index_add walk (index_add_into): alpha in x's dtype, each term alpha *
// value rounded, then one rounded add, i in order. What the reference
// leaves unspecified (a float alpha with an integer x, an overlapping x in
// place) fails cleanly.
#include <string>
#include <vector>

#include "backends/cpu/cpu_context.h"
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

// The first violated rule, in the reference's order.
std::optional<Outcome> check_operands(const OpCall& call) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index"), &value = *call.tensor("value");
  const int64_t r = x.rank(), axis = *call.int_arg("axis");
  if (axis < -r || axis >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (index.rank() != 1) return fail(ErrorCategory::InvalidArgument, "index must be 1-D");
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  if (value.dtype() != x.dtype()) return fail(ErrorCategory::DtypeMismatch, "value dtype differs from x's");
  if (value.rank() != r) return fail(ErrorCategory::RankMismatch, "value and x differ in rank");
  const int64_t a = axis < 0 ? axis + r : axis;
  for (int64_t d = 0; d < r; ++d)
    if (value.size(d) != (d == a ? index.size(0) : x.size(d)))
      return fail(ErrorCategory::ShapeMismatch, "value must be x's shape with axis of len(index)");
  if (call.arg("alpha") && !ref::rule_holds("PD-IA10", call.framework_version))
    return fail(ErrorCategory::InvalidArgument, "index_add takes no alpha before Paddle 3.3");
  return std::nullopt;
}

Outcome index_add(CpuContext& cpu, const OpCall& call) {
  if (auto error = check_operands(call)) return *error;
  const OpSpec& op = op_spec(call);
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  const int64_t axis = *call.int_arg("axis") < 0 ? *call.int_arg("axis") + x.rank() : *call.int_arg("axis");
  const int64_t size = x.size(axis);
  const int64_t lo = ref::rule_holds("PD-IA8", call.framework_version) ? -size : 0;
  std::vector<int64_t> values(static_cast<size_t>(index.size(0)));
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = index.value_at({i}).i;
    if (v < lo || v >= size)
      return fail(ErrorCategory::IndexOutOfBounds,
                  "index " + std::to_string(v) + " is out of bounds for size " + std::to_string(size));
    values[static_cast<size_t>(i)] = v < 0 ? v + size : v;
  }
  const Scalar alpha = call.arg("alpha") ? call.arg("alpha")->scalar : Scalar::of_int(1);
  if (alpha.kind == Scalar::Kind::Bool || (alpha.kind == Scalar::Kind::Float && !is_floating(x.dtype())))
    return fail(ErrorCategory::ValueOutOfRange, "a bool alpha, or a float alpha with an integer x");
  if (ref::torch_rules::scalar_overflows(alpha, x.dtype()) ||
      ref::torch_rules::value_conversion_is_undefined(alpha, x.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, "alpha " + alpha.to_string() + " not representable");
  if (op.in_place && x.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput, "x " + x.describe() + " has internal overlap");
  Tensor target = op.in_place ? x : cpu.fresh_copy(x);
  if (values.empty() || x.numel() == 0) return Outcome::of_outputs({target});
  index_add_into(cpu, target, std::move(values), *call.tensor("value"), axis, size,
                 ref::torch_rules::scalar_to_bits(alpha, x.dtype()));
  return Outcome::of_outputs({target});
}

}  // namespace

void register_paddle_index_add(CpuOps& ops) { ops.add_twins("paddle.index_add_", index_add); }

}  // namespace sp::cpu
