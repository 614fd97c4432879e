// onnx_gather_elements.cc — ONNX GatherElements(data, indices; axis) -> output.
//
// Formula (GatherElements doc, versions 11 and 13; clause ONNX-GE5), 3-D:
//   out[i][j][k] = input[index[i][j][k]][j][k] if axis = 0,
//   out[i][j][k] = input[i][index[i][j][k]][k] if axis = 1,
//   out[i][j][k] = input[i][j][index[i][j][k]] if axis = 2,
// "Its output shape is the same as the shape of `indices`" (ONNX-GE2); a
// negative index value v addresses v + s ("All index values are expected to
// be within bounds [-s, s-1] along axis of size s").
//
// Checks, in the order they run (every violation is collected; the index
// values only when everything else passed):
//   ONNX-O1   opset >= 11; schema version = latest of 11, 13 <= opset
//   ONNX-O2   data dtype in T at that version (bfloat16 from 13; bool always)
//   ONNX-O3   indices dtype in Tind = {int32, int64}
//   ONNX-GE1  data rank r >= 1, indices rank == r
//   ONNX-O4   axis in [-r, r-1], negative wraps
//   ONNX-GE4  every index value in [-s, s-1], s = data.shape[axis]
//   ONNX-GE3  (decision) indices.shape[d] > data.shape[d] for some d != axis:
//             the call is unspecified (the formula reads outside data)
// Visit order: indices positions row-major; each output element written once
// (exact bits, C-4).
// Source: ONNX operator documentation, GatherElements versions 11 and 13, as
// shipped in onnx 1.23.2 (onnx.defs.get_schema("GatherElements", opset)).
#include "reference/dialect_onnx.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation onnx_gather_elements(const OpCall& call, Trace* trace) {
  namespace rules = ref::onnx_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const int64_t opset = op.arg_or_default(call, "opset")->i;
  const int64_t axis_arg = op.arg_or_default(call, "axis")->i;
  ref::RuleLog log(trace);

  const std::optional<int64_t> version = rules::onnx_schema_version(log, "ONNX-O1", "GatherElements", opset, op.opsets);
  if (version) rules::onnx_dtype_allowed(log, "ONNX-O2", "data", data.dtype(), *version);
  rules::onnx_index_dtype_int32_or_int64(log, "ONNX-O3", indices);
  rules::same_rank_at_least_one(log, "ONNX-GE1", data, "indices", indices);
  std::optional<int64_t> axis;
  if (data.rank() >= 1) axis = rules::onnx_wrap_axis(log, "ONNX-O4", axis_arg, data.rank());
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them).
  if (axis && ref::index_values_readable(indices)) rules::index_values_in_bounds(log, "ONNX-GE4", data, indices, *axis);
  if (!log.passed()) return log.error_expectation();

  std::string where;
  if (!rules::indices_fit_data(data, indices, *axis, &where)) {
    log.note("ONNX-GE3: " + where);
    return ref::unspecified_expectation(
        "ONNX-GE3: " + where +
            ": the formula out[i][j][k] = input[i][index[i][j][k]][k] would read outside data, and the "
            "GatherElements-" +
            std::to_string(*version) + " document gives no rule for it (it bounds only the index values)",
        trace);
  }

  const int64_t s = data.size(*axis);
  OutputBuilder out("out", Tensor::zeros(data.dtype(), indices.shape()), trace);
  if (indices.numel() > 0) {
    Shape pos(static_cast<size_t>(indices.rank()), 0);
    do {
      const int64_t v = ref::read_index(indices, pos);
      Shape from = pos;
      from[static_cast<size_t>(*axis)] = *rules::onnx_normalise_index(v, s);
      out.overwrite(pos, data.bits_at(from), WriteOrigin{"data", &data, &from, &pos, v});
    } while (next_index(pos, indices.shape()));
  }
  return ref::outputs_expectation(
      {out.finish()}, {{"ONNX-O1", "GatherElements schema version " + std::to_string(*version) + " (opset " +
                                       std::to_string(opset) + ")"}});
}

}  // namespace sp
