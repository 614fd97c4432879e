// mindspore_gather_elements_backward.cc — the gradient of
// mindspore.ops.gather_elements(input, dim, index) with respect to input
// (op "mindspore.ops.gather_elements.backward").
//
// MindSpore's r2.10 page (mindspore 2.10.0's docstring) says one thing about
// the backward, for Ascend only: "the behavior is unpredictable ... the
// value of `index` is not in the range `[0, input.shape[dim])` in
// backward". The reference answers for CPU, as the forward's MS-GE6 does;
// the rest is read from the forward's formula (MS-GE1), as MS-GR5 is:
//   output[i][j][k] = input[index[i][j][k]][j][k]            (dim 0)
// so every out element's gradient flows back to the input element it read:
//   grad_input = zeros(input.shape)
//   grad_input[index[i][j][k]][j][k] += grad_output[i][j][k]  (MS-GEG4)
// A negative index value v read input at v + s (MS-GE6), so its gradient
// goes there (MS-GEG5: the CPU's answer; the Warning makes Ascend's
// unpredictable). Duplicates accumulate: T-GR6's float rule (one term exact, two
// or more an interval; backward_common.h, gather_input_gradient, shared with
// torch.gather.backward).
//
// Checks, in order: the forward's own (mindspore_gather_elements.cc; an
// error or unspecified answer carries over, MS-GEG1), input floating
// (MS-GEG2), grad_output shaped like out (index's shape) and typed like
// input (MS-GEG3). Visit: index positions row-major, one term each.
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/ops/mindspore.ops.gather_elements.html
// (r2.10), SEMANTICS.md "Gradients / MindSpore", MS-GEG*.
#include "reference/backward_common.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

Expectation mindspore_gather_elements_backward(const OpCall& call, Trace* trace) {
  static const ref::BackwardClauses kClauses{"MS-GEG1", "MS-GEG2", "MS-GEG3",
                                             "only floating point tensors have gradients"};
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  // MS-GEG5 on every answer, errors included, where an index value is
  // negative (campaign expectation entries key by it: MindSpore's GatherD
  // rewrites such a value in the caller's index).
  const auto noted = [&](Expectation e) {
    bool negative = false;
    if (ref::index_values_readable(index))
      ref::for_each_index_position(index, [&](const ref::IndexPosition& p) { negative = negative || p.value < 0; });
    if (negative)
      e.notes.push_back({"MS-GEG5", "a negative index value: read at v + s on CPU (Ascend: unpredictable backward)"});
    return e;
  };
  const ref::BackwardStart start = ref::start_backward(call, kClauses, trace);
  if (start.answer) return noted(*start.answer);
  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const int64_t dim = ref::wrap_dim(*call.int_arg("dim"), input.rank());
  const int64_t s = input.size(dim);
  const auto read_at = [s](int64_t v) { return v < 0 ? v + s : v; };  // MS-GE6: v in [-s, s)
  return noted(ref::gradients_expectation(
      start, {ref::gather_input_gradient(input, index, grad_output, dim, read_at, trace)},
      {{"MS-GEG4",
        "grad_input = zeros, then grad_output scatter-added at the element each index value read (a negative "
        "value at v + s; duplicates accumulate)"}}));
}

}  // namespace sp
