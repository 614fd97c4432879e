// mindspore_scatter_backward.cc — the gradients of MindSpore's
// Tensor.scatter_(dim, index, src|value, *, reduce) with respect to self and
// src (op "mindspore.scatter_.backward").
//
// MindSpore documents one thing about this gradient (Tensor.scatter_, r2.10
// and r2.11, Note): "The inverse gradient from self to src can be calculated
// only when the shape of src is the same as that of index." (MS-GR4; seed
// 003, r2.3, says nothing.) The rest follows the forward's formula
// (MS-F1), as T-GR7 does for torch, the forward being
// self[index[i][j][k]][j][k] = src[i][j][k] (dim 0):
//   grad_self = grad_output, with every element an index position writes
//               set to 0 (of either sign)                          (MS-GR5)
//   grad_src[i][j][k] = grad_output[index[i][j][k]][j][k]   (a gather, exact bits)
// A negative index value addresses v + self.shape[dim] as in the forward
// (before r2.10; from r2.10 the forward is unspecified, and so the backward).
// With duplicate indices the forward's value is "uncertain" (003, MS-U1) and
// no document says which writers get the gradient: each duplicate writer's
// grad_src element is the slot's gradient or 0 (either sign). (MindSpore
// 2.10, measured through ops.tensor_scatter_elements: every writer gets it.)
// The value overloads (r2.3; removed after 2.9, MS-N2) have no src:
// grad_self only. reduce='add' / 'multiply': no document gives a gradient,
// the call is unspecified (MS-GR6).
//
// Checks, in order: the forward's own (mindspore_scatter.cc, versioned, on a
// contiguous copy of self; MS-GR1), self and src floating (MS-GR2),
// grad_output shaped and typed like self (MS-GR3), src.shape == index.shape
// when src is given, an empty index included (MS-GR4). Visit: index
// positions row-major.
#include <map>

#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation mindspore_scatter_backward(const OpCall& call, Trace* trace) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: a value overload
  const ref::BackwardStart start =
      ref::start_backward(call, ref::kMindsporeBackwardClauses, trace, [&](ref::RuleLog& log) {
        // The Note has no exception for an empty index: the forward skips
        // its shape rules there (MS-E1), the gradient's rule still holds.
        if (src)
          log.check(src->shape() == index.shape(), "MS-GR4",
                    "src shape " + format_shape(src->shape()) + " == index shape " + format_shape(index.shape()) +
                        " (the inverse gradient from self to src needs src's shape to be index's)",
                    ErrorCategory::ShapeMismatch,
                    "The inverse gradient from self to src can be calculated only when the shape of src is the same "
                    "as that of index (src " +
                        format_shape(src->shape()) + ", index " + format_shape(index.shape()) + ")");
      });
  // Notes on every answer, errors and unspecified ones included (campaign
  // entries key by them): an empty index (MS-E1), a negative index value
  // (MS-N1; MindSpore's GatherD rewrites it in place).
  const auto noted = [&](Expectation e) {
    if (index.numel() == 0) e.notes.push_back({"MS-E1", "an empty index: the forward skips its shape rules"});
    bool negative = false;
    if (ref::index_values_readable(index))
      ref::for_each_index_position(index, [&](const ref::IndexPosition& p) { negative = negative || p.value < 0; });
    if (negative) e.notes.push_back({"MS-N1", "a negative index value"});
    return e;
  };
  if (start.answer) return noted(*start.answer);
  if (const std::optional<std::string> reduce = call.string_arg("reduce"))
    return noted(ref::unspecified_expectation(
        "MS-GR6: scatter_ with reduce='" + *reduce + "': no MindSpore document gives its gradient", trace));
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), ref::logical_rank(self));
  const int64_t size = self.size(dim);
  const auto target_of = [&](const ref::IndexPosition& p) {
    return ref::position_along_dim(self, p, dim, p.value < 0 ? p.value + size : p.value);
  };

  // How many index positions write each element of self (keyed row-major:
  // self's own strides may alias): a slot written more than once has
  // duplicate writers (MS-U1).
  const auto linear = [&](const Shape& target) {
    int64_t l = 0;
    for (size_t d = 0; d < target.size(); ++d) l = l * self.shape()[d] + target[d];
    return l;
  };
  std::map<int64_t, int64_t> writers;
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) { ++writers[linear(target_of(p))]; });

  ref::GradientBuilder grad_self("grad_self", grad_output, "(no index position writes self there; MS-GR5)", trace);
  std::optional<ref::GradientBuilder> grad_src;
  if (src) grad_src.emplace("grad_src", Tensor::zeros(src->dtype(), src->shape()), "", trace);
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape target = target_of(p);
    // grad_self[index[i][j][k]][j][k] = 0
    grad_self.mask(target, "MS-GR5", &p,
                   trace ? ref::because_index(p, trace) + " overwrote self" + format_index(target) : "");
    if (!grad_src) return;
    // grad_src[i][j][k] = grad_output[index[i][j][k]][j][k] (or 0 for a duplicate writer)
    const Shape at = target;  // grad_output is shaped like self (MS-GR3)
    if (writers[linear(target)] > 1)
      grad_src->copy_or_mask(ref::same_position(*src, p), grad_output, at, "grad_output", "MS-GR5", &p,
                             trace ? ref::because_index(p, trace) + " (a duplicate writer)" : "");
    else
      grad_src->copy(ref::same_position(*src, p), grad_output, at, "grad_output", &p, ref::because_index(p, trace));
  });
  std::vector<ExpectedTensor> grads{grad_self.finish()};
  if (grad_src) grads.push_back(grad_src->finish());
  std::vector<Note> notes{
      {"MS-GR5",
       "grad_self = grad_output zeroed where index writes; grad_src = grad_output gathered along dim (a "
       "duplicate writer's element: the slot's gradient or 0)"}};
  return noted(ref::gradients_expectation(start, std::move(grads), std::move(notes)));
}

}  // namespace sp
