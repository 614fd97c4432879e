// mindspore_elements.cc — cpu kernels for MindSpore's element-wise index ops
// (MindSpore API documentation r2.10): ops.gather_elements, ops.tensor_scatter_elements, ops.gather, mint.scatter,
// mint.scatter_add.
//
// Validate in the reference's order (reference/dialect_mindspore_elements.h
// states each rule), scan the index values against [-s, s), then a
// contiguous copy of the index with the negatives wrapped
// (CpuContext::wrapped_indices, shared with the ONNX kernels) and the torch
// kernels' walk along dim:
//   gather_elements: gather_kernel (as torch.gather); its backward the
//     scatter kernel's add of grad_output into zeros (as torch.gather's);
//   tensor_scatter_elements: its update of an index value outside [-s, s)
//     is dropped (MS-TSE10). Without one: "none" the scatter kernel's
//     overwrite, "add" the scatter_reduce walk (sum, include_self), as
//     onnx.ScatterElements. With one: "none" an element loop in index
//     order, "add" the same walk with each dropped update replaced by the
//     exact additive identity (-0.0; 0; false) at index 0.
//     Its backward (and mint.scatter(_add)'s): an element loop over the
//     index (dropped values skipped) gathers grad_src from grad_output and,
//     without add, zeroes the written elements of a copy of grad_output.
//   gather: input_params (contiguous) read as [B, pre, s, post] and the
//     index as [B, K] (B the batch dims' product), gather_kernel along s
//     with the index expanded over pre and post, the result [B, pre, K,
//     post] viewed as out's shape.
//   mint.scatter / mint.scatter_add: the scatter kernel's overwrite / add
//     into a copy of input (as torch.scatter / scatter_add); what their pages
//     leave undefined (index values outside [0, s), index larger than src
//     or input, a float src that does not fit) is refused cleanly.
// The output is a fresh contiguous tensor.
#include <optional>
#include <string>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/dialect_torch.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

bool int32_or_64(const Tensor& t) { return t.dtype() == DType::Int32 || t.dtype() == DType::Int64; }

// index.shape[d] <= other.shape[d] for every d but `dim` (-1: every d).
bool fits(const Tensor& index, const Tensor& other, int64_t dim) {
  for (int64_t d = 0; d < index.rank(); ++d)
    if (d != dim && index.size(d) > other.size(d)) return false;
  return true;
}

Outcome index_outside(const Tensor& index, const BadIndex& bad, int64_t lo, int64_t size) {
  return fail(ErrorCategory::IndexOutOfBounds, "index" + format_index(bad.position) + " = " +
                                                   std::to_string(bad.value) + " is outside [" + std::to_string(lo) +
                                                   ", " + std::to_string(size) + ") (" + index.describe() + ")");
}

// MS-GE2..MS-GE6, then out = input[.., index, ..] along dim.
Outcome gather_elements(CpuContext& cpu, const OpCall& call) {
  const Tensor &input = *call.tensor("input"), &index = *call.tensor("index");
  const int64_t r = input.rank(), dim_arg = *call.int_arg("dim");
  if (dim_arg < -r || dim_arg >= r) return fail(ErrorCategory::DimOutOfRange, "dim out of range");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  if (index.rank() != r) return fail(ErrorCategory::RankMismatch, "index and input ranks differ");
  const int64_t dim = wrap_dim(dim_arg, r), size = input.size(dim);
  if (!fits(index, input, dim)) return fail(ErrorCategory::ShapeMismatch, "index larger than input apart from dim");
  if (index.numel() == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), index.shape())});
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), -size, size, cpu.pool()))
    return index_outside(index, *bad, -size, size);
  const Tensor wrapped = cpu.wrapped_indices(index, size);
  Tensor out = cpu.uninitialized(input.dtype(), index.shape());
  const IndexWalk walk = make_walk(wrapped.shape(), dim, input.strides(), wrapped.strides(), out.strides(), size);
  if (!gather_kernel(input.dtype(), wrapped.dtype(), data(input), data(wrapped), data(out), walk, cpu.pool()))
    return Outcome::harness_error("cpu backend: gather_kernel rejected a wrapped MindSpore index");
  return Outcome::of_outputs({out});
}

// mindspore.ops.gather_elements.backward: the forward's rules (the kernel
// above, MS-GEG1), the gradient rules (MS-GEG2, MS-GEG3), then grad_input =
// zeros with grad_output scatter-added at the wrapped index (MS-GEG4).
Outcome gather_elements_backward(CpuContext& cpu, const OpCall& call) {
  if (Outcome forward = gather_elements(cpu, call); forward.kind != Outcome::Kind::Outputs) return forward;
  const Tensor &input = *call.tensor("input"), &index = *call.tensor("index");
  if (auto v = backend_rules::check_backward_grads(call, index.shape(), input.dtype()))
    return fail(v->category, v->message);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), input.rank()), size = input.size(dim);
  Tensor grad_input = Tensor::zeros(input.dtype(), input.shape());
  if (index.numel() > 0) {
    const Tensor wrapped = cpu.wrapped_indices(index, size);
    cpu.scatter_into(grad_input, wrapped, wrapped.shape(), wrapped.strides(), call.tensor(std::string(kGradOutput)),
                     std::nullopt, dim, ScatterOp::Add, false);
  }
  return Outcome::of_outputs({grad_input});
}

// The exact additive identity of a dtype: x + (-0.0) == x bit for bit,
// -0.0 included; 0 for integers, false for bool.
uint64_t additive_identity(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::BFloat16:
      return 0x8000u;
    case DType::Float32:
      return 0x80000000u;
    case DType::Float64:
      return uint64_t{1} << 63;
    default:
      return 0;
  }
}

// The drop path of tensor_scatter_elements (some index value outside
// [-s, s)): "none" writes in index order; "add" sums with every dropped
// update made the identity at index 0.
Outcome scatter_dropping(CpuContext& cpu, Tensor& out, const Tensor& indices, const Tensor& updates, int64_t axis,
                         bool add) {
  const int64_t size = out.size(axis);
  if (size == 0) return Outcome::of_outputs({out});  // every update dropped (and no walk along an empty axis)
  Tensor index = Tensor::zeros(DType::Int64, indices.shape());
  Tensor terms = cpu.fresh_copy(updates);
  Shape p(static_cast<size_t>(indices.rank()), 0);
  do {
    const int64_t v = indices.value_at(p).i;
    const bool inside = v >= -size && v < size;
    const int64_t w = inside ? (v < 0 ? v + size : v) : 0;
    if (!add) {
      if (!inside) continue;
      Shape target = p;
      target[static_cast<size_t>(axis)] = w;
      out.set_bits_at(target, updates.bits_at(p));
      continue;
    }
    index.set_bits_at(p, static_cast<uint64_t>(w));
    if (!inside) terms.set_bits_at(p, additive_identity(out.dtype()));
  } while (next_index(p, indices.shape()));
  if (add) scatter_reduce_into(cpu, out, index, terms, axis, Reduce::Sum, true);
  return Outcome::of_outputs({out});
}

// MS-TSE2..MS-TSE9 (MS-TSE9, unspecified, refused cleanly), then output =
// input_x with updates written (or added) at indices along axis.
Outcome tensor_scatter_elements(CpuContext& cpu, const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor &input = *call.tensor("input_x"), &indices = *call.tensor("indices"), &updates = *call.tensor("updates");
  const int64_t r = input.rank(), axis_arg = op.arg_or_default(call, "axis")->i;
  const std::string reduction = op.arg_or_default(call, "reduction")->s;
  if (r < 1 || indices.rank() < 1 || updates.rank() < 1)
    return fail(ErrorCategory::RankMismatch, "input_x, indices and updates must have rank >= 1");
  if (!int32_or_64(indices)) return fail(ErrorCategory::IndexDtype, "indices must be int32 or int64");
  if (indices.rank() != r || updates.rank() != r)
    return fail(ErrorCategory::RankMismatch, "indices and updates must have input_x's rank");
  if (updates.shape() != indices.shape()) return fail(ErrorCategory::ShapeMismatch, "updates must have indices' shape");
  if (updates.dtype() != input.dtype()) return fail(ErrorCategory::DtypeMismatch, "updates must have input_x's dtype");
  if (axis_arg < -r || axis_arg >= r) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (reduction != "none" && reduction != "add")
    return fail(ErrorCategory::InvalidReduce, "reduction must be 'none' or 'add'");
  const int64_t axis = wrap_dim(axis_arg, r), size = input.size(axis);
  if (!fits(indices, input, axis))
    return fail(ErrorCategory::ShapeMismatch, "indices larger than input_x apart from axis");
  Tensor out = cpu.fresh_copy(input);
  if (indices.numel() == 0) return Outcome::of_outputs({out});
  const bool add = reduction == "add";
  if (find_bad_index(indices.dtype(), data(indices), indices.shape(), indices.strides(), -size, size, cpu.pool()))
    return scatter_dropping(cpu, out, indices, updates, axis, add);
  const Tensor index = cpu.wrapped_indices(indices, size);
  if (add)
    scatter_reduce_into(cpu, out, index, updates, axis, Reduce::Sum, true);
  else
    cpu.scatter_into(out, index, index.shape(), index.strides(), &updates, std::nullopt, axis, ScatterOp::Overwrite,
                     false);
  return Outcome::of_outputs({out});
}

// The gradients of an element-wise scatter along `dim` (MS-TSEG5..7,
// MS-MSG5, MS-MSG6): grad_input = a copy of grad_output, grad_src zeros of
// src's shape (src null: a scalar src, grad_input only); then an element loop
// over index: a value outside [-s, s) writes nothing (dropped); else
// grad_src[p] = grad_output[target] and, unless `add`, grad_input[target] =
// +0.0 (every duplicate writer gets the gradient, which MS-TSEG5 / MS-MSG5
// allow).
Outcome element_scatter_grads(CpuContext& cpu, const Tensor& grad, const Tensor& index, const Tensor* src, int64_t dim,
                              bool add) {
  const int64_t size = grad.size(dim);
  Tensor grad_input = cpu.fresh_copy(grad);
  std::optional<Tensor> grad_src;
  if (src) grad_src = Tensor::zeros(src->dtype(), src->shape());
  if (index.numel() > 0) {
    Shape p(static_cast<size_t>(index.rank()), 0);
    do {
      const int64_t v = index.value_at(p).i;
      if (v < -size || v >= size) continue;
      Shape target = p;
      target[static_cast<size_t>(dim)] = v < 0 ? v + size : v;
      if (grad_src) grad_src->set_bits_at(p, grad.bits_at(target));
      if (!add) grad_input.set_bits_at(target, 0);
    } while (next_index(p, index.shape()));
  }
  if (!grad_src) return Outcome::of_outputs({grad_input});
  return Outcome::of_outputs({grad_input, *grad_src});
}

// mindspore.ops.tensor_scatter_elements.backward: the forward's rules (the
// kernel above, MS-TSEG1), the gradient rules (MS-TSEG2, MS-TSEG3), then
// element_scatter_grads (an index value outside [-s, s) dropped: MS-TSEG7).
Outcome tensor_scatter_elements_backward(CpuContext& cpu, const OpCall& call) {
  if (Outcome forward = tensor_scatter_elements(cpu, call); forward.kind != Outcome::Kind::Outputs) return forward;
  const OpSpec& op = op_spec(call);
  const Tensor &input = *call.tensor("input_x"), &indices = *call.tensor("indices");
  if (auto v = backend_rules::check_backward_grads(call, input.shape(), input.dtype()))
    return fail(v->category, v->message);
  const int64_t axis = wrap_dim(op.arg_or_default(call, "axis")->i, input.rank());
  return element_scatter_grads(cpu, *call.tensor(std::string(kGradOutput)), indices, call.tensor("updates"), axis,
                               op.arg_or_default(call, "reduction")->s == "add");
}

int64_t product(const Shape& s, int64_t from, int64_t to) {
  int64_t n = 1;
  for (int64_t d = from; d < to; ++d) n *= s[static_cast<size_t>(d)];
  return n;
}

// MS-G2..MS-G7 (MS-G6, unspecified, refused cleanly), then out =
// input_params' slices along axis at input_indices.
Outcome gather(CpuContext& cpu, const OpCall& call) {
  const OpSpec& op = op_spec(call);
  const Tensor &params = *call.tensor("input_params"), &indices = *call.tensor("input_indices");
  const int64_t R = params.rank(), S = indices.rank(), axis_arg = *call.int_arg("axis");
  const int64_t b = op.arg_or_default(call, "batch_dims")->i;
  if (!int32_or_64(indices)) return fail(ErrorCategory::IndexDtype, "input_indices must be int32 or int64");
  if (axis_arg < -R || axis_arg >= R) return fail(ErrorCategory::DimOutOfRange, "axis out of range");
  if (b < 0 || b > S) return fail(ErrorCategory::InvalidArgument, "batch_dims outside [0, rank of input_indices]");
  const int64_t a = wrap_dim(axis_arg, R), size = params.size(a);
  if (a < b) return fail(ErrorCategory::InvalidArgument, "axis must be >= batch_dims");
  if (auto bad =
          find_bad_index(indices.dtype(), data(indices), indices.shape(), indices.strides(), 0, size, cpu.pool()))
    return index_outside(indices, *bad, 0, size);
  for (int64_t d = 0; d < b; ++d)
    if (params.size(d) != indices.size(d)) return fail(ErrorCategory::ShapeMismatch, "batch dims differ");
  Shape out_shape(params.shape().begin(), params.shape().begin() + a);
  out_shape.insert(out_shape.end(), indices.shape().begin() + b, indices.shape().end());
  out_shape.insert(out_shape.end(), params.shape().begin() + a + 1, params.shape().end());
  const int64_t B = product(params.shape(), 0, b), pre = product(params.shape(), b, a);
  const int64_t K = product(indices.shape(), b, S), post = product(params.shape(), a + 1, R);
  const Shape walk_shape{B, pre, K, post};
  Tensor out = cpu.uninitialized(params.dtype(), walk_shape);
  if (checked_numel(walk_shape) > 0) {
    const Tensor source = cpu.fresh_copy(params), index = cpu.wrapped_indices(indices, size);
    const Shape source_strides{pre * size * post, size * post, post, 1}, index_strides{K, 0, 1, 0};
    const IndexWalk walk = make_walk(walk_shape, 2, source_strides, index_strides, out.strides(), size);
    if (!gather_kernel(params.dtype(), index.dtype(), data(source), data(index), data(out), walk, cpu.pool()))
      return Outcome::harness_error("cpu backend: gather_kernel rejected a scanned MindSpore index");
  }
  return Outcome::of_outputs(
      {Tensor::view(params.dtype(), out_shape, contiguous_strides(out_shape), out.offset(), out.storage())});
}

// MS-MS2..MS-MS9 / MS-MSA2..MS-MSA8, then out = input with src written
// (added) at index along dim.
Outcome mint_scatter(CpuContext& cpu, const OpCall& call, bool add) {
  const Tensor &input = *call.tensor("input"), &index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const int64_t r = input.rank(), dim_arg = *call.int_arg("dim");
  if (r < 1 || index.rank() < 1 || (src && src->rank() < 1))
    return fail(ErrorCategory::RankMismatch, "input, index and src must have rank >= 1");
  if (dim_arg < -r || dim_arg >= r) return fail(ErrorCategory::DimOutOfRange, "dim out of range");
  if (!int32_or_64(index)) return fail(ErrorCategory::IndexDtype, "index must be int32 or int64");
  if (index.rank() != r || (src && src->rank() != r))
    return fail(ErrorCategory::RankMismatch, "index and src must have input's rank");
  if (src && src->dtype() != input.dtype()) return fail(ErrorCategory::DtypeMismatch, "src must have input's dtype");
  const int64_t dim = wrap_dim(dim_arg, r), size = input.size(dim);
  if (!fits(index, input, dim) || (src && !fits(index, *src, -1)))
    return fail(ErrorCategory::ShapeMismatch, "index larger than src, or than input apart from dim");
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), 0, size, cpu.pool()))
    return index_outside(index, *bad, 0, size);
  std::optional<uint64_t> value;
  if (!src) {
    const Scalar v = *call.scalar_arg("value");
    if (ref::torch_rules::scalar_overflows(v, input.dtype()) ||
        ref::torch_rules::value_conversion_is_undefined(v, input.dtype()))
      return fail(ErrorCategory::ValueOutOfRange, "src " + v.to_string() + " does not fit input's dtype");
    value = ref::torch_rules::scalar_to_bits(v, input.dtype());
  }
  Tensor out = cpu.fresh_copy(input);
  if (index.numel() > 0)
    cpu.scatter_into(out, index, index.shape(), index.strides(), src, value, dim,
                     add ? ScatterOp::Add : ScatterOp::Overwrite, false);
  return Outcome::of_outputs({out});
}

// mindspore.mint.scatter(_add).backward: the forward's rules (MS-MSG1), the
// gradient rules (MS-MSG2, MS-MSG3), mint.scatter's src.shape == index.shape
// (MS-MSG4), then element_scatter_grads (every index value in [0, s)).
Outcome mint_scatter_backward(CpuContext& cpu, const OpCall& call, bool add) {
  if (Outcome forward = mint_scatter(cpu, call, add); forward.kind != Outcome::Kind::Outputs) return forward;
  const Tensor &input = *call.tensor("input"), &index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  if (auto v = backend_rules::check_backward_grads(call, input.shape(), input.dtype()))
    return fail(v->category, v->message);
  if (!add && src)
    if (auto v = backend_rules::check_backward_src_like_index(*src, index)) return fail(v->category, v->message);
  return element_scatter_grads(cpu, *call.tensor(std::string(kGradOutput)), index, src,
                               wrap_dim(*call.int_arg("dim"), input.rank()), add);
}

Outcome mint_scatter_src(CpuContext& cpu, const OpCall& call) { return mint_scatter(cpu, call, false); }
Outcome mint_scatter_src_backward(CpuContext& cpu, const OpCall& call) {
  return mint_scatter_backward(cpu, call, false);
}
Outcome mint_scatter_add_backward(CpuContext& cpu, const OpCall& call) {
  return mint_scatter_backward(cpu, call, true);
}
Outcome mint_scatter_add(CpuContext& cpu, const OpCall& call) { return mint_scatter(cpu, call, true); }

}  // namespace

void register_mindspore_elements(CpuOps& ops) {
  ops.add("mindspore.mint.scatter", mint_scatter_src);
  ops.add("mindspore.mint.scatter_add", mint_scatter_add);
  ops.add("mindspore.mint.scatter.backward", mint_scatter_src_backward);
  ops.add("mindspore.mint.scatter_add.backward", mint_scatter_add_backward);
  ops.add("mindspore.ops.gather", gather);
  ops.add("mindspore.ops.gather_elements", gather_elements);
  ops.add("mindspore.ops.gather_elements.backward", gather_elements_backward);
  ops.add("mindspore.ops.tensor_scatter_elements", tensor_scatter_elements);
  ops.add("mindspore.ops.tensor_scatter_elements.backward", tensor_scatter_elements_backward);
}

}  // namespace sp::cpu
