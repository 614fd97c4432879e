// torch_scatter_reduce.cc — cpu kernels for Tensor.scatter_reduce_ and
// torch.scatter_reduce (reduce sum / prod / mean / amax / amin,
// include_self).
//
// Validate (the PyTorch scatter operand rules of backends/common/arg_rules.h,
// then reduce), scan the index values (self untouched on a bad one), then:
//   include_self=False: every indexed element of self is first set to the
//     reduction's identity (0, 1, -inf / lowest, +inf / max; mean: 0);
//   every index position combines src into its target, one correctly
//     rounded op at a time in the element's dtype (integers wrap);
//   mean: each indexed element is divided by its number of terms (self
//     counts when include_self), floor division for integers; bool has no
//     mean (unsupported_dtype, as in LibTorch 1.13).
// Targets never indexed keep self's value.
//
// Parallel without atomics: position (o, k, l) of the index writes
// self[o, index(o, k, l), l], so parts that own disjoint sets of outer
// positions, of inner positions or of target values along dim never meet
// (the split is chosen below). Each part walks k in order, so a target's
// terms are combined in index order.
#include <cmath>
#include <limits>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/reduce_ops.h"
#include "backends/cpu/row_reduce.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

struct Plan {
  IndexWalk walk;
  std::byte* a = nullptr;
  const std::byte* x = nullptr;
  const std::byte* p = nullptr;
  DType index_dtype = DType::Int64;
  Reduce reduce = Reduce::Sum;
  bool include_self = true;
  std::vector<int32_t>* counts = nullptr;  // mean: terms per target, by offset from a
};

// One part of the work: outer positions [o0, o1), inner positions [l0, l1),
// and only the index values in [v0, v1) (the targets it owns).
struct Part {
  int64_t o0, o1, l0, l1, v0, v1;
};

template <class I>
int64_t index_at(const std::byte* x, int64_t offset) {
  return static_cast<int64_t>(reinterpret_cast<const I*>(x)[offset]);
}

// Calls fn(a_offset, p_offset, n, a_step, p_step) for runs of n index
// positions of `part` that share one index value... or single positions;
// k in order, so a target's terms come in index order.
template <class I, class Fn>
void walk_part(const Plan& plan, const Part& part, Fn&& fn) {
  const IndexWalk& w = plan.walk;
  const Axis last = w.inner.empty() ? Axis{} : w.inner.back();
  const bool row_constant = w.index_row_constant();
  for (int64_t o = part.o0; o < part.o1; ++o) {
    const Offsets base = w.outer_offsets(o);
    for (int64_t k = 0; k < w.K; ++k) {
      const int64_t xk = base.x + k * w.along.x, pk = base.p + k * w.along.p;
      if (row_constant) {
        // An expanded index (or none inner): one read addresses the whole row.
        const int64_t v = index_at<I>(plan.x, xk);  // in [0, S): scanned
        if (v < part.v0 || v >= part.v1) continue;
        const int64_t ak = base.a + v * w.along.a;
        w.for_inner_runs(part.l0, part.l1, [&](const Offsets& off, int64_t, int64_t n) {
          fn(ak + off.a, pk + off.p, n, last.a, last.p);
        });
        continue;
      }
      w.for_inner_runs(part.l0, part.l1, [&](const Offsets& off, int64_t, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t v = index_at<I>(plan.x, xk + off.x + j * last.x);
          if (v < part.v0 || v >= part.v1) continue;
          fn(base.a + v * w.along.a + off.a + j * last.a, pk + off.p + j * last.p, 1, 0, 0);
        }
      });
    }
  }
}

template <class E, class I>
void run_part(const Plan& plan, const Part& part) {
  auto* a = reinterpret_cast<S<E>*>(plan.a);
  const auto* p = reinterpret_cast<const S<E>*>(plan.p);
  if (!plan.include_self) {
    const S<E> init = identity<E>(plan.reduce);
    walk_part<I>(plan, part, [&](int64_t at, int64_t, int64_t n, int64_t as, int64_t) {
      for (int64_t j = 0; j < n; ++j) a[at + j * as] = init;
    });
  }
  const Reduce r = plan.reduce == Reduce::Mean ? Reduce::Sum : plan.reduce;
  int32_t* counts = plan.counts ? plan.counts->data() : nullptr;
  walk_part<I>(plan, part, [&](int64_t at, int64_t from, int64_t n, int64_t as, int64_t ps) {
    if (as == 1 && ps == 1) {  // applies when self's and src's rows are contiguous
      S<E>* dst = a + at;
      const S<E>* src = p + from;
      for (int64_t j = 0; j < n; ++j) dst[j] = combine<E>(r, dst[j], src[j]);
    } else {
      for (int64_t j = 0; j < n; ++j) a[at + j * as] = combine<E>(r, a[at + j * as], p[from + j * ps]);
    }
    if (counts)
      for (int64_t j = 0; j < n; ++j) ++counts[at + j * as];
  });
}

// mean, after every part has summed: each indexed target (count > 0)
// divided by its number of terms, over target offsets [lo, hi).
template <class E>
void divide_range(const Plan& plan, int64_t lo, int64_t hi) {
  auto* a = reinterpret_cast<S<E>*>(plan.a);
  const int32_t* counts = plan.counts->data();
  const int32_t self_term = plan.include_self ? 1 : 0;
  for (int64_t at = lo; at < hi; ++at)
    if (counts[at] > 0) a[at] = divide<E>(a[at], counts[at] + self_term);
}

Outcome scatter_reduce(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_scatter_operands(call)) return Outcome::of_error(v->category, v->message);
  const std::optional<Reduce> reduce = parse_reduce(*call.string_arg("reduce"));
  if (!reduce) return Outcome::of_error(ErrorCategory::InvalidReduce, ref::torch_messages::scatter_reduce_mode());
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  // LibTorch 1.13 has no bool kernel for mean (whatever the index holds,
  // empty included): the reference's unsupported_dtype.
  if (*reduce == Reduce::Mean && self.dtype() == DType::Bool)
    return Outcome::of_error(ErrorCategory::UnsupportedDtype, ref::torch_messages::reduce_mean_bool());
  Tensor target = is_inplace_op(call) ? self : cpu.fresh_copy(self);
  if (index.numel() == 0) return Outcome::of_outputs({target});
  const Shape index_shape = logical_shape(index), index_strides = logical_strides(index);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(logical_shape(self).size()));
  const int64_t size = logical_shape(self)[static_cast<size_t>(dim)];
  if (find_bad_index(index.dtype(), data(index), index_shape, index_strides, 0, size, cpu.pool()))
    return cpu.first_bad_index_error(index, index_shape, index_strides, 0, size, dim);
  scatter_reduce_into(cpu, target, index, src, dim, *reduce, call.bool_arg("include_self").value_or(true));
  return Outcome::of_outputs({target});
}

}  // namespace

void scatter_reduce_into(CpuContext& cpu, const Tensor& target, const Tensor& index, const Tensor& src, int64_t dim,
                         Reduce reduce_op, bool include_self) {
  const std::optional<Reduce> reduce = reduce_op;
  const Shape index_shape = logical_shape(index);
  const int64_t size = logical_shape(target)[static_cast<size_t>(dim)];
  // Operands sharing the target's storage are read as they were before the call.
  const auto shares_target = [&](const Tensor& t) { return t.storage() == target.storage(); };
  const Tensor index_read = shares_target(index) ? cpu.fresh_copy(index) : index;
  const Tensor src_read = shares_target(src) ? cpu.fresh_copy(src) : src;

  Plan plan;
  plan.walk = make_walk(index_shape, dim, logical_strides(target), logical_strides(index_read),
                        logical_strides(src_read), size);
  plan.a = data(target);
  plan.x = data(index_read);
  plan.p = data(src_read);
  plan.index_dtype = index.dtype();
  plan.reduce = *reduce;
  plan.include_self = include_self;
  const IndexWalk& w = plan.walk;
  const int64_t outer = w.outer_count(), inner = w.inner_count();
  const int threads = threads_for(outer * w.K * inner, cpu.pool());
  // Whole unit-stride rows (an index expanded along them, few outer
  // positions): the sorted row reduction, each outer position in turn.
  if (outer < 2 * threads && walk_has_whole_rows(w) && !(*reduce == Reduce::Mean && target.dtype() == DType::Bool) &&
      row_reduce_applies(w.K, w.S, inner, threads)) {
    for (int64_t o = 0; o < outer; ++o) {
      RowReduceArgs g = walk_row_args(w, o, target.dtype(), index.dtype(), plan.a, plan.x, plan.p);
      g.reduce = *reduce;
      g.include_self = include_self;
      row_reduce(g, cpu.pool(), cpu.row_scratch());  // the caller checked the values: always in range
    }
    return;
  }
  std::vector<int32_t> counts;
  if (*reduce == Reduce::Mean) {
    // Offsets from `a` reach at most the view's last element.
    int64_t span = 1;
    const Shape shape = logical_shape(target), strides = logical_strides(target);
    for (size_t d = 0; d < shape.size(); ++d) span += (shape[d] - 1) * strides[d];
    counts.assign(static_cast<size_t>(span), 0);
    plan.counts = &counts;
  }

  // How the work is split (no two parts ever write one target):
  //   by outer position, when there are enough of them;
  //   else by ranges of target values along dim (each part reads the whole
  //     index, and works only on its own targets), when one read of the
  //     index addresses a row or the rows are short;
  //   else by ranges of inner positions (long rows, an index varying along them).
  enum class Split { Outer, Values, Inner } split = Split::Outer;
  int64_t extent = outer;
  if (outer < 2 * threads) {
    const bool by_values = w.index_row_constant() || inner < 64 * threads;
    split = by_values ? Split::Values : Split::Inner;
    extent = by_values ? w.S : inner;
  }
  const int parts = static_cast<int>(std::min<int64_t>(extent, threads == 1 ? 1 : threads * kPartsPerThread));
  const auto part_of = [&](int i) {
    const int64_t lo = extent * i / parts, hi = extent * (i + 1) / parts;
    switch (split) {
      case Split::Outer:
        return Part{lo, hi, 0, inner, 0, w.S};
      case Split::Values:
        return Part{0, outer, 0, inner, lo, hi};
      case Split::Inner:
        break;
    }
    return Part{0, outer, lo, hi, 0, w.S};
  };
  const auto for_parts = [&](int n, const auto& fn) {
    if (n <= 1)
      fn(0);
    else
      cpu.pool().run(n, fn);
  };
  dispatch_dtype(target.dtype(), [&](auto elem) {
    using E = decltype(elem);
    for_parts(parts, [&](int i) {
      if (plan.index_dtype == DType::Int32)
        run_part<E, int32_t>(plan, part_of(i));
      else
        run_part<E, int64_t>(plan, part_of(i));
    });
    if (!plan.counts) return;
    const auto span = static_cast<int64_t>(plan.counts->size());
    const int divide_parts = static_cast<int>(std::min<int64_t>(parts, std::max<int64_t>(1, span / 4096)));
    for_parts(divide_parts,
              [&](int i) { divide_range<E>(plan, span * i / divide_parts, span * (i + 1) / divide_parts); });
  });
}

void register_torch_scatter_reduce(CpuOps& ops) { ops.add_twins("torch.scatter_reduce_", scatter_reduce); }

}  // namespace sp::cpu
