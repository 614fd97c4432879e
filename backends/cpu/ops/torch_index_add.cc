// torch_index_add.cc — cpu kernels for Tensor.index_add_ and
// torch.index_add (alpha).
//
// Validate (backend_rules::check_torch_index_add: T-D1, T-IA2..T-IA9),
// scan the index values (self untouched on a bad one), then for every index
// position i, in order, add alpha * source's slice i to self's slice
// index[i]: term = alpha * source rounded to the element's dtype (integers
// wrap, bool and), then one correctly rounded add (bool or).
//
// The walk along dim and its parallel split are the family's
// (backends/cpu/slice_walk.h): no atomics, and each part walks i in order,
// so a target's terms are added in index order.
#include <cstring>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/row_reduce.h"
#include "backends/cpu/slice_walk.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

template <class E>
using S = typename E::Storage;

template <class E>
void run_part(const SliceWalk& plan, uint64_t alpha_bits, int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
  auto* a = reinterpret_cast<S<E>*>(plan.a);
  const auto* p = reinterpret_cast<const S<E>*>(plan.p);
  S<E> alpha;
  std::memcpy(&alpha, &alpha_bits, sizeof(alpha));  // little-endian: the low bytes
  for (int64_t o = o0; o < o1; ++o) {
    const int64_t oa = plan.outer_a[static_cast<size_t>(o)], op = plan.outer_p[static_cast<size_t>(o)];
    for (size_t i = 0; i < plan.index.size(); ++i) {
      const int64_t ta = oa + plan.index[i] * plan.along_a;
      const int64_t tp = op + static_cast<int64_t>(i) * plan.along_p;
      for (int64_t l = l0; l < l1; ++l) {
        S<E>& dst = a[ta + plan.inner_a[static_cast<size_t>(l)]];
        const S<E> term = E::mul_once(alpha, p[tp + plan.inner_p[static_cast<size_t>(l)]]);
        dst = E::add_once(dst, term);
      }
    }
  }
}

// Slices that are whole unit-stride rows in both self and source (dim 0 of
// a contiguous tensor: the graph-network aggregation): the sorted row
// reduction, one outer position at a time. False when it does not apply.
bool add_rows_sorted(CpuContext& cpu, const SliceWalk& walk, DType dtype, int64_t S, uint64_t alpha_bits) {
  const auto K = static_cast<int64_t>(walk.index.size());
  const auto L = static_cast<int64_t>(walk.inner_a.size());
  const int threads = threads_for(static_cast<int64_t>(walk.outer_a.size()) * K * L, cpu.pool());
  if (K == 0 || static_cast<int64_t>(walk.outer_a.size()) >= 2 * threads) return false;
  for (int64_t l = 0; l < L; ++l)
    if (walk.inner_a[static_cast<size_t>(l)] != l || walk.inner_p[static_cast<size_t>(l)] != l) return false;
  if (!row_reduce_applies(K, S, L, threads)) return false;
  const auto element = static_cast<int64_t>(dtype_size(dtype));
  for (size_t o = 0; o < walk.outer_a.size(); ++o) {
    RowReduceArgs g;
    g.dtype = dtype;
    g.index_dtype = DType::Int64;
    g.index = reinterpret_cast<const std::byte*>(walk.index.data());
    g.K = K;
    g.S = S;
    g.L = L;
    g.self = walk.a + walk.outer_a[o] * element;
    g.self_row = walk.along_a;
    g.src = walk.p + walk.outer_p[o] * element;
    g.src_row = walk.along_p;
    g.alpha_bits = alpha_bits;
    row_reduce(g, cpu.pool(), cpu.row_scratch());  // values checked and wrapped: always in range
  }
  return true;
}

Outcome index_add(CpuContext& cpu, const OpCall& call) {
  std::optional<uint64_t> alpha_bits;
  if (auto v = backend_rules::check_torch_index_add(call, &alpha_bits))
    return Outcome::of_error(v->category, v->message);
  IndexTarget prepared = prepare_index_target(cpu, call);
  if (prepared.done) return *prepared.done;
  index_add_into(cpu, prepared.target, index_values(*call.tensor("index")), *call.tensor("source"), prepared.dim,
                 prepared.size, *alpha_bits);
  return Outcome::of_outputs({prepared.target});
}

}  // namespace

void index_add_into(CpuContext& cpu, const Tensor& target, std::vector<int64_t> index, const Tensor& source,
                    int64_t dim, int64_t size, uint64_t alpha_bits) {
  const Tensor source_read = read_before_writes(cpu, source, target);
  const SliceWalk walk = make_slice_walk(target, &source_read, std::move(index), dim);
  if (add_rows_sorted(cpu, walk, target.dtype(), size, alpha_bits)) return;
  dispatch_dtype(target.dtype(), [&](auto elem) {
    using E = decltype(elem);
    for_each_slice_part(cpu.pool(), walk, [&](int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
      run_part<E>(walk, alpha_bits, o0, o1, l0, l1);
    });
  });
}

void register_torch_index_add(CpuOps& ops) { ops.add_twins("torch.index_add_", index_add); }

}  // namespace sp::cpu
