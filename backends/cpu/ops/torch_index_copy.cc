// torch_index_copy.cc — cpu kernels for Tensor.index_copy_ and
// torch.index_copy.
//
// Validate (backend_rules::check_torch_index_copy: T-D1, T-O1, T-IC2..
// T-IC5), scan the index values (self untouched on a bad one, T-IC7), then
// for every index position i, in order, copy source's slice i to self's
// slice index[i]: duplicates leave the last position's slice (one of the
// writers the document allows).
//
// Self's logical shape is [O, S, L] around dim (outer, along, inner), the
// source's [O, M, L] (M = len(index)). Position (o, i, l) writes self[o,
// index[i], l], so parts owning disjoint outer positions, or disjoint inner
// ranges, never meet; each part walks i in order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

struct Plan {
  std::byte* a = nullptr;                                   // target at its storage offset
  const std::byte* p = nullptr;                             // source at its storage offset
  std::vector<int64_t> index;                               // the index values, in order (checked in [0, S))
  std::vector<int64_t> outer_a, outer_p, inner_a, inner_p;  // element offsets
  int64_t along_a = 0, along_p = 0;                         // strides along dim
  size_t element = 0;                                       // bytes per element
};

// Offsets of every position of dims [from, to) of `shape` (row-major).
std::vector<int64_t> offsets(const Shape& shape, const Shape& strides, size_t from, size_t to) {
  std::vector<int64_t> out{0};
  for (size_t d = from; d < to; ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * static_cast<size_t>(shape[d]));
    for (int64_t base : out)
      for (int64_t k = 0; k < shape[d]; ++k) next.push_back(base + k * strides[d]);
    out = std::move(next);
  }
  return out;
}

void run_part(const Plan& plan, int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
  const auto e = static_cast<int64_t>(plan.element);
  for (int64_t o = o0; o < o1; ++o) {
    const int64_t oa = plan.outer_a[static_cast<size_t>(o)], op = plan.outer_p[static_cast<size_t>(o)];
    for (size_t i = 0; i < plan.index.size(); ++i) {
      const int64_t ta = oa + plan.index[i] * plan.along_a;
      const int64_t tp = op + static_cast<int64_t>(i) * plan.along_p;
      for (int64_t l = l0; l < l1; ++l)
        std::memcpy(plan.a + (ta + plan.inner_a[static_cast<size_t>(l)]) * e,
                    plan.p + (tp + plan.inner_p[static_cast<size_t>(l)]) * e, plan.element);
    }
  }
}

Outcome index_copy(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_index_copy(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const Shape index_shape = logical_shape(index), index_strides = logical_strides(index);
  const Shape self_shape = logical_shape(self);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(self_shape.size()));
  const int64_t size = self_shape[static_cast<size_t>(dim)];
  if (index.numel() > 0 && find_bad_index(index.dtype(), data(index), index_shape, index_strides, 0, size, cpu.pool()))
    return cpu.first_bad_index_error(index, index_shape, index_strides, 0, size, dim);
  Tensor target = is_inplace_op(call.op) ? self : cpu.fresh_copy(self);
  if (index.numel() == 0 || self.numel() == 0) return Outcome::of_outputs({target});

  // A source sharing the target's storage is read as it was before the call.
  const Tensor source_read = source.storage() == target.storage() ? cpu.fresh_copy(source) : source;
  Plan plan;
  plan.element = dtype_size(target.dtype());
  plan.index.resize(static_cast<size_t>(index.numel()));
  for (int64_t i = 0; i < index.numel(); ++i)
    plan.index[static_cast<size_t>(i)] = index.value_at(index.rank() == 0 ? Shape{} : Shape{i}).i;
  const Shape a_strides = logical_strides(target);
  const Shape source_shape = logical_shape(source_read), p_strides = logical_strides(source_read);
  const size_t d = static_cast<size_t>(dim);
  plan.outer_a = offsets(self_shape, a_strides, 0, d);
  plan.outer_p = offsets(source_shape, p_strides, 0, d);
  plan.inner_a = offsets(self_shape, a_strides, d + 1, self_shape.size());
  plan.inner_p = offsets(source_shape, p_strides, d + 1, source_shape.size());
  plan.along_a = a_strides[d];
  plan.along_p = p_strides[d];
  plan.a = data(target);
  plan.p = data(source_read);

  const auto outer = static_cast<int64_t>(plan.outer_a.size());
  const auto inner = static_cast<int64_t>(plan.inner_a.size());
  const int threads = threads_for(outer * index.numel() * inner, cpu.pool());
  // Split by outer positions when there are enough of them, else by inner
  // ranges: either way no two parts write one target.
  const bool by_outer = outer >= 2 * threads || inner == 1;
  const int64_t extent = by_outer ? outer : inner;
  const int parts = static_cast<int>(std::min<int64_t>(extent, threads == 1 ? 1 : threads * kPartsPerThread));
  const auto part = [&](int i) {
    const int64_t lo = extent * i / parts, hi = extent * (i + 1) / parts;
    if (by_outer)
      run_part(plan, lo, hi, 0, inner);
    else
      run_part(plan, 0, outer, lo, hi);
  };
  if (parts <= 1)
    part(0);
  else
    cpu.pool().run(parts, part);
  return Outcome::of_outputs({target});
}

}  // namespace

void register_torch_index_copy(CpuOps& ops) {
  ops.add("torch.index_copy_", index_copy);
  ops.add("torch.index_copy", index_copy);
}

}  // namespace sp::cpu
