// mindspore_scatter_nd.cc — ops.scatter_nd(indices, updates, shape) -> out.
//
// Formula (MS-SND1; "Creates an empty tensor with the given shape, and set
// values by scattering the update tensor depending on indices"; "If indices
// contains duplicates, the duplicate updates are summed"), N = indices.shape[-1]:
//   out = zeros(shape), updates' dtype
//   for idx in ndindex(indices.shape[:-1]):
//     out[tuple(indices[idx])] += updates[idx]   # a slice shape[N:] when N < len(shape)
// An element no tuple addresses stays 0; one addressed once holds its
// update (a float sum of one -0.0 may be +0 or -0); several: their sum in
// any order (integers wrap, bool or, float the FR interval; MS-SND7).
//
// Checks, in the order they run (all run; every violation is collected):
//   MS-SND2  indices an integer tensor: int32 / int64 held; int8, int16,
//            uint8 allow the result or index_dtype; any other dtype index_dtype
//   MS-SND3  rank(indices) >= 2
//   MS-SND5  shape non-empty, every element >= 1
//   MS-SND4  N <= len(shape)
//   MS-SND6  updates.shape == indices.shape[:-1] ++ shape[N:]
// Then MS-SND8: an index value outside [0, s) makes the call unspecified
// (the r2.10 page names no range and no error).
// Source: MindSpore 2.10.0's docstring of mindspore.ops.scatter_nd (the r2.10 page).
#include "reference/dialect_mindspore_nd.h"
#include "reference/dialect_onnx_nd.h"
#include "reference/nd_slices.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation mindspore_scatter_nd(const OpCall& call, Trace* trace) {
  namespace rules = ref::mindspore_nd_rules;
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  const std::vector<int64_t> shape_arg = *call.ints_arg("shape");
  const Shape shape(shape_arg.begin(), shape_arg.end());
  const DType it = indices.dtype();
  ref::RuleLog log(trace);

  const bool listed = it == DType::Int32 || it == DType::Int64;
  const bool integer = listed || it == DType::Int8 || it == DType::Int16 || it == DType::UInt8;
  log.check(integer, "MS-SND2", "indices.dtype=" + std::string(dtype_name(it)) + " is an integer dtype",
            ErrorCategory::IndexDtype, "indices must be an integer tensor, but got " + std::string(dtype_name(it)));
  const bool rank_ok = rules::indices_rank_at_least_two(log, "MS-SND3", indices);
  bool shape_ok = !shape.empty(), sizes_known = true;  // sizes_known: no negative size to read shapes by
  for (const int64_t s : shape) shape_ok = shape_ok && s >= 1, sizes_known = sizes_known && s >= 0;
  log.check(shape_ok, "MS-SND5", "shape " + format_shape(shape) + " is non-empty with every element >= 1",
            ErrorCategory::InvalidArgument, "shape can not be empty, and its elements must be >= 1");
  if (rank_ok && sizes_known && rules::tuple_length_within(log, "MS-SND4", indices.shape().back(), std::ssize(shape)))
    rules::updates_shape(log, "MS-SND6", shape, indices, updates);
  if (!log.passed()) return log.error_expectation();
  if (auto o = rules::first_value_out_of_range(shape, indices))
    return ref::unspecified_expectation("MS-SND8: " + *o + "; the r2.10 page names no index range or error", trace);

  const int64_t k = indices.shape().back();
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  const Shape slice(shape.begin() + k, shape.end());
  OutputBuilder out("out", Tensor::zeros(updates.dtype(), shape), trace);
  out.exclude_initial_from_reductions();  // "set values"; duplicates summed
  // out[indices[idx] ++ t] += updates[idx ++ t]
  ref::nd::for_each_position(lead, [&](const Shape& pos) {
    Shape base, c = pos;
    c.push_back(0);
    for (int64_t j = 0; j < k; ++j) {
      c.back() = j;
      base.push_back(ref::read_index(indices, c));
    }
    const int64_t first = base.empty() ? 0 : base[0];
    ref::nd::for_each_position(slice, [&](const Shape& t) {
      Shape target = base, at = pos;
      target.insert(target.end(), t.begin(), t.end());
      at.insert(at.end(), t.begin(), t.end());
      out.reduce(target, ReduceMode::Add, updates.value_at(at), WriteOrigin{"updates", &updates, &at, &pos, first});
    });
  });
  Expectation e = ref::outputs_expectation({out.finish()}, {{"MS-SND7", "duplicates summed in any order"}});
  if (!listed) {
    e.errors = {ErrorCategory::IndexDtype};
    e.error_clause = "MS-SND2";
    e.error_message = "indices dtype " + std::string(dtype_name(it)) + " is an integer dtype the pages do not list";
  }
  return e;
}

}  // namespace sp
