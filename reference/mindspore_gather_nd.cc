// mindspore_gather_nd.cc — ops.gather_nd(input_x, indices) -> out.
//
// Formula (MS-GND1; "output[(i_0, ..., i_{K-2})] = input_x[indices[(i_0,
// ..., i_{K-2})]]"), k = indices.shape[-1]:
//   for idx in ndindex(indices.shape[:-1]):
//     out[idx] = input_x[tuple(indices[idx])]   # a slice input_x.shape[k:] when k < rank
// out.shape = indices.shape[:-1] ++ input_x.shape[k:], out's dtype input_x's.
//
// Checks, in the order they run (all run; every violation is collected):
//   MS-GND2  indices an integer tensor: int32 / int64 held; int8, int16,
//            uint8 allow the result or index_dtype; any other dtype index_dtype
//   MS-GND3  rank(indices) >= 1 (indices.shape[-1] exists)
//   MS-GND4  k <= rank(input_x)
// Then MS-GND5: an index value outside [0, s) makes the call unspecified
// (the r2.10 page names no range and no error, on any platform).
// Visit order: positions of indices.shape[:-1] row-major, then the slice;
// every element is written once: exact bits.
// Source: MindSpore 2.10.0's docstring of mindspore.ops.gather_nd (the r2.10 page).
#include "reference/dialect_mindspore_nd.h"
#include "reference/dialect_onnx_nd.h"
#include "reference/nd_slices.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation mindspore_gather_nd(const OpCall& call, Trace* trace) {
  namespace rules = ref::mindspore_nd_rules;
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const DType it = indices.dtype();
  ref::RuleLog log(trace);

  const bool listed = it == DType::Int32 || it == DType::Int64;
  const bool integer = listed || it == DType::Int8 || it == DType::Int16 || it == DType::UInt8;
  log.check(integer, "MS-GND2", "indices.dtype=" + std::string(dtype_name(it)) + " is an integer dtype",
            ErrorCategory::IndexDtype, "indices must be an integer tensor, but got " + std::string(dtype_name(it)));
  const bool rank_ok =
      log.check(indices.rank() >= 1, "MS-GND3", "indices rank " + std::to_string(indices.rank()) + " >= 1",
                ErrorCategory::InvalidArgument, "indices must have rank >= 1 (indices.shape[-1])");
  if (rank_ok) rules::tuple_length_within(log, "MS-GND4", indices.shape().back(), input.rank());
  if (!log.passed()) return log.error_expectation();
  if (auto o = rules::first_value_out_of_range(input.shape(), indices))
    return ref::unspecified_expectation("MS-GND5: " + *o + "; the r2.10 page names no index range or error", trace);

  const int64_t k = indices.shape().back();
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  const Shape slice(input.shape().begin() + k, input.shape().end());
  Shape out_shape = lead;
  out_shape.insert(out_shape.end(), slice.begin(), slice.end());
  OutputBuilder out("out", Tensor::zeros(input.dtype(), out_shape), trace);
  // out[idx ++ t] = input_x[indices[idx] ++ t]
  ref::nd::for_each_position(lead, [&](const Shape& pos) {
    Shape from;
    Shape c = pos;
    c.push_back(0);
    for (int64_t j = 0; j < k; ++j) {
      c.back() = j;
      from.push_back(ref::read_index(indices, c));
    }
    const int64_t first = from.empty() ? 0 : from[0];
    ref::nd::for_each_position(slice, [&](const Shape& t) {
      Shape at = from, target = pos;
      at.insert(at.end(), t.begin(), t.end());
      target.insert(target.end(), t.begin(), t.end());
      out.overwrite(target, input.bits_at(at), WriteOrigin{"input_x", &input, &at, &pos, first});
    });
  });
  Expectation e = ref::outputs_expectation({out.finish()}, {});
  if (!listed) {
    e.errors = {ErrorCategory::IndexDtype};
    e.error_clause = "MS-GND2";
    e.error_message = "indices dtype " + std::string(dtype_name(it)) + " is an integer dtype the pages do not list";
    e.notes.push_back({"MS-GND2",
                       "an integer indices dtype other than int32 / int64: the result and index_dtype "
                       "are both allowed"});
  }
  return e;
}

}  // namespace sp
