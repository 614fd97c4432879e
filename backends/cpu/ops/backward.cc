// backward.cc — cpu kernels for the backward ops (`<forward>.backward`,
// reference/op_table.h): the gradients of torch.gather, torch.scatter(_),
// torch.scatter_add(_), torch.scatter_reduce(_) and paddle.scatter with
// respect to their differentiable operands, from grad_output.
//
// Every gradient runs through the backend's own forward kernels, by the
// duality of gather and scatter_add (reference/SEMANTICS.md, "Gradients"):
//   gather:            grad_input = zeros, then scatter_add of grad_output
//   scatter(_) (src):  grad_self = grad_output with every written position
//                      set to 0 (the scatter kernel with value 0);
//                      grad_src = gather of grad_output (every duplicate
//                      writer receives its slot's gradient)
//   scatter_add(_):    grad_self = grad_output; grad_src = gather
//   scatter_reduce(_): sum: as scatter_add (include_self=False: grad_self
//                      zeroed where scattered); mean: grad_output / N first
//                      (N: the slot's number of terms, counted with a
//                      scatter_add of 1.0 into float64, exact), then as sum;
//                      amax / amin: the slot's gradient split evenly among
//                      the terms equal to the result (self one of them only
//                      when include_self)
//   paddle.scatter:    grad_x = grad_output with the indexed rows zeroed;
//                      grad_updates = the rows gathered (every duplicate;
//                      rows past len(index), which the forward never
//                      reads, get 0)
//   mindspore.scatter_: as scatter(_) with src (negative index values
//                      wrapped before r2.10, as the forward does; every
//                      duplicate writer gets its slot's gradient, which
//                      the reference's MS-GR5 allows)
// Checks, in the reference's order (reference/backward_common.cc): the
// forward's own rules (the same functions the forward kernels call, so the
// same error categories) and its index bounds; the differentiable operands
// must be floating; grad_output's shape and dtype against the forward's
// output; then src's shape against index's. Outputs are fresh contiguous
// tensors, grad_<operand> in the forward's operand order.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/reduce_ops.h"
#include "backends/cpu/slice_walk.h"
#include "reference/dialect_mindspore.h"
#include "reference/messages_mindspore.h"
#include "reference/messages_paddle.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

// OpCall::tensor takes a std::string.
const std::string kGrad(kGradOutput);

Outcome violation(const backend_rules::Violation& v) { return Outcome::of_error(v.category, v.message); }

// The gradient rules, shared with the cuda backend (arg_rules.h).
std::optional<Outcome> check_grads(const OpCall& call, const Shape& output_shape, DType output_dtype) {
  if (auto v = backend_rules::check_backward_grads(call, output_shape, output_dtype)) return violation(*v);
  return std::nullopt;
}
std::optional<Outcome> check_src_like_index(const Tensor& src, const Tensor& index) {
  if (auto v = backend_rules::check_backward_src_like_index(src, index)) return violation(*v);
  return std::nullopt;
}

// out[p] = from[.., index[p], ..] along dim over index's positions: a fresh
// contiguous tensor of index's shape. REQUIRES: index values in [0, size).
Tensor gather_along(CpuContext& cpu, const Tensor& from, const Tensor& index, int64_t dim) {
  Tensor out = cpu.uninitialized(from.dtype(), index.shape());
  if (index.numel() == 0) return out;
  const Shape index_shape = logical_shape(index);
  const IndexWalk walk = make_walk(index_shape, dim, logical_strides(from), logical_strides(index),
                                   contiguous_strides(index_shape), logical_shape(from)[static_cast<size_t>(dim)]);
  if (!gather_kernel(from.dtype(), index.dtype(), data(from), data(index), data(out), walk, cpu.pool()))
    throw std::logic_error("gather kernel met an index value the bounds scan passed");
  return out;
}

// Sets target[.., index[p], ..] = 0 along dim for every position p of index.
void zero_scattered(CpuContext& cpu, const Tensor& target, const Tensor& index, int64_t dim) {
  if (index.numel() == 0) return;
  cpu.scatter_into(target, index, logical_shape(index), logical_strides(index), nullptr, uint64_t{0}, dim,
                   ScatterOp::Overwrite, false);
}

// fn(lo, hi) over disjoint ranges covering [0, n): in parts on the pool
// when the elementwise work is large enough to pay for waking it.
template <class Fn>
void for_ranges(CpuContext& cpu, int64_t n, const Fn& fn) {
  const int parts = parts_for(n, cpu.pool());
  if (parts <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  cpu.pool().run(parts, [&](int i) { fn(n * i / parts, n * (i + 1) / parts); });
}

// The number of index positions that address each element of a `shape`
// target along dim (plus `base` each), as float64: exact up to 2^53, so a
// 16-bit gradient is divided by its true count.
Tensor term_counts(CpuContext& cpu, const Shape& shape, const Tensor& index, int64_t dim, double base) {
  Tensor counts = cpu.uninitialized(DType::Float64, shape);
  auto* c = reinterpret_cast<double*>(data(counts));
  for_ranges(cpu, counts.numel(), [&](int64_t lo, int64_t hi) { std::fill(c + lo, c + hi, base); });
  if (index.numel() > 0)
    cpu.scatter_into(counts, index, logical_shape(index), logical_strides(index), nullptr, std::bit_cast<uint64_t>(1.0),
                     dim, ScatterOp::Add, false);
  return counts;
}

// grad[i] / counts[i] (one correctly rounded division) where counts[i] > 1,
// grad[i] elsewhere. `grad` contiguous, written in place.
void divide_by_counts(CpuContext& cpu, const Tensor& grad, const Tensor& counts) {
  const auto* c = reinterpret_cast<const double*>(data(counts));
  dispatch_dtype(grad.dtype(), [&](auto elem) {
    using E = decltype(elem);
    auto* g = reinterpret_cast<S<E>*>(data(grad));
    for_ranges(cpu, grad.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        if (c[i] > 1.0) g[i] = divide<E>(g[i], static_cast<int64_t>(c[i]));
    });
  });
}

// torch.gather.backward: grad_input.
Outcome torch_gather_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_gather(call)) return violation(*v);
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const Shape input_shape = logical_shape(input), index_shape = logical_shape(index);
  const int64_t dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(input_shape.size()));
  const int64_t size = input_shape[static_cast<size_t>(dim)];
  if (index.numel() > 0 &&
      find_bad_index(index.dtype(), data(index), index_shape, logical_strides(index), 0, size, cpu.pool()))
    return cpu.first_bad_index_error(index, index_shape, logical_strides(index), 0, size, dim);
  if (auto e = check_grads(call, index.shape(), input.dtype())) return *e;
  Tensor grad_input = Tensor::zeros(input.dtype(), input.shape());
  if (index.numel() > 0)
    cpu.scatter_into(grad_input, index, index_shape, logical_strides(index), call.tensor(kGrad), std::nullopt, dim,
                     ScatterOp::Add, false);
  return Outcome::of_outputs({grad_input});
}

// What every torch scatter backward shares after its forward's own rules:
// the bounds scan, the grad checks, `no_gradient` (a call no document gives
// a gradient for: unsupported, the reference leaving it unspecified), then
// src's shape.
struct ScatterGrad {
  int64_t dim = 0;
  std::optional<Outcome> done;
};
ScatterGrad scatter_grad_checks(CpuContext& cpu, const OpCall& call,
                                const std::optional<std::string>& no_gradient = std::nullopt) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  ScatterGrad g;
  g.dim = wrap_dim(*call.int_arg("dim"), static_cast<int64_t>(logical_shape(self).size()));
  const int64_t size = logical_shape(self)[static_cast<size_t>(g.dim)];
  if (index.numel() > 0 &&
      find_bad_index(index.dtype(), data(index), logical_shape(index), logical_strides(index), 0, size, cpu.pool())) {
    g.done = cpu.first_bad_index_error(index, logical_shape(index), logical_strides(index), 0, size, g.dim);
    return g;
  }
  if (auto e = check_grads(call, self.shape(), self.dtype())) {
    g.done = *e;
    return g;
  }
  if (no_gradient) {
    g.done = Outcome::unsupported(*no_gradient);
    return g;
  }
  if (const Tensor* src = call.tensor("src"))
    if (auto e = check_src_like_index(*src, index)) g.done = *e;
  return g;
}

// torch.scatter_/scatter.backward: grad_self, and grad_src with src.
Outcome torch_scatter_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_scatter(call)) return violation(*v);
  const std::optional<std::string> reduce = call.string_arg("reduce");
  const ScatterGrad g = scatter_grad_checks(
      cpu, call,
      reduce ? std::optional<std::string>("no documented gradient: scatter with reduce='" + *reduce + "'")
             : std::nullopt);
  if (g.done) return *g.done;
  const Tensor& index = *call.tensor("index");
  const Tensor& grad = *call.tensor(kGrad);
  std::vector<Tensor> grads;
  Tensor grad_self = cpu.fresh_copy(grad);
  zero_scattered(cpu, grad_self, index, g.dim);
  grads.push_back(grad_self);
  if (call.tensor("src")) grads.push_back(gather_along(cpu, grad, index, g.dim));
  return Outcome::of_outputs(std::move(grads));
}

// torch.scatter_add_/scatter_add.backward: grad_self, grad_src.
Outcome torch_scatter_add_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_scatter(call)) return violation(*v);
  const ScatterGrad g = scatter_grad_checks(cpu, call);
  if (g.done) return *g.done;
  const Tensor& grad = *call.tensor(kGrad);
  return Outcome::of_outputs({cpu.fresh_copy(grad), gather_along(cpu, grad, *call.tensor("index"), g.dim)});
}

// amax / amin: the terms of each slot equal to its result share the slot's
// gradient evenly. `grad_self` (a contiguous copy of grad_output) becomes
// grad_self; returns grad_src. NaN results: a term "equals" a NaN result
// when it is NaN itself (the terms that made it).
Tensor extremum_grads(CpuContext& cpu, const OpCall& call, Reduce reduce, bool include_self, int64_t dim,
                      const Tensor& grad_self) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  Tensor result = cpu.fresh_copy(self);
  if (index.numel() == 0) return cpu.uninitialized(src.dtype(), index.shape());  // no slot: grad_self passes through
  scatter_reduce_into(cpu, result, index, src, dim, reduce, include_self);
  const Tensor self_c = cpu.fresh_copy(self);
  const Tensor src_c = cpu.fresh_copy(src);
  const Tensor value = gather_along(cpu, result, index, dim);  // each term's slot result
  // Per slot: hits (index positions addressing it) and winners (terms equal
  // to the result, self included when include_self and equal).
  const Tensor hits = term_counts(cpu, self.shape(), index, dim, 0.0);
  Tensor src_wins = cpu.uninitialized(DType::Float64, index.shape());
  Tensor winners = cpu.uninitialized(DType::Float64, self.shape());
  Tensor grad_src = cpu.uninitialized(self.dtype(), index.shape());
  dispatch_dtype(self.dtype(), [&](auto elem) {
    using E = decltype(elem);
    const auto same = [](S<E> a, S<E> b) {
      return is_nan<E>(a) ? is_nan<E>(b) : !is_nan<E>(b) && E::load(a) == E::load(b);
    };
    const auto* sv = reinterpret_cast<const S<E>*>(data(self_c));
    const auto* rv = reinterpret_cast<const S<E>*>(data(result));
    const auto* xv = reinterpret_cast<const S<E>*>(data(src_c));
    const auto* vv = reinterpret_cast<const S<E>*>(data(value));
    auto* sw = reinterpret_cast<double*>(data(src_wins));
    auto* w = reinterpret_cast<double*>(data(winners));
    for_ranges(cpu, index.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j) sw[j] = same(xv[j], vv[j]) ? 1.0 : 0.0;
    });
    for_ranges(cpu, self.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) w[i] = include_self && same(sv[i], rv[i]) ? 1.0 : 0.0;
    });
    if (index.numel() > 0)
      cpu.scatter_into(winners, index, logical_shape(index), logical_strides(index), &src_wins, std::nullopt, dim,
                       ScatterOp::Add, false);
    // grad_self: grad / winners where self won a hit slot, 0 where it lost
    // one, grad where no term reached it.
    const auto* h = reinterpret_cast<const double*>(data(hits));
    auto* g = reinterpret_cast<S<E>*>(data(grad_self));
    Tensor shared = cpu.uninitialized(self.dtype(), self.shape());  // each winner's share, per slot
    auto* sh = reinterpret_cast<S<E>*>(data(shared));
    for_ranges(cpu, self.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        if (h[i] == 0.0) {
          sh[i] = g[i];
          continue;
        }
        sh[i] = w[i] > 1.0 ? divide<E>(g[i], static_cast<int64_t>(w[i])) : g[i];
        g[i] = include_self && same(sv[i], rv[i]) ? sh[i] : identity<E>(Reduce::Sum);
      }
    });
    const Tensor share_of_term = gather_along(cpu, shared, index, dim);
    const auto* st = reinterpret_cast<const S<E>*>(data(share_of_term));
    auto* gs = reinterpret_cast<S<E>*>(data(grad_src));
    for_ranges(cpu, index.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j) gs[j] = sw[j] != 0.0 ? st[j] : identity<E>(Reduce::Sum);
    });
  });
  return grad_src;
}

// torch.scatter_reduce_/scatter_reduce.backward: grad_self, grad_src.
Outcome torch_scatter_reduce_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_scatter_operands(call)) return violation(*v);
  const std::optional<Reduce> reduce = parse_reduce(*call.string_arg("reduce"));
  if (!reduce) return Outcome::of_error(ErrorCategory::InvalidReduce, ref::torch_messages::scatter_reduce_mode());
  const ScatterGrad g = scatter_grad_checks(
      cpu, call,
      *reduce == Reduce::Prod ? std::optional<std::string>("no documented gradient: scatter_reduce with reduce='prod'")
                              : std::nullopt);
  if (g.done) return *g.done;
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const bool include_self = call.bool_arg("include_self").value_or(true);
  Tensor grad_self = cpu.fresh_copy(*call.tensor(kGrad));
  if (*reduce == Reduce::Amax || *reduce == Reduce::Amin) {
    Tensor grad_src = extremum_grads(cpu, call, *reduce, include_self, g.dim, grad_self);
    return Outcome::of_outputs({grad_self, grad_src});
  }
  if (*reduce == Reduce::Mean)
    divide_by_counts(cpu, grad_self, term_counts(cpu, self.shape(), index, g.dim, include_self ? 1.0 : 0.0));
  Tensor grad_src = gather_along(cpu, grad_self, index, g.dim);
  if (!include_self) zero_scattered(cpu, grad_self, index, g.dim);
  return Outcome::of_outputs({grad_self, grad_src});
}

// paddle.scatter.backward: grad_x, grad_updates (both overwrite modes).
Outcome paddle_scatter_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_paddle_scatter(call)) return violation(*v);
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  const int64_t rows = x.size(0);
  const bool wraps = backend_rules::paddle_negatives_wrap(call);
  // The forward's bounds (paddle_scatter.cc): negatives wrap from Paddle
  // 3.0 (PD-B3), fail before it.
  if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), wraps ? -rows : 0, rows,
                                cpu.pool()))
    return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                             ref::paddle_messages::bad_index(bad->position[0], bad->value, rows, wraps));
  if (auto e = check_grads(call, x.shape(), x.dtype())) return *e;
  const Tensor& grad = *call.tensor(kGrad);
  Tensor grad_x = cpu.fresh_copy(grad);
  Tensor grad_updates = Tensor::zeros(updates.dtype(), updates.shape());  // rows past len(index) stay 0
  Shape walked = updates.shape();
  walked[0] = index.size(0);
  if (checked_numel(walked) == 0) return Outcome::of_outputs({grad_x, grad_updates});
  // The 1-D index expanded over each row, as the forward walks it.
  Shape index_strides(walked.size(), 0);
  index_strides[0] = index.stride(0);
  cpu.scatter_into(grad_x, index, walked, index_strides, nullptr, uint64_t{0}, 0, ScatterOp::Overwrite, false);
  // The gather kernel takes [0, rows) only: wrap negative rows first.
  Tensor rows_index = index;
  if (find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), 0, rows, cpu.pool())) {
    std::vector<int64_t> v = index_values(index);
    rows_index = Tensor::zeros(DType::Int64, {static_cast<int64_t>(v.size())});
    auto* r = reinterpret_cast<int64_t*>(data(rows_index));
    for (size_t i = 0; i < v.size(); ++i) r[i] = v[i] < 0 ? v[i] + rows : v[i];
    index_strides[0] = 1;
  }
  const IndexWalk walk = make_walk(walked, 0, logical_strides(grad), index_strides, contiguous_strides(walked), rows);
  if (!gather_kernel(grad.dtype(), rows_index.dtype(), data(grad), data(rows_index), data(grad_updates), walk,
                     cpu.pool()))
    throw std::logic_error("gather kernel met an index value the bounds scan passed");
  return Outcome::of_outputs({grad_x, grad_updates});
}

// mindspore.scatter_.backward: grad_self, and grad_src with src. The
// forward's rules are mindspore_scatter.cc's (versioned), on self as read:
// its overlap rule does not apply (no write happens).
Outcome mindspore_scatter_backward(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_mindspore_scatter(call)) return violation(*v);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const int64_t dim = wrap_dim(*call.int_arg("dim"), self.rank());
  const int64_t size = self.size(dim);
  const bool negatives_allowed = !ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  const int64_t lo = negatives_allowed ? -size : 0;
  if (index.numel() > 0)
    if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), lo, size, cpu.pool()))
      return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                               ref::mindspore_messages::index_outside(bad->position, bad->value, lo, size, dim));
  if (auto e = check_grads(call, self.shape(), self.dtype())) return *e;
  // MindSpore's Note: "The inverse gradient from self to src can be
  // calculated only when the shape of src is the same as that of index."
  if (src)
    if (auto e = check_src_like_index(*src, index)) return *e;
  if (const std::optional<std::string> reduce = call.string_arg("reduce"))
    return Outcome::unsupported("no documented gradient: mindspore scatter_ with reduce='" + *reduce + "'");
  const Tensor& grad = *call.tensor(kGrad);
  std::vector<Tensor> grads;
  Tensor grad_self = cpu.fresh_copy(grad);
  zero_scattered(cpu, grad_self, index, dim);
  grads.push_back(grad_self);
  if (src) {
    // The gather kernel takes [0, size) only: wrap negative values first.
    Tensor wrapped = index;
    if (index.numel() > 0 &&
        find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), 0, size, cpu.pool())) {
      wrapped = Tensor::zeros(DType::Int64, index.shape());
      auto* w = reinterpret_cast<int64_t*>(data(wrapped));
      Shape at(static_cast<size_t>(index.rank()), 0);
      int64_t i = 0;
      do {
        const int64_t v = index.value_at(at).i;
        w[i++] = v < 0 ? v + size : v;
      } while (next_index(at, index.shape()));
    }
    grads.push_back(gather_along(cpu, grad, wrapped, dim));
  }
  return Outcome::of_outputs(std::move(grads));
}

}  // namespace

void register_backward(CpuOps& ops) {
  ops.add_backward("torch.gather", torch_gather_backward);
  ops.add_backward("torch.scatter_", torch_scatter_backward);
  ops.add_backward("torch.scatter_add_", torch_scatter_add_backward);
  ops.add_backward("torch.scatter_reduce_", torch_scatter_reduce_backward);
  ops.add_backward("paddle.scatter", paddle_scatter_backward);
  ops.add_backward("mindspore.scatter_", mindspore_scatter_backward);
}

}  // namespace sp::cpu
