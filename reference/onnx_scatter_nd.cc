// onnx_scatter_nd.cc — ONNX ScatterND(data, indices, updates; reduction) -> output.
//
// Formula (ScatterND doc; clauses ONNX-SN10, ONNX-SN12), k = indices.shape[-1]:
//   output = np.copy(data)
//   for idx in np.ndindex(indices.shape[:-1]):
//       output[tuple(indices[idx])] = updates[idx]                 # "none"
//       output[tuple(indices[idx])] = f(output[...], updates[idx]) # f = +, *, max, min
// An index tuple of length k < r addresses a slice data.shape[k:]; a
// negative value v addresses v + s ("allowed to be negative, as per the usual
// convention for counting backwards from the end").
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   ONNX-SN1  opset >= 11; the schema in force is the latest of 11, 13, 16, 18 <= opset
//   ONNX-SN2  data dtype allowed by T at that version (bfloat16 from 13)
//   ONNX-SN3  r = rank(data) >= 1 and q = rank(indices) >= 1
//   ONNX-SN4  indices is tensor(int64)
//   ONNX-SN5  updates dtype == data dtype (both T)
//   ONNX-SN6  k <= r
//   ONNX-SN7  updates.shape == indices.shape[:-1] ++ data.shape[k:]
//   ONNX-SN8  reduction allowed at the version: none (11, 13); add, mul (16); max, min (18)
//   ONNX-SN9  every indices[..., j] in [-s, s-1], s = data.shape[j]
//   ONNX-SN11 reduction "none" and two index tuples addressing the same
//             location (after wrapping negatives): the call is unspecified
// Visit order: positions of indices.shape[:-1] row-major, then the slice
// data.shape[k:] row-major. "none" without duplicates writes each target
// once (exact bits). A reduction includes the element's data value as its
// first term; the order is unspecified ("The order of iteration in the above
// loop is not specified"), so a float add/mul of >= 2 operations is an
// interval (reference/float_bounds.h); integers wrap, bool add is or and mul
// is and, max/min are exact with NaN propagating (output_builder.h).
// Source: ONNX operator documentation, ScatterND versions 11, 13, 16, 18, as
// shipped in onnx 1.23.2 (onnx.defs.get_schema("ScatterND", opset).doc).
#include <map>

#include "reference/dialect_onnx_nd.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation onnx_scatter_nd(const OpCall& call, Trace* trace) {
  namespace rules = ref::onnx_nd_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  const int64_t opset = op.arg_or_default(call, "opset")->i;
  const std::string reduction = op.arg_or_default(call, "reduction")->s;
  ref::RuleLog log(trace);

  const std::optional<int64_t> version =
      ref::onnx_rules::onnx_schema_version(log, "ONNX-SN1", "ScatterND", opset, op.opsets);
  if (version) ref::onnx_rules::onnx_dtype_allowed(log, "ONNX-SN2", "data", data.dtype(), *version);
  const bool data_rank_ok = rules::rank_at_least_one(log, "ONNX-SN3", "data", data);
  const bool indices_rank_ok = rules::rank_at_least_one(log, "ONNX-SN3", "indices", indices);
  rules::indices_int64(log, "ONNX-SN4", indices);
  rules::updates_dtype_matches(log, data, updates);
  const bool tuple_ok =
      data_rank_ok && indices_rank_ok && rules::scatter_tuple_length(log, indices.shape().back(), data.rank());
  if (tuple_ok) rules::updates_shape(log, data, indices, updates);
  std::optional<ReduceMode> mode;
  if (version) mode = ref::onnx_rules::onnx_reduction_mode(log, "ONNX-SN8", "ScatterND", reduction, *version);
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them).
  if (tuple_ok && ref::index_values_readable(indices)) rules::index_values_in_bounds(log, "ONNX-SN9", data, indices, 0);
  if (!log.passed()) return log.error_expectation();

  const std::vector<ref::nd::IndexTuple> tuples = ref::nd::index_tuples(data.shape(), indices, 0);
  if (*mode == ReduceMode::None) {
    std::map<std::vector<int64_t>, const ref::nd::IndexTuple*> seen;
    for (const ref::nd::IndexTuple& it : tuples) {
      const auto [first, fresh] = seen.emplace(it.tuple, &it);
      if (fresh) continue;
      const std::string where = "indices" + format_index(first->second->pos) + " and indices" + format_index(it.pos) +
                                " address the same location";
      // The sentence each version gives (onnx 1.23.2's docs for ScatterND-11, -13, -16, -18).
      const std::string text =
          *version == 11
              ? "ScatterND-11: \"Note that `indices` should not have duplicate entries. That is, two or more "
                "`updates` for the same index-location is not supported.\""
          : *version == 13
              ? "ScatterND-13: \"The order of iteration in the above loop is not specified. In particular, indices "
                "should not have duplicate entries: that is, if idx1 != idx2, then indices[idx1] != indices[idx2]. "
                "This ensures that the output value does not depend on the iteration order.\""
              : "ScatterND-" + std::to_string(*version) +
                    ": \"The order of iteration in the above loop is not specified.\" and \"In cases where "
                    "`reduction` is set to \"none\", indices should not have duplicate entries: that is, if idx1 != "
                    "idx2, then indices[idx1] != indices[idx2]. This ensures that the output value does not depend on "
                    "the iteration order.\"";
      log.note("ONNX-SN11: reduction \"none\" with duplicate index tuples: " + where);
      return ref::unspecified_expectation("ONNX-SN11: reduction \"none\" with duplicate index tuples (" + where +
                                              "); the result is left undefined by " + text,
                                          trace);
    }
  }

  OutputBuilder out("out", data, trace);
  // output[indices[idx] ++ t] = f(output[indices[idx] ++ t], updates[idx ++ t]), f = "=" for "none"
  ref::nd::scatter_slices(out, *mode, updates, tuples, data.shape(), indices.shape().back());
  std::vector<Note> notes{
      {"ONNX-SN1", "ScatterND schema version " + std::to_string(*version) + " (opset " + std::to_string(opset) + ")"}};
  if (*mode != ReduceMode::None)
    notes.push_back(
        Note{"ONNX-SN12",
             "reduction \"" + reduction +
                 "\" includes data's value; iteration order unspecified (float add/mul of >= 2 ops: interval)"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
