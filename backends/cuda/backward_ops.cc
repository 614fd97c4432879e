// backward_ops.cc — the backward ops of the CUDA backend (see
// backward_ops.h), each composed from the forward jobs (cuda_ops.h) by the
// duality of gather and scatter_add (reference/SEMANTICS.md, "Gradients"),
// as the cpu backend composes its own (backends/cpu/ops/backward.cc):
//   gather:            grad_input = zeros, then a scatter-add job of grad_output
//   scatter(_) (src):  grad_self = grad_output with every written position
//                      set to 0 (an overwrite job, value 0); grad_src = a
//                      gather job of grad_output (every duplicate writer
//                      receives its slot's gradient)
//   scatter_add(_):    grad_self = grad_output; grad_src = the gather job
//   scatter_reduce(_): sum: as scatter_add (include_self=False: grad_self
//                      zeroed where scattered); mean: grad_output divided
//                      by each slot's number of terms first, by the forward's
//                      own mean (a multiply-by-1 job with mean set: the
//                      counters and the division of scatter_reduce's mean),
//                      then as sum; amax / amin: the forward's result (the
//                      scatter job's Max / Min), then the extremum job
//                      (kernels/extremum_grad.h): each slot's gradient split
//                      evenly among the terms equal to its result (self one
//                      of them only when include_self); prod: no documented
//                      gradient
//   paddle.scatter:    grad_x = grad_output with the indexed rows zeroed (the
//                      forward's row walk, value 0); grad_updates = the rows
//                      gathered (rows past len(index) get 0)
//   mindspore.scatter_: as scatter(_) with src, negative values wrapped
//                      before r2.10 (the forward's rule)
// Checks in the reference's order (reference/backward_common.cc): the
// forward's own rules (the same shared functions the forward ops call),
// its index bounds (a validation-only job), then the gradient rules
// (backend_rules::check_backward_grads, check_backward_src_like_index,
// shared with cpu). Outputs are fresh contiguous tensors.
#include "backends/cuda/backward_ops.h"

#include <bit>
#include <string>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cuda/reduce_ops.h"
#include "reference/dialect_mindspore.h"
#include "reference/op_table.h"

namespace sp::cuda {

using call_support::fail;
using call_support::meta_or_refuse;
using call_support::OpContext;
using call_support::operand;
using call_support::Refusal;

namespace {

const std::string kGrad(kGradOutput);

void check(const std::optional<backend_rules::Violation>& v) {
  if (v) fail(v->category, v->message);
}

// A forward's index layout and how its values are checked.
struct IndexUse {
  const Tensor* index;
  TensorMeta walk;    // positions visited (the gradient's shape)
  TensorMeta values;  // as the validation pass reads them
  int dim;
  int64_t size;  // of the target along dim
  IndexRule rule;
};

// The forward's index bounds, before the gradient rules: a validation-only
// gather job (no out element). Returns the first bad position, or -1.
int64_t first_bad(const OpContext& cx, const IndexUse& u) {
  GatherJob job;
  job.dtype = DType::UInt8;
  job.index_is_int64 = u.index->dtype() == DType::Int64;
  job.input.meta.rank = u.dim + 1;
  job.input.meta.sizes[u.dim] = u.size;
  job.index = operand(*u.index, u.values);
  job.index_for_validation = u.values;
  job.out = TensorMeta{1, {0}, {1}, 0};
  job.dim = u.dim;
  job.rule = u.rule;
  return cx.executor.run_gather(job, nullptr).first_bad_position;
}

// target (a fresh contiguous tensor) written by `job` (operands set but the
// target): REQUIRES the values validated.
void scatter_into_fresh(const OpContext& cx, const Tensor& target, ScatterJob job, bool rank0_as_1) {
  job.target = operand(target, meta_or_refuse(target, rank0_as_1));
  job.deterministic = cx.deterministic;
  if (cx.executor.run_scatter(job, target.storage()->data()).first_bad_position >= 0)
    throw CudaFailure("a backward job found an index the validation pass accepted");
}

ScatterJob job_over(const Tensor& target, const IndexUse& u) {
  ScatterJob job;
  job.dtype = target.dtype();
  job.index_is_int64 = u.index->dtype() == DType::Int64;
  job.index = operand(*u.index, u.walk);
  job.index_for_validation = u.values;
  job.dim = u.dim;
  job.rule = u.rule;
  return job;
}

// target[.., index[p], ..] = 0 at every visited position.
void zero_scattered(const OpContext& cx, const Tensor& target, const IndexUse& u, bool rank0_as_1) {
  ScatterJob job = job_over(target, u);
  job.mode = WriteMode::Overwrite;
  scatter_into_fresh(cx, target, job, rank0_as_1);
}

// out[p] = from[.., index[p], ..] over the visited positions, into `out`
// (contiguous; its first numel(walk) elements).
void gather_into(const OpContext& cx, const Tensor& out, const Tensor& from, const IndexUse& u, bool rank0_as_1) {
  GatherJob job;
  job.dtype = from.dtype();
  job.index_is_int64 = u.index->dtype() == DType::Int64;
  job.input = operand(from, meta_or_refuse(from, rank0_as_1));
  job.index = operand(*u.index, u.walk);
  job.index_for_validation = u.values;
  job.out = u.walk;
  job.out.offset = 0;
  int64_t stride = 1;
  for (int d = job.out.rank - 1; d >= 0; --d) {
    job.out.strides[d] = stride;
    stride *= job.out.sizes[d];
  }
  job.dim = u.dim;
  job.rule = u.rule;
  if (meta_numel(u.walk) == 0) return;
  if (cx.executor.run_gather(job, out.storage()->data()).first_bad_position >= 0)
    throw CudaFailure("a backward job found an index the validation pass accepted");
}

// The torch scatters' index use (rank 0 as [1]); the bounds, then the
// gradient rules; `no_gradient`: a call no document gives a gradient for.
IndexUse torch_scatter_checks(const OpContext& cx, const OpCall& call, const std::optional<std::string>& no_gradient) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const TensorMeta s = meta_or_refuse(self, true), idx = meta_or_refuse(index, true);
  const int64_t dim = *call.int_arg("dim");
  const int d = static_cast<int>(dim < 0 ? dim + s.rank : dim);
  const IndexUse u{&index, idx, idx, d, s.sizes[d], IndexRule::ZeroBased};
  if (index.numel() > 0)
    if (const int64_t bad = first_bad(cx, u); bad >= 0) call_support::report_bad_index(index, idx, bad, d, s.sizes[d]);
  check(backend_rules::check_backward_grads(call, self.shape(), self.dtype()));
  if (no_gradient) throw Refusal{Outcome::unsupported(*no_gradient)};
  if (const Tensor* src = call.tensor("src")) check(backend_rules::check_backward_src_like_index(*src, index));
  return u;
}

// grad_self (a copy of grad_output, zeroed where written when `zeroed`) and
// grad_src (grad_self's or grad_output's values gathered).
Outcome self_and_src(const OpContext& cx, const OpCall& call, const IndexUse& u, bool zeroed, bool rank0_as_1) {
  const Tensor& grad = *call.tensor(kGrad);
  const Tensor& index = *u.index;
  Tensor grad_self = grad.contiguous();
  std::vector<Tensor> grads;
  if (call.tensor("src")) {
    Tensor grad_src = Tensor::zeros(grad.dtype(), index.shape());
    gather_into(cx, grad_src, grad, u, rank0_as_1);
    grads.push_back(grad_src);
  }
  if (zeroed && index.numel() > 0) zero_scattered(cx, grad_self, u, rank0_as_1);
  grads.insert(grads.begin(), grad_self);
  return Outcome::of_outputs(std::move(grads));
}

// amax / amin: the forward's result (the scatter job's Max / Min, identity
// fill when !include_self), then the extremum job (kernels/extremum_grad.h):
// each slot's gradient shared evenly by the terms equal to its result.
Outcome extremum_grads(const OpContext& cx, const OpCall& call, const IndexUse& u, bool amax, bool include_self) {
  const Tensor& grad = *call.tensor(kGrad);
  const Tensor& src = *call.tensor("src");
  Tensor grad_self = grad.contiguous();
  Tensor grad_src = Tensor::zeros(src.dtype(), u.index->shape());
  if (u.index->numel() == 0) return Outcome::of_outputs({grad_self, grad_src});  // no slot: grad passes through
  const Tensor result = call.tensor("self")->contiguous(), self = call.tensor("self")->contiguous();
  ScatterJob forward = job_over(result, u);
  forward.has_src = true;
  forward.src = operand(src, meta_or_refuse(src, true));
  forward.mode = amax ? WriteMode::Max : WriteMode::Min;
  forward.fill_targets_first = !include_self;
  forward.fill_bits = identity_bits(result.dtype(), forward.mode);
  scatter_into_fresh(cx, result, forward, true);
  ExtremumGradJob job;
  job.dtype = grad.dtype();
  job.index_is_int64 = u.index->dtype() == DType::Int64;
  job.slots = meta_or_refuse(result, true);
  job.result = operand(result, job.slots);
  job.self = operand(self, job.slots);
  job.grad = operand(grad_self, job.slots);
  job.index = operand(*u.index, u.walk);
  job.src = forward.src;
  job.dim = u.dim;
  job.include_self = include_self;
  cx.executor.run_extremum_grad(job, grad_self.storage()->data(), grad_src.storage()->data());
  return Outcome::of_outputs({grad_self, grad_src});
}

}  // namespace

Outcome torch_gather_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_torch_gather(call));
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const TensorMeta in = meta_or_refuse(input, true), idx = meta_or_refuse(index, true);
  const int64_t dim = *call.int_arg("dim");
  const int d = static_cast<int>(dim < 0 ? dim + in.rank : dim);
  const IndexUse u{&index, idx, idx, d, in.sizes[d], IndexRule::ZeroBased};
  if (index.numel() > 0)
    if (const int64_t bad = first_bad(cx, u); bad >= 0) call_support::report_bad_index(index, idx, bad, d, in.sizes[d]);
  check(backend_rules::check_backward_grads(call, index.shape(), input.dtype()));
  Tensor grad_input = Tensor::zeros(input.dtype(), input.shape());
  if (index.numel() == 0) return Outcome::of_outputs({grad_input});
  ScatterJob job = job_over(grad_input, u);
  job.has_src = true;
  job.src = operand(*call.tensor(kGrad), meta_or_refuse(*call.tensor(kGrad), true));
  job.mode = WriteMode::Add;
  scatter_into_fresh(cx, grad_input, job, true);
  return Outcome::of_outputs({grad_input});
}

Outcome torch_scatter_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_torch_scatter(call));
  const std::optional<std::string> reduce = call.string_arg("reduce");
  const IndexUse u = torch_scatter_checks(
      cx, call,
      reduce ? std::optional<std::string>("no documented gradient: scatter with reduce='" + *reduce + "'")
             : std::nullopt);
  return self_and_src(cx, call, u, true, true);
}

Outcome torch_scatter_add_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_torch_scatter(call));
  const IndexUse u = torch_scatter_checks(cx, call, std::nullopt);
  return self_and_src(cx, call, u, false, true);
}

Outcome torch_scatter_reduce_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_torch_scatter_operands(call));
  const std::string reduce = *call.string_arg("reduce");
  if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
    fail(ErrorCategory::InvalidReduce, "reduce argument must be either sum, prod, mean, amax or amin, got " + reduce);
  const IndexUse u = torch_scatter_checks(
      cx, call,
      reduce == "prod" ? std::optional<std::string>("no documented gradient: scatter_reduce with reduce='prod'")
                       : std::nullopt);
  const bool include_self = op_spec(call).arg_or_default(call, "include_self")->b;
  if (reduce == "amax" || reduce == "amin") return extremum_grads(cx, call, u, reduce == "amax", include_self);
  const Tensor& grad = *call.tensor(kGrad);
  const Tensor& index = *u.index;
  Tensor grad_self = grad.contiguous();
  if (reduce == "mean" && index.numel() > 0) {
    // Each slot divided by its number of terms: the forward's mean over a
    // product with 1 (exact: keeps every value's bits, -0 and NaN too).
    ScatterJob job = job_over(grad_self, u);
    job.value_bits = identity_bits(grad.dtype(), WriteMode::Multiply);
    job.mode = WriteMode::Multiply;
    job.mean = true;
    job.mean_counts_self = include_self;
    scatter_into_fresh(cx, grad_self, job, true);
  }
  Tensor grad_src = Tensor::zeros(grad.dtype(), index.shape());
  gather_into(cx, grad_src, grad_self, u, true);
  if (!include_self && index.numel() > 0) zero_scattered(cx, grad_self, u, true);
  return Outcome::of_outputs({grad_self, grad_src});
}

// Rows as the forward walks them (the 1-D index expanded over each row of
// updates' first len(index) rows); negatives wrap from Paddle 3.0 (PD-B3).
Outcome paddle_scatter_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_paddle_scatter(call));
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  const int64_t rows = x.size(0);
  const bool wraps = backend_rules::paddle_negatives_wrap(call);
  TensorMeta walk = meta_or_refuse(updates, false);
  walk.sizes[0] = index.size(0);
  walk.strides[0] = index.stride(0);
  for (int d = 1; d < walk.rank; ++d) walk.strides[d] = 0;
  walk.offset = index.offset();
  const IndexUse u{&index, walk, meta_or_refuse(index, false),
                   0,      rows, wraps ? IndexRule::NegativeWraps : IndexRule::ZeroBased};
  if (index.numel() > 0 && first_bad(cx, u) >= 0)
    fail(ErrorCategory::IndexOutOfBounds, "The index is out of bounds of x's " + std::to_string(rows) + " rows");
  check(backend_rules::check_backward_grads(call, x.shape(), x.dtype()));
  const Tensor& grad = *call.tensor(kGrad);
  Tensor grad_x = grad.contiguous();
  Tensor grad_updates = Tensor::zeros(updates.dtype(), updates.shape());  // rows past len(index) stay 0
  if (meta_numel(walk) == 0) return Outcome::of_outputs({grad_x, grad_updates});
  zero_scattered(cx, grad_x, u, false);
  gather_into(cx, grad_updates, grad, u, false);
  return Outcome::of_outputs({grad_x, grad_updates});
}

// The forward's rules are mindspore_scatter.cc's (versioned), on self as
// read: its overlap rule does not apply (no write happens).
Outcome mindspore_scatter_backward(const OpContext& cx, const OpCall& call) {
  check(backend_rules::check_mindspore_scatter(call));
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const int64_t dim = *call.int_arg("dim");
  const int d = static_cast<int>(dim < 0 ? dim + self.rank() : dim);
  const int64_t size = self.size(d);
  const bool negatives = !ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  const TensorMeta idx = meta_or_refuse(index, false);
  const IndexUse u{&index, idx, idx, d, size, negatives ? IndexRule::NegativeWraps : IndexRule::ZeroBased};
  if (index.numel() > 0)
    if (const int64_t bad = first_bad(cx, u); bad >= 0) {
      int64_t multi[kMaxMetaRank] = {};
      linear_to_multi_index(bad, idx, multi);
      const Shape at(multi, multi + idx.rank);
      fail(ErrorCategory::IndexOutOfBounds, "index" + format_index(at) + "=" +
                                                std::to_string(call_support::index_value_at(index, idx, bad)) +
                                                " is outside [" + std::to_string(negatives ? -size : 0) + ", " +
                                                std::to_string(size) + ") for dim " + std::to_string(d));
    }
  check(backend_rules::check_backward_grads(call, self.shape(), self.dtype()));
  // MindSpore's Note: "The inverse gradient from self to src can be
  // calculated only when the shape of src is the same as that of index."
  if (const Tensor* src = call.tensor("src")) check(backend_rules::check_backward_src_like_index(*src, index));
  if (const std::optional<std::string> reduce = call.string_arg("reduce"))
    throw Refusal{Outcome::unsupported("no documented gradient: mindspore scatter_ with reduce='" + *reduce + "'")};
  return self_and_src(cx, call, u, true, false);
}

}  // namespace sp::cuda
