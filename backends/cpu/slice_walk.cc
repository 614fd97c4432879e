#include "backends/cpu/slice_walk.h"

#include <algorithm>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"

namespace sp::cpu {

std::vector<int64_t> index_values(const Tensor& index) {
  std::vector<int64_t> values(static_cast<size_t>(index.numel()));
  for (int64_t i = 0; i < index.numel(); ++i)
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
