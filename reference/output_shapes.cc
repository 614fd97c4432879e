// output_shapes.cc — the shape families' output shape rules
// (output_shapes.h).
#include "reference/output_shapes.h"

#include <algorithm>

#include "reference/dialect_stablehlo.h"
#include "reference/jax_lax.h"

namespace sp::shape_rules {

namespace {

const Tensor* index_operand(const OpSpec& op, const OpCall& call) {
  const Tensor* index = nullptr;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Index) index = call.tensor(o.name);
  return index;
}

}  // namespace

std::optional<Shape> index_length_along_dim(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* index = index_operand(op, call);
  std::optional<int64_t> dim = call.int_arg("dim");
  if (const std::optional<Arg> axis = op.arg_or_default(call, "axis"); !dim && axis) dim = axis->i;  // paddle's
  const int64_t rank = std::max<int64_t>(of.rank(), 1);  // a 0-d tensor has one dim to select along
  if (!index || !dim || *dim < -rank || *dim >= rank) return std::nullopt;
  if (of.rank() == 0) return of.shape();
  Shape shape = of.shape();
  shape[static_cast<size_t>(*dim < 0 ? *dim + rank : *dim)] = index->numel();
  return shape;
}

// nullopt when the index operand is missing, the ranks differ, dim is out
// of range or a dim apart from dim does not broadcast. A 0-d `of` with a
// dim keeps its 0-d shape.
namespace {

// `of`'s shape broadcast with `index`'s apart from dim `along`, index's size
// along it. REQUIRES: equal ranks, along < rank.
std::optional<Shape> broadcast_apart_from(const Tensor& of, const Tensor* index, size_t along) {
  Shape shape = of.shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t a = of.shape()[d], b = index->shape()[d];
    if (d == along)
      shape[d] = b;
    else if (a == b || b == 1)
      shape[d] = a;
    else if (a == 1)
      shape[d] = b;
    else
      return std::nullopt;
  }
  return shape;
}

}  // namespace

std::optional<Shape> broadcast_along_dim(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* index = index_operand(op, call);
  if (!index) return std::nullopt;
  const std::optional<int64_t> dim = call.int_arg("dim");
  if (!dim) return Shape{index->numel()};
  const int64_t rank = std::max<int64_t>(of.rank(), 1);
  if (index->rank() != of.rank() || *dim < -rank || *dim >= rank) return std::nullopt;
  if (of.rank() == 0) return of.shape();
  return broadcast_apart_from(of, index, static_cast<size_t>(*dim < 0 ? *dim + rank : *dim));
}

std::optional<Shape> gather_along_axis(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* index = index_operand(op, call);
  const int64_t axis = op.arg_or_default(call, "axis")->i, rank = of.rank();
  if (!index || index->rank() > 1 || axis < -rank || axis >= rank) return std::nullopt;
  Shape shape = of.shape();
  const auto at = shape.begin() + (axis < 0 ? axis + rank : axis);
  if (index->rank() == 0)
    shape.erase(at);
  else
    *at = index->numel();
  return shape;
}

std::optional<Shape> along_axis(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* index = index_operand(op, call);
  const std::optional<int64_t> axis = call.int_arg("axis");
  const int64_t rank = of.rank();
  if (!index || !axis || index->rank() != rank || *axis < -rank || *axis >= rank) return std::nullopt;
  if (!op.arg_or_default(call, "broadcast")->b) return index->shape();
  return broadcast_apart_from(of, index, static_cast<size_t>(*axis < 0 ? *axis + rank : *axis));
}

// nullopt when the shapes cannot make one (the reference says why).
std::optional<Shape> gather_nd(const OpSpec& op, const OpCall& call, const Tensor& data) {
  const Tensor* indices = index_operand(op, call);
  const std::optional<Arg> b =
      op.arg_or_default(call, "batch_dims");  // none (mindspore.gather_nd, paddle.gather_nd): 0
  const int64_t batch_dims = b ? b->i : 0;
  if (!indices || indices->rank() < 1 || batch_dims < 0) return std::nullopt;
  const int64_t k = indices->shape().back();
  if (batch_dims + k > data.rank() || batch_dims >= indices->rank()) return std::nullopt;
  Shape shape(indices->shape().begin(), indices->shape().end() - 1);
  shape.insert(shape.end(), data.shape().begin() + batch_dims + k, data.shape().end());
  return shape;
}

std::optional<Shape> shape_argument(const OpSpec& op, const OpCall& call, const Tensor&) {
  const std::optional<Arg> shape = op.arg_or_default(call, "shape");
  if (!shape) return std::nullopt;
  for (int64_t d : shape->ints)
    if (d < 0) return std::nullopt;
  return Shape(shape->ints.begin(), shape->ints.end());
}

// nullopt unless the call's dimension numbers pass the spec's constraints.
std::optional<Shape> stablehlo_gather(const OpSpec& op, const OpCall& call, const Tensor&) {
  namespace sh = ref::stablehlo;
  return sh::gather_result_shape_if_valid(call,
                                          op.id == "stablehlo.dynamic_gather" ? sh::Op::DynamicGather : sh::Op::Gather);
}

std::optional<Shape> jax_lax_gather(const OpSpec&, const OpCall& call, const Tensor&) {
  const Tensor* si = call.tensor("start_indices");
  if (!si || si->rank() < 1 || !call.tensor("operand")) return std::nullopt;
  return ref::stablehlo::gather_result_shape_if_valid(ref::jax::to_stablehlo(call, false), ref::stablehlo::Op::Gather);
}

std::optional<Shape> jax_at_get(const OpSpec&, const OpCall& call, const Tensor& x) {
  const Tensor* indices = call.tensor("indices");
  if (!indices || indices->rank() < 1) return std::nullopt;
  const int64_t k = indices->shape().back();
  if (k < 1 || k > x.rank()) return std::nullopt;
  Shape shape(indices->shape().begin(), indices->shape().end() - 1);
  shape.insert(shape.end(), x.shape().begin() + k, x.shape().end());
  return shape;
}

}  // namespace sp::shape_rules
