// onnx_nd.cc — cpu kernels for onnx.GatherND and onnx.ScatterND (ONNX's
// operator documentation, onnx 1.23).
//
// Validate (backends/common/onnx_rules.h), then resolve every index tuple
// of indices (its last dim, k values) to an element offset into data,
// checking each value against [-s, s) of its dim (negatives wrap) before
// anything is written; then copy / combine whole slices (data's dims after
// batch_dims + k), addressed with dim_range_offsets as the index_* kernels
// address theirs:
//   GatherND: out[n, j] = data[batch(n), tuple(n), j], out contiguous;
//   ScatterND: out = copy of data; out[tuple(n), j] = f(out[...], updates[n, j])
//     for n in row-major order (none: overwrite, the last update of a
//     duplicate target wins; add / mul / max / min: combine into the
//     existing value, one correctly rounded op in the element's dtype).
#include <cstring>

#include "backends/common/onnx_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

// Element offsets into `data` (its strides, from its view's first element)
// of each index tuple of `indices` (int64, rank q, k = shape[-1]), in
// row-major order of indices.shape[:-1]; the first `batch_dims` dims of a
// tuple's position address data's batch dims. An error for the first value
// (row-major) outside [-s, s).
struct Tuples {
  std::vector<int64_t> offsets;
  std::optional<Outcome> error;
};
Tuples resolve_tuples(const Tensor& input, const Tensor& indices, int64_t batch_dims) {
  Tuples t;
  const int64_t q = indices.rank(), k = indices.shape().back();
  const Shape& is = indices.shape();
  const std::vector<int64_t> positions = dim_range_offsets(is, indices.strides(), 0, static_cast<size_t>(q - 1));
  const Shape lead(is.begin(), is.end() - 1);
  const int64_t comp_stride = indices.stride(q - 1);
  const auto* x = reinterpret_cast<const int64_t*>(data(indices));
  t.offsets.reserve(positions.size());
  Shape pos(lead.size(), 0);
  for (size_t n = 0; n < positions.size(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < batch_dims; ++d) off += pos[static_cast<size_t>(d)] * input.stride(d);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dim = batch_dims + j, s = input.size(dim);
      int64_t v = x[positions[n] + j * comp_stride];
      if (v < -s || v >= s) {
        Shape at = pos;
        at.push_back(j);
        t.error = Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                                    "indices" + format_index(at) + " = " + std::to_string(v) + " is outside [" +
                                        std::to_string(-s) + ", " + std::to_string(s - 1) + "] for data dim " +
                                        std::to_string(dim) + " of size " + std::to_string(s));
        return t;
      }
      if (v < 0) v += s;
      off += v * input.stride(dim);
    }
    t.offsets.push_back(off);
    for (size_t d = lead.size(); d-- > 0;) {  // next row-major position
      if (++pos[d] < lead[d]) break;
      pos[d] = 0;
    }
  }
  return t;
}

Outcome onnx_gather_nd(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_gather_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const int64_t b = op_spec(call).arg_or_default(call, "batch_dims")->i;
  const int64_t k = indices.shape().back();
  Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
  out_shape.insert(out_shape.end(), input.shape().begin() + b + k, input.shape().end());
  if (checked_numel(out_shape) == 0) {
    // Still an error for a bad value when there are tuples (no slice to read).
    if (indices.numel() > 0)
      if (auto t = resolve_tuples(input, indices, b); t.error) return *t.error;
    return Outcome::of_outputs({Tensor::zeros(input.dtype(), out_shape)});
  }
  Tuples t = resolve_tuples(input, indices, b);
  if (t.error) return *t.error;
  Tensor out = cpu.uninitialized(input.dtype(), out_shape);
  const std::vector<int64_t> slice =
      dim_range_offsets(input.shape(), input.strides(), static_cast<size_t>(b + k), static_cast<size_t>(input.rank()));
  const size_t es = dtype_size(input.dtype());
  const std::byte* src = data(input);
  std::byte* dst = data(out);
  for (size_t n = 0; n < t.offsets.size(); ++n)
    for (size_t j = 0; j < slice.size(); ++j)
      std::memcpy(dst + (n * slice.size() + j) * es, src + static_cast<size_t>(t.offsets[n] + slice[j]) * es, es);
  return Outcome::of_outputs({out});
}

Outcome onnx_scatter_nd(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_onnx_scatter_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& input = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  Tensor target = cpu.fresh_copy(input);
  // No tuples (k = 0 tuples still count: each addresses the whole of data).
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  if (checked_numel(lead) == 0) return Outcome::of_outputs({target});
  Tuples t = resolve_tuples(target, indices, 0);  // checked even when no element is written
  if (t.error) return *t.error;
  if (updates.numel() == 0) return Outcome::of_outputs({target});
  const int64_t q = indices.rank(), k = indices.shape().back(), r = input.rank();
  const std::vector<int64_t> slice_t =
      dim_range_offsets(target.shape(), target.strides(), static_cast<size_t>(k), static_cast<size_t>(r));
  const std::vector<int64_t> slice_u =
      dim_range_offsets(updates.shape(), updates.strides(), static_cast<size_t>(q - 1), updates.shape().size());
  const std::vector<int64_t> rows_u =
      dim_range_offsets(updates.shape(), updates.strides(), 0, static_cast<size_t>(q - 1));
  const std::string reduction = op_spec(call).arg_or_default(call, "reduction")->s;
  const std::optional<Reduce> reduce = reduction == "add"   ? std::optional<Reduce>(Reduce::Sum)
                                       : reduction == "mul" ? std::optional<Reduce>(Reduce::Prod)
                                       : reduction == "max" ? std::optional<Reduce>(Reduce::Amax)
                                       : reduction == "min" ? std::optional<Reduce>(Reduce::Amin)
                                                            : std::nullopt;
  dispatch_dtype(target.dtype(), [&](auto elem) {
    using E = decltype(elem);
    auto* a = reinterpret_cast<S<E>*>(data(target));
    const auto* p = reinterpret_cast<const S<E>*>(data(updates));
    for (size_t n = 0; n < t.offsets.size(); ++n)
      for (size_t j = 0; j < slice_t.size(); ++j) {
        S<E>& dst = a[t.offsets[n] + slice_t[j]];
        const S<E> v = p[rows_u[n] + slice_u[j]];
        dst = reduce ? combine<E>(*reduce, dst, v) : v;
      }
  });
  return Outcome::of_outputs({target});
}

}  // namespace

void register_onnx_nd(CpuOps& ops) {
  ops.add("onnx.GatherND", onnx_gather_nd);
  ops.add("onnx.ScatterND", onnx_scatter_nd);
}

}  // namespace sp::cpu
