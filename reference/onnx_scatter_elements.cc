// onnx_scatter_elements.cc — ONNX ScatterElements(data, indices, updates;
// axis, reduction) -> output, and the deprecated Scatter(data, indices,
// updates; axis) (versions 9 and 11; "This operator is deprecated. Please use
// ScatterElements, which provides the same functionality").
//
// Formula (ScatterElements doc; clauses ONNX-SE7, ONNX-SE9), 2-D:
//   output = copy of data
//   output[indices[i][j]][j] = updates[i][j] if axis = 0          # "none"
//   output[indices[i][j]][j] = f(output[indices[i][j]][j], updates[i][j])
//                                                   # f = +, *, max, min
// A negative index value v addresses v + s (ONNX-O5; "All index values are
// expected to be within bounds [-s, s-1] along axis of size s"), except at
// Scatter-9, which states no bounds (ONNX-SE10).
//
// Checks, in the order they run (every violation is collected; the index
// values only when everything else passed):
//   ONNX-O1   opset >= first version; schema in force (ScatterElements 11,
//             13, 16, 18; Scatter 9, 11)
//   ONNX-O2   data dtype in T at that version (bfloat16 from 13; bool always)
//   ONNX-O3   indices dtype in Tind = {int32, int64}
//   ONNX-SE2  updates dtype == data dtype (both T)
//   ONNX-SE3  data rank r >= 1; indices and updates rank r
//   ONNX-O4   axis in [-r, r-1], negative wraps
//   ONNX-SE4  updates.shape == indices.shape
//   ONNX-O6   reduction allowed at the version (none at 11, 13; add, mul from
//             16; max, min from 18); Scatter has no reduction
//   ONNX-SE6  every index value in [-s, s-1] (Scatter-9: ONNX-SE10)
//   ONNX-SE5  (decision) indices.shape[d] > data.shape[d], d != axis:
//             unspecified
//   ONNX-SE8  reduction "none" and two entries addressing one element:
//             unspecified
// Visit order: indices positions row-major. "none" without duplicates writes
// each target once (exact bits). A reduction includes data's value as its
// first term (ONNX-SE9); the order is not given, so float add/mul of >= 2
// operations is an interval (reference/float_bounds.h); integers wrap, bool
// add is or and mul is and, max/min exact with NaN propagating and a ±0 tie
// allowing either zero (output_builder.h).
// Source: ONNX operator documentation, ScatterElements versions 11, 13, 16,
// 18 and Scatter 9, 11, as shipped in onnx 1.23.2
// (onnx.defs.get_schema(op, opset).doc and its input descriptions).
#include <map>

#include "reference/dialect_onnx.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

namespace {

// The sentence on duplicates each version gives (or its silence), for ONNX-SE8.
std::string duplicate_text(bool scatter, int64_t version) {
  if (!scatter && version >= 16)
    return "ScatterElements-" + std::to_string(version) +
           ": \"In cases where `reduction` is set to \"none\", indices should not have duplicate entries: that is, "
           "if idx1 != idx2, then indices[idx1] != indices[idx2].\"";
  return std::string(scatter ? "Scatter-" : "ScatterElements-") + std::to_string(version) +
         " gives no order for the updates of one element (decision: as ScatterElements-16 and -18, which state "
         "\"indices should not have duplicate entries\" for reduction \"none\")";
}

}  // namespace

Expectation onnx_scatter_elements(const OpCall& call, Trace* trace) {
  namespace rules = ref::onnx_rules;
  const OpSpec& op = op_spec(call);
  const bool scatter = call.op == "onnx.Scatter";
  const std::string name = scatter ? "Scatter" : "ScatterElements";
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  const int64_t opset = op.arg_or_default(call, "opset")->i;
  const int64_t axis_arg = op.arg_or_default(call, "axis")->i;
  const std::optional<Arg> reduction_arg = op.arg_or_default(call, "reduction");
  const std::string reduction = reduction_arg ? reduction_arg->s : "none";
  ref::RuleLog log(trace);

  const std::optional<int64_t> version = rules::onnx_schema_version(log, "ONNX-O1", name, opset, op.opsets);
  if (version) rules::onnx_dtype_allowed(log, "ONNX-O2", "data", data.dtype(), *version);
  rules::onnx_index_dtype_int32_or_int64(log, "ONNX-O3", indices);
  rules::updates_dtype_matches(log, data, updates);
  const bool rank_ok = rules::same_rank_at_least_one(log, "ONNX-SE3", data, "indices", indices) &&
                       rules::same_rank_at_least_one(log, "ONNX-SE3", data, "updates", updates);
  std::optional<int64_t> axis;
  if (data.rank() >= 1) axis = rules::onnx_wrap_axis(log, "ONNX-O4", axis_arg, data.rank());
  if (rank_ok) rules::updates_shape_is_indices_shape(log, indices, updates);
  std::optional<ReduceMode> mode = ReduceMode::None;
  if (version && !scatter) mode = rules::onnx_reduction_mode(log, "ONNX-O6", name, reduction, *version);
  const bool scatter9 = scatter && version && *version == 9;
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them).
  if (!scatter9 && axis && ref::index_values_readable(indices))
    rules::index_values_in_bounds(log, "ONNX-SE6", data, indices, *axis);
  if (!log.passed()) return log.error_expectation();

  const int64_t s = data.size(*axis);
  std::string where;
  if (!rules::indices_fit_data(data, indices, *axis, &where)) {
    log.note("ONNX-SE5: " + where);
    return ref::unspecified_expectation(
        "ONNX-SE5: " + where +
            ": the target index for dimension != axis \"is obtained from the index of the entry "
            "itself\", which lies outside data; " +
            name + "-" + std::to_string(*version) + " gives no rule for it (it bounds only the index values)",
        trace);
  }

  // Targets, in row-major order of indices.
  struct Entry {
    Shape pos, target;
    int64_t value;
  };
  std::vector<Entry> entries;
  if (indices.numel() > 0) {
    Shape pos(static_cast<size_t>(indices.rank()), 0);
    do {
      const int64_t v = ref::read_index(indices, pos);
      if (scatter9 && (v < 0 || v > s - 1)) {
        const std::string what = "index " + std::to_string(v) + " (" + ref::element_text("indices", indices, pos) +
                                 ") outside [0, " + std::to_string(s - 1) + "]";
        log.note("ONNX-SE10: " + what);
        return ref::unspecified_expectation(
            "ONNX-SE10: " + what +
                ": Scatter-9 states no bounds for the index values and no meaning for negatives (\"the target index "
                "in `data` is specified by corresponding entry in `indices` for dimension = axis\"); bounds and "
                "negatives arrive with Scatter-11",
            trace);
      }
      Shape target = pos;
      target[static_cast<size_t>(*axis)] = *rules::onnx_normalise_index(v, s);
      entries.push_back({pos, target, v});
    } while (next_index(pos, indices.shape()));
  }

  if (*mode == ReduceMode::None) {
    std::map<Shape, const Entry*> seen;
    for (const Entry& e : entries) {
      const auto [first, fresh] = seen.emplace(e.target, &e);
      if (fresh) continue;
      const std::string what = "indices" + format_index(first->second->pos) + " and indices" + format_index(e.pos) +
                               " address output" + format_index(e.target);
      log.note("ONNX-SE8: reduction \"none\" with duplicate targets: " + what);
      return ref::unspecified_expectation("ONNX-SE8: reduction \"none\" with duplicate targets (" + what +
                                              "); the result is left undefined by " + duplicate_text(scatter, *version),
                                          trace);
    }
  }

  OutputBuilder out("out", data, trace);
  for (const Entry& e : entries) {
    const WriteOrigin from{"updates", &updates, &e.pos, &e.pos, e.value};
    if (*mode == ReduceMode::None)
      out.overwrite(e.target, updates.bits_at(e.pos), from);
    else
      out.reduce(e.target, *mode, updates.value_at(e.pos), from);
  }
  std::vector<Note> notes{
      {"ONNX-O1", name + " schema version " + std::to_string(*version) + " (opset " + std::to_string(opset) + ")"}};
  if (*mode != ReduceMode::None)
    notes.push_back(
        Note{"ONNX-SE9", "reduction \"" + reduction +
                             "\" includes data's value; order not given (float add/mul of >= 2 ops: interval)"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
