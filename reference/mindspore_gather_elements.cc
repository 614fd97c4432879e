// mindspore_gather_elements.cc — mindspore.ops.gather_elements(input, dim,
// index) -> out (torch.gather's semantics; Tensor.gather(dim, index) is the
// same op).
//
// Formula (the page's 3-D listing; clause MS-GE1):
//   output[i][j][k] = input[index[i][j][k]][j][k]  # if dim == 0
//   output[i][j][k] = input[i][index[i][j][k]][k]  # if dim == 1
//   output[i][j][k] = input[i][j][index[i][j][k]]  # if dim == 2
// out has index's shape and input's dtype; a negative index value v
// addresses v + s (s = input.shape[dim]; "[-input.shape(dim),
// input.shape(dim))").
//
// Checks, in the order they run (all run; every violation is collected; the
// index values whenever they can be read along a valid dim, C-1):
//   MS-GE2  dim in [-r, r), r = input.ndim (ValueError)   (dim_out_of_range)
//   MS-GE3  index dtype int32 or int64 (TypeError)        (index_dtype)
//   MS-GE4  index has input's rank (ValueError)           (rank_mismatch)
//   MS-GE5  index.shape[d] <= input.shape[d], d != dim (ValueError)
//                                                         (shape_mismatch)
//   MS-GE6  every index value in [-s, s): on CPU (and GPU) an error
//           (index_out_of_bounds; Tensor.gather(dim, index)'s page: "ValueError
//           - index 的值不在有效范围"); on Ascend "不可预测" (unpredictable:
//           unspecified). The reference answers for CPU, the adapter's device.
// No exemption for an empty index or input: every rule applies (MS-GE7, a
// note). Visit order: index positions row-major; each out element written
// once (exact bits, C-4).
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/ops/mindspore.ops.gather_elements.html
// (r2.10; mindspore 2.10.0's docstring of ops.gather_elements and of
// Tensor.gather), SEMANTICS.md MS-GE*.
#include "reference/dialect_mindspore_elements.h"
#include "reference/op_call.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation mindspore_gather_elements(const OpCall& call, Trace* trace) {
  namespace rules = ref::mindspore_elements;
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const int64_t dim_arg = *call.int_arg("dim");
  ref::RuleLog log(trace);

  const std::optional<int64_t> dim = rules::dim_in_range(log, "MS-GE2", "dim", dim_arg, input.rank());
  rules::index_dtype_int32_or_int64(log, "MS-GE3", "index", index);
  if (rules::same_rank(log, "MS-GE4", "input", input, "index", index) && dim)
    rules::index_fits(log, "MS-GE5", index, "input", input, *dim);
  if (dim && ref::index_values_readable(index)) {
    const int64_t s = input.size(*dim);
    const std::optional<std::string> bad = rules::first_outside(index, "index", -s, s);
    log.check(!bad, "MS-GE6", bad.value_or("every index value in [-s, s), s = " + std::to_string(s)),
              ErrorCategory::IndexOutOfBounds,
              "The value of 'index' must be in [" + std::to_string(-s) + ", " + std::to_string(s) + "), but " +
                  bad.value_or(""));
  }
  std::vector<Note> notes;
  if (input.numel() == 0 || index.numel() == 0)
    notes.push_back({"MS-GE7", "an operand without elements: every rule still applies"});
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    e.notes = std::move(notes);
    return e;
  }

  const int64_t s = input.size(*dim);
  OutputBuilder out("out", Tensor::zeros(input.dtype(), index.shape()), trace);
  bool negative = false;
  // output[i][j][k] = input[i][index[i][j][k]][k] (dim 1)
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    negative = negative || p.value < 0;
    const Shape from = ref::position_along_dim(input, p, *dim, p.value < 0 ? p.value + s : p.value);
    out.overwrite(p.pos, input.bits_at(from), ref::read_from(p, "input", input, from));
  });
  // Only where a value is negative: campaign entries key by this note, and
  // one on every answer would hide every finding of the op.
  if (negative) notes.push_back({"MS-GE6", "a negative index value v reads input at v + s (the range [-s, s))"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
