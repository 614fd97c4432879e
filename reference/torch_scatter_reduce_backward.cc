// torch_scatter_reduce_backward.cc — the gradients of
// Tensor.scatter_reduce_(dim, index, src, reduce, *, include_self=True) and
// torch.scatter_reduce(...) with respect to self and src (ops
// "torch.scatter_reduce_.backward", "torch.scatter_reduce.backward").
//
// A slot is an element of self that some index position points at; its
// terms are src[i][j][k] of every such position plus self's own value when
// include_self (T-RD2). Elements no position points at pass grad_output
// through. Per reduce (clauses T-GR10 .. T-GR13):
//   sum   grad_self = grad_output at a slot if include_self, else 0 (T-GR5);
//         grad_src[i][j][k] = grad_output[slot]                       (T-GR10)
//   mean  N = the slot's number of terms; grad_self = grad_output / N at a
//         slot if include_self, else 0; grad_src = grad_output[slot] / N;
//         each quotient one division in the dtype                     (T-GR11)
//   amax / amin: the slot's gradient is split evenly among the terms equal
//         to the result (PyTorch's amax/amin documentation: "evenly
//         distributes gradient between equal values"); a term that is not
//         the result gets 0; self is a term only when include_self. A slot
//         whose result is NaN: its gradients are unspecified           (T-GR12)
//   prod  no document gives its gradient: the call is unspecified    (T-GR13)
//
// Checks, in order: the forward's own (torch_scatter_reduce.cc, on a
// contiguous copy of self; T-GR1), self and src floating (T-GR2),
// grad_output shaped and typed like self (T-GR3), src.shape == index.shape
// (the scatter_reduce_ documentation: "The backward pass is implemented
// only for src.shape == index.shape", T-GR4). Visit: index positions
// row-major.
#include <cmath>
#include <map>

#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation torch_scatter_reduce_backward(const OpCall& call, Trace* trace) {
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  const ref::BackwardStart start = ref::start_backward(call, ref::kTorchBackwardClauses, trace, [&](ref::RuleLog& log) {
    ref::src_shape_equals_index_shape(log, src, index);
  });
  if (start.answer) return *start.answer;
  const std::string reduce = *call.string_arg("reduce");
  if (reduce == "prod")
    return ref::unspecified_expectation("T-GR13: scatter_reduce with reduce='prod': no document gives its gradient",
                                        trace);
  const bool include_self = op.arg_or_default(call, "include_self")->b;
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), ref::logical_rank(self));
  const bool extreme = reduce == "amax" || reduce == "amin";

  // Every slot's terms, by self's element (row-major linear position).
  struct Slot {
    Shape at;                  // self's multi-index
    int64_t count = 0;         // its terms (self included when include_self)
    double result = 0.0;       // amax / amin: the reduction's value
    bool nan = false;          // amax / amin: a NaN term makes the result NaN
    int64_t contributors = 0;  // amax / amin: terms equal to the result
  };
  const Tensor self_layout = Tensor::zeros(self.dtype(), self.shape());  // linear positions of self
  std::map<int64_t, Slot> slots;
  const auto slot_of = [&](const Shape& at) -> Slot& {
    Slot& s = slots[self_layout.element_offset(at)];
    s.at = at;
    return s;
  };
  const auto better = [&](double a, double b) { return reduce == "amax" ? a > b : a < b; };
  const auto fold = [&](Slot& s, double term) {
    s.nan = s.nan || std::isnan(term);
    if (s.count == 0 || better(term, s.result)) s.result = term;
    ++s.count;
  };
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape at = ref::position_along_dim(self, p, dim, p.value);
    Slot& s = slot_of(at);
    if (s.count == 0 && include_self) fold(s, self.value_at(at).f);
    fold(s, src.value_at(ref::same_position(src, p)).f);
  });
  if (extreme) {
    for (auto& [linear, s] : slots) {
      if (include_self && self.value_at(s.at).f == s.result) ++s.contributors;
    }
    ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
      Slot& s = slots[self_layout.element_offset(ref::position_along_dim(self, p, dim, p.value))];
      if (src.value_at(ref::same_position(src, p)).f == s.result) ++s.contributors;
    });
  }

  const std::string pass =
      reduce == "mean" ? "/ 1 (no index position points there; T-GR11)" : "(no index position points there)";
  ref::GradientBuilder grad_self("grad_self", grad_output, reduce == "mean" ? "" : pass, trace);
  ref::GradientBuilder grad_src("grad_src", Tensor::zeros(src.dtype(), src.shape()), "", trace);
  const std::string reduce_name = reduce;
  // A mean divides every element of grad_output by its count, 1 where
  // nothing points (LibTorch's grad / N): exact, but a NaN's payload is open.
  if (reduce == "mean" && grad_output.numel() > 0) {
    Shape idx(static_cast<size_t>(grad_output.rank()), 0);
    do {
      if (!slots.count(self_layout.element_offset(idx)))
        grad_self.divide(idx, grad_output, idx, 1, "grad_output", nullptr,
                         trace ? "(no index position points there; T-GR11)" : "");
    } while (next_index(idx, grad_output.shape()));
  }
  // grad_self at every slot.
  for (const auto& [linear, s] : slots) {
    const std::string at_text = trace ? "self" + format_index(s.at) : "";
    if (!include_self) {
      grad_self.mask(s.at,
                     reduce == "sum"    ? "T-GR10"
                     : reduce == "mean" ? "T-GR11"
                                        : "T-GR12",
                     nullptr, trace ? "(include_self=False: " + at_text + " is not a term)" : "");
    } else if (reduce == "sum") {
      grad_self.copy(s.at, grad_output, s.at, "grad_output", nullptr,
                     trace ? "(" + at_text + " is a term of the sum; T-GR10)" : "");
    } else if (reduce == "mean") {
      grad_self.divide(s.at, grad_output, s.at, s.count, "grad_output", nullptr,
                       trace ? "(" + at_text + " is one of " + std::to_string(s.count) + " terms; T-GR11)" : "");
    } else if (s.nan) {
      grad_self.unspecified(s.at, "T-GR12: the " + reduce_name + " is NaN: no term equals it");
    } else if (self.value_at(s.at).f == s.result) {
      grad_self.divide(s.at, grad_output, s.at, s.contributors, "grad_output", nullptr,
                       trace ? "(" + at_text + " is one of " + std::to_string(s.contributors) + " terms equal to the " +
                                   reduce_name + "; T-GR12)"
                             : "");
    } else {
      grad_self.mask(
          s.at, "T-GR12", nullptr,
          trace ? "(" + at_text + "=" + format_value(self.dtype(), self.bits_at(s.at)) + " is not the " + reduce_name +
                      " " + format_value(self.dtype(), bits_from_value(self.dtype(), Value::of_float(s.result))) + ")"
                : "");
    }
  }
  // grad_src[i][j][k] from grad_output[index[i][j][k]][j][k]
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape target = ref::position_along_dim(grad_output, p, dim, p.value);
    const Slot& s = slots[self_layout.element_offset(ref::position_along_dim(self, p, dim, p.value))];
    const Shape at = ref::same_position(src, p);
    const std::string because = ref::because_index(p, trace);
    if (reduce == "sum") {
      grad_src.copy(at, grad_output, target, "grad_output", &p, because);
    } else if (reduce == "mean") {
      grad_src.divide(at, grad_output, target, s.count, "grad_output", &p,
                      trace ? because + " (one of " + std::to_string(s.count) + " terms)" : "");
    } else if (s.nan) {
      grad_src.unspecified(at, "T-GR12: the " + reduce_name + " is NaN: no term equals it");
    } else if (src.value_at(at).f == s.result) {
      grad_src.divide(at, grad_output, target, s.contributors, "grad_output", &p,
                      trace ? because + " (src" + format_index(at) + " is one of " + std::to_string(s.contributors) +
                                  " terms equal to the " + reduce_name + ")"
                            : "");
    } else {
      grad_src.mask(at, "T-GR12", &p,
                    trace ? because + " (src" + format_index(at) + "=" + format_value(src.dtype(), src.bits_at(at)) +
                                " is not the " + reduce_name + " " +
                                format_value(src.dtype(), bits_from_value(src.dtype(), Value::of_float(s.result))) + ")"
                          : "");
    }
  });
  std::vector<Note> notes;
  if (reduce == "sum") notes.push_back({"T-GR10", "sum: grad_src = grad_output gathered along dim"});
  if (reduce == "mean") notes.push_back({"T-GR11", "mean: the slot's gradient divided by its number of terms"});
  if (extreme) notes.push_back({"T-GR12", reduce + ": the gradient split evenly among the terms equal to the result"});
  if (!include_self) notes.push_back({"T-GR10", "include_self=False: grad_self is 0 where index points"});
  return ref::gradients_expectation(start, {grad_self.finish(), grad_src.finish()}, std::move(notes));
}

}  // namespace sp
