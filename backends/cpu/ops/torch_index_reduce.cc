// torch_index_reduce.cc — cpu kernels for Tensor.index_reduce_ and
// torch.index_reduce (reduce prod / mean / amax / amin, include_self).
//
// Validate (backend_rules::check_torch_index_reduce: T-IR3, T-D1, T-IA2..T-IA8), scan the index values (self untouched
// on a bad one), then per outer position:
//   include_self=False: every row of self that index names is first set to
//     the reduction's identity (reduce_ops.h; mean: 0);
//   every index position i, in order, combines source's slice i into self's
//     row index[i], one correctly rounded op at a time (integers wrap);
//   mean: each named row is divided by its number of terms (its occurrences
//     in index, plus one for self when include_self), floor for integers.
// Rows never named keep self's value. The document supports floating self
// only (T-IR4: other dtypes are unspecified); integer selfs are computed as
// LibTorch 1.13 does, bool is refused (unsupported_dtype: LibTorch 1.13
// has no bool kernel on most of its paths).
//
// Self's logical shape is [O, S, L] around dim, source's [O, M, L]. Parts
// own disjoint outer positions, or disjoint inner ranges: no two parts
// write one element, no atomics; each walks i in order.
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce_ops.h"
#include "backends/cpu/slice_walk.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

struct Plan {
  SliceWalk w;                 // the walk along dim (backends/cpu/slice_walk.h)
  std::vector<int64_t> named;  // the distinct values of index, ascending
  std::vector<int64_t> terms;  // mean: terms per row of self (include_self counted)
  Reduce reduce = Reduce::Prod;
  bool include_self = true;
};

template <class E>
void run_part(const Plan& plan, int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
  auto* a = reinterpret_cast<S<E>*>(plan.w.a);
  const auto* p = reinterpret_cast<const S<E>*>(plan.w.p);
  const Reduce step = plan.reduce == Reduce::Mean ? Reduce::Sum : plan.reduce;
  const S<E> init = identity<E>(plan.reduce);
  for (int64_t o = o0; o < o1; ++o) {
    const int64_t oa = plan.w.outer_a[static_cast<size_t>(o)], op = plan.w.outer_p[static_cast<size_t>(o)];
    if (!plan.include_self)
      for (int64_t v : plan.named)
        for (int64_t l = l0; l < l1; ++l) a[oa + v * plan.w.along_a + plan.w.inner_a[static_cast<size_t>(l)]] = init;
    for (size_t i = 0; i < plan.w.index.size(); ++i) {
      const int64_t ta = oa + plan.w.index[i] * plan.w.along_a;
      const int64_t tp = op + static_cast<int64_t>(i) * plan.w.along_p;
      for (int64_t l = l0; l < l1; ++l) {
        S<E>& dst = a[ta + plan.w.inner_a[static_cast<size_t>(l)]];
        dst = combine<E>(step, dst, p[tp + plan.w.inner_p[static_cast<size_t>(l)]]);
      }
    }
    if (plan.reduce != Reduce::Mean) continue;
    for (int64_t v : plan.named)
      for (int64_t l = l0; l < l1; ++l) {
        S<E>& dst = a[oa + v * plan.w.along_a + plan.w.inner_a[static_cast<size_t>(l)]];
        dst = divide<E>(dst, plan.terms[static_cast<size_t>(v)]);
      }
  }
}

Outcome index_reduce(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_index_reduce(call)) return Outcome::of_error(v->category, v->message);
  if (call.tensor("self")->dtype() == DType::Bool)
    return Outcome::of_error(ErrorCategory::UnsupportedDtype,
                             "index_reduce: only floating point tensors are supported (got bool)");
  IndexTarget prepared = prepare_index_target(cpu, call);
  if (prepared.done) return *prepared.done;
  const Tensor& target = prepared.target;
  const Tensor& index = *call.tensor("index");
  const int64_t dim = prepared.dim;
  const int64_t size = prepared.size;

  const Tensor source_read = read_before_writes(cpu, *call.tensor("source"), target);
  Plan plan;
  plan.reduce = *parse_reduce(*call.string_arg("reduce"));  // checked: prod, mean, amax or amin
  plan.include_self = call.bool_arg("include_self").value_or(true);
  plan.w = make_slice_walk(target, &source_read, index_values(index), dim);
  std::vector<int64_t> occurrences(static_cast<size_t>(size), 0);
  for (int64_t v : plan.w.index) ++occurrences[static_cast<size_t>(v)];
  for (int64_t v = 0; v < size; ++v)
    if (occurrences[static_cast<size_t>(v)] > 0) plan.named.push_back(v);
  if (plan.reduce == Reduce::Mean) {
    plan.terms = occurrences;
    if (plan.include_self)
      for (int64_t& n : plan.terms) ++n;
  }
  dispatch_dtype(target.dtype(), [&](auto elem) {
    using E = decltype(elem);
    if constexpr (!std::is_same_v<E, BoolElem>)
      for_each_slice_part(cpu.pool(), plan.w,
                          [&](int64_t o0, int64_t o1, int64_t l0, int64_t l1) { run_part<E>(plan, o0, o1, l0, l1); });
  });
  return Outcome::of_outputs({target});
}

}  // namespace

void register_torch_index_reduce(CpuOps& ops) { ops.add_twins("torch.index_reduce_", index_reduce); }

}  // namespace sp::cpu
