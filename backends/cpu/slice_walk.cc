#include "backends/cpu/slice_walk.h"

#include <algorithm>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "reference/op_table.h"

namespace sp::cpu {

IndexTarget prepare_index_target(CpuContext& cpu, const OpCall& call, bool negatives_in_range) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Shape index_shape = logical_shape(index), index_strides = logical_strides(index);
  const Shape self_shape = logical_shape(self);
  IndexTarget t;
  t.dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(self_shape.size()));
  t.size = self_shape[static_cast<size_t>(t.dim)];
  const int64_t lo = negatives_in_range ? -t.size : 0;
  if (index.numel() > 0 &&
      find_bad_index(index.dtype(), data(index), index_shape, index_strides, lo, t.size, cpu.pool())) {
    t.done = cpu.first_bad_index_error(index, index_shape, index_strides, lo, t.size, t.dim);
    return t;
  }
  t.target = is_inplace_op(call) ? self : cpu.fresh_copy(self);
  if (index.numel() == 0 || self.numel() == 0) t.done = Outcome::of_outputs({t.target});
  return t;
}

Tensor read_before_writes(CpuContext& cpu, const Tensor& operand, const Tensor& target) {
  return operand.storage() == target.storage() ? cpu.fresh_copy(operand) : operand;
}

std::vector<int64_t> index_values(const Tensor& index) {
  const int64_t n = index.numel();
  std::vector<int64_t> values(static_cast<size_t>(n));
  const int64_t stride = index.rank() == 0 ? 0 : index.stride(0);
  const auto read = [&]<class I>(I) {
    const I* x = reinterpret_cast<const I*>(data(index));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<int64_t>(x[i * stride]);
  };
  if (index.dtype() == DType::Int64)
    read(int64_t{});
  else if (index.dtype() == DType::Int32)
    read(int32_t{});
  else
    for (int64_t i = 0; i < n; ++i)
      values[static_cast<size_t>(i)] = index.value_at(index.rank() == 0 ? Shape{} : Shape{i}).i;
  return values;
}

SliceWalk make_slice_walk(const Tensor& target, const Tensor* source, std::vector<int64_t> index, int64_t dim) {
  SliceWalk w;
  w.index = std::move(index);
  const Shape a_shape = logical_shape(target), a_strides = logical_strides(target);
  const size_t d = static_cast<size_t>(dim);
  w.outer_a = dim_range_offsets(a_shape, a_strides, 0, d);
  w.inner_a = dim_range_offsets(a_shape, a_strides, d + 1, a_shape.size());
  w.along_a = a_strides[d];
  w.a = data(target);
  if (source) {
    const Shape p_shape = logical_shape(*source), p_strides = logical_strides(*source);
    w.outer_p = dim_range_offsets(p_shape, p_strides, 0, d);
    w.inner_p = dim_range_offsets(p_shape, p_strides, d + 1, p_shape.size());
    w.along_p = p_strides[d];
    w.p = data(*source);
  }
  return w;
}

void for_each_slice_part(ThreadPool& pool, const SliceWalk& walk,
                         const std::function<void(int64_t, int64_t, int64_t, int64_t)>& part, bool serial) {
  const auto outer = static_cast<int64_t>(walk.outer_a.size());
  const auto inner = static_cast<int64_t>(walk.inner_a.size());
  const int threads = serial ? 1 : threads_for(outer * static_cast<int64_t>(walk.index.size()) * inner, pool);
  // By outer positions when there are enough of them, else by inner ranges.
  const bool by_outer = outer >= 2 * threads || inner == 1;
  const int64_t extent = by_outer ? outer : inner;
  const int parts = static_cast<int>(std::min<int64_t>(extent, threads == 1 ? 1 : threads * kPartsPerThread));
  const auto run = [&](int i) {
    const int64_t lo = extent * i / parts, hi = extent * (i + 1) / parts;
    if (by_outer)
      part(lo, hi, 0, inner);
    else
      part(0, outer, lo, hi);
  };
  if (parts <= 1)
    run(0);
  else
    pool.run(parts, run);
}

}  // namespace sp::cpu
