// onnx_gather_nd.cc — ONNX GatherND(data, indices; batch_dims) -> output.
//
// Formula (GatherND doc, "The output is computed as follows"; clause
// ONNX-GN10), with b = batch_dims and k = indices.shape[-1]:
//   for idx in ndindex(indices.shape[:-1]):       # idx[:b] is the batch
//     output[idx] = data[idx[:b] + tuple(indices[idx])]   # a slice when k < r-b
// output.shape = indices.shape[:-1] ++ data.shape[b+k:] (rank q + r - k - 1 - b),
// output dtype = data's (both T). A negative index value v addresses v + s
// (ONNX-GN9: "[-s, s-1] ... -data_shape[i] <= indices[...,i]").
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   ONNX-GN1  opset >= 11 (GatherND-11 is the first version); the schema in
//             force is the latest of 11, 12, 13 <= opset
//   ONNX-GN2  data dtype allowed by T at that version (bfloat16 from 13)
//   ONNX-GN3  r = rank(data) >= 1 and q = rank(indices) >= 1
//   ONNX-GN4  indices is tensor(int64)
//   ONNX-GN5  batch_dims != 0 only from version 12 (the attribute's version)
//   ONNX-GN6  0 <= b < min(q, r)
//   ONNX-GN7  data.shape[:b] == indices.shape[:b]
//   ONNX-GN8  k in [1, r - b]
//   ONNX-GN9  every indices[..., j] in [-s, s-1], s = data.shape[b + j]
// Visit order: positions of indices.shape[:-1] row-major, then the slice
// data.shape[b+k:] row-major; every output element is written exactly once,
// so the result is exact bits (data's own bits, -0.0 and NaN payloads).
// Source: ONNX operator documentation, GatherND versions 11, 12, 13, as
// shipped in onnx 1.23.2 (onnx.defs.get_schema("GatherND", opset).doc).
#include "reference/dialect_onnx_nd.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation onnx_gather_nd(const OpCall& call, Trace* trace) {
  namespace rules = ref::onnx_nd_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& data = *call.tensor("data");
  const Tensor& indices = *call.tensor("indices");
  const int64_t opset = op.arg_or_default(call, "opset")->i;
  const int64_t b = op.arg_or_default(call, "batch_dims")->i;
  ref::RuleLog log(trace);

  const std::optional<int64_t> version =
      ref::onnx_rules::onnx_schema_version(log, "ONNX-GN1", "GatherND", opset, op.opsets);
  if (version) ref::onnx_rules::onnx_dtype_allowed(log, "ONNX-GN2", "data", data.dtype(), *version);
  const bool data_rank_ok = rules::rank_at_least_one(log, "ONNX-GN3", "data", data);
  const bool indices_rank_ok = rules::rank_at_least_one(log, "ONNX-GN3", "indices", indices);
  rules::indices_int64(log, "ONNX-GN4", indices);
  const bool attr_ok = !version || rules::batch_dims_known(log, b, *version);
  if (data_rank_ok && indices_rank_ok && attr_ok) {
    const int64_t r = data.rank(), q = indices.rank(), k = indices.shape().back();
    if (rules::batch_dims_in_range(log, b, q, r)) {
      rules::batch_shapes_equal(log, data, indices, b);
      // The bounds rule runs whenever the values can be compared with a
      // bound (C-1: a call breaking several rules may report any of them).
      if (rules::gather_tuple_length(log, k, r, b) && ref::index_values_readable(indices))
        rules::index_values_in_bounds(log, "ONNX-GN9", data, indices, b);
    }
  }
  if (!log.passed()) return log.error_expectation();

  const Shape out_shape = ref::nd::slices_shape(data.shape(), indices.shape(), b);
  OutputBuilder out("out", Tensor::zeros(data.dtype(), out_shape), trace);
  // output[idx ++ t] = data[idx[:b] ++ indices[idx] ++ t]
  ref::nd::gather_slices(out, "data", data, ref::nd::index_tuples(data.shape(), indices, b), b);
  std::vector<Note> notes;
  notes.push_back(
      {"ONNX-GN1", "GatherND schema version " + std::to_string(*version) + " (opset " + std::to_string(opset) + ")"});
  if (b > 0)
    notes.push_back({"ONNX-GN10", "batch_dims=" + std::to_string(b) + ": the first b dims index both tensors"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
