#include "backends/cpu/nd_slices.h"

#include <cstring>
#include <limits>
#include <string>

#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce_ops.h"

namespace sp::cpu {
namespace {

// Any integer dtype; an unsigned value past int64's range reads as
// INT64_MAX, outside every dim.
int64_t index_value(const Tensor& indices, int64_t offset) {
  const DType t = indices.dtype();
  if (t == DType::Int32) return reinterpret_cast<const int32_t*>(data(indices))[offset];
  if (t == DType::Int64) return reinterpret_cast<const int64_t*>(data(indices))[offset];
  const Value v = value_from_bits(t, load_bits(t, data(indices) + static_cast<size_t>(offset) * dtype_size(t)));
  return v.is_unsigned && v.i < 0 ? std::numeric_limits<int64_t>::max() : v.i;
}

}  // namespace

NdTuples resolve_nd_tuples(const Tensor& input, const Tensor& indices, int64_t batch_dims, bool negatives_wrap,
                           bool drop_outside) {
  NdTuples t;
  const int64_t q = indices.rank(), k = indices.shape().back();
  const Shape& is = indices.shape();
  const std::vector<int64_t> positions = dim_range_offsets(is, indices.strides(), 0, static_cast<size_t>(q - 1));
  const Shape lead(is.begin(), is.end() - 1);
  const int64_t comp_stride = indices.stride(q - 1);
  t.offsets.reserve(positions.size());
  Shape pos(lead.size(), 0);
  for (size_t n = 0; n < positions.size(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < batch_dims; ++d) off += pos[static_cast<size_t>(d)] * input.stride(d);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dim = batch_dims + j, s = input.size(dim), lo = negatives_wrap ? -s : 0;
      int64_t v = index_value(indices, positions[n] + j * comp_stride);
      if ((v < lo || v >= s) && drop_outside) {
        off = -1;
        break;
      }
      if (v < lo || v >= s) {
        Shape at = pos;
        at.push_back(j);
        t.error = Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                                    "indices" + format_index(at) + " = " + std::to_string(v) + " is outside [" +
                                        std::to_string(lo) + ", " + std::to_string(s - 1) + "] for dim " +
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

Tensor gather_nd_slices(CpuContext& cpu, const Tensor& input, const NdTuples& t, const Shape& out_shape,
                        int64_t slice_from) {
  Tensor out = cpu.uninitialized(input.dtype(), out_shape);
  if (checked_numel(out_shape) == 0) return out;
  const std::vector<int64_t> slice = dim_range_offsets(input.shape(), input.strides(), static_cast<size_t>(slice_from),
                                                       static_cast<size_t>(input.rank()));
  const size_t es = dtype_size(input.dtype());
  const std::byte* src = data(input);
  std::byte* dst = data(out);
  for (size_t n = 0; n < t.offsets.size(); ++n)
    for (size_t j = 0; j < slice.size(); ++j)
      std::memcpy(dst + (n * slice.size() + j) * es, src + static_cast<size_t>(t.offsets[n] + slice[j]) * es, es);
  return out;
}

void scatter_nd_slices(const Tensor& target, const Tensor& updates, const NdTuples& t, int64_t q, int64_t k,
                       std::optional<Reduce> reduce) {
  if (updates.numel() == 0) return;
  const std::vector<int64_t> slice_t =
      dim_range_offsets(target.shape(), target.strides(), static_cast<size_t>(k), static_cast<size_t>(target.rank()));
  const std::vector<int64_t> slice_u =
      dim_range_offsets(updates.shape(), updates.strides(), static_cast<size_t>(q - 1), updates.shape().size());
  const std::vector<int64_t> rows_u =
      dim_range_offsets(updates.shape(), updates.strides(), 0, static_cast<size_t>(q - 1));
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
}

}  // namespace sp::cpu
