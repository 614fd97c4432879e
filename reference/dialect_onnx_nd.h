// dialect_onnx_nd.h — ONNX's rules for GatherND and ScatterND, one small
// check per rule, each citing its clause (ONNX-GN*, ONNX-SN*) in
// reference/SEMANTICS.md. Source: the op schemas and their docs, onnx 1.23.2
// (onnx.defs.get_schema(op, opset)): GatherND versions 11, 12, 13;
// ScatterND versions 11, 13, 16, 18. The schema in force at a call's
// `opset` is the latest version whose since_version <= opset.
//
// Every check records itself in the RuleLog and returns whether it held;
// the semantic files (onnx_gather_nd.cc, onnx_scatter_nd.cc) decide the
// order and which checks are skipped. Shapes are physical: ONNX has no
// rank-0 convention (r >= 1 and q >= 1 are rules, ONNX-GN3 / ONNX-SN3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/dialect_onnx.h"
#include "reference/nd_slices.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp::ref::onnx_nd_rules {

// ONNX-GN1 / ONNX-SN1 (the schema version in force at the opset) and
// ONNX-GN2 / ONNX-SN2 (data's dtype allowed by type constraint T) are the
// elements ops' checks: onnx_rules::onnx_schema_version and
// onnx_rules::onnx_dtype_allowed (reference/dialect_onnx.h).
// ONNX-GN3 / ONNX-SN3: the tensor's rank is >= 1 ("data tensor of rank r >=
// 1, indices tensor of rank q >= 1"); else invalid_argument.
bool rank_at_least_one(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t);
// ONNX-GN4 / ONNX-SN4: indices is tensor(int64); else index_dtype.
bool indices_int64(RuleLog& log, std::string_view clause, const Tensor& indices);
// ONNX-GN5: batch_dims is an attribute from version 12; a nonzero value at
// version 11 is invalid_argument.
bool batch_dims_known(RuleLog& log, int64_t batch_dims, int64_t version);
// ONNX-GN6: 0 <= b < min(q, r) ("b < min(q, r) is to be honored"; b counts
// dimensions); else invalid_argument.
bool batch_dims_in_range(RuleLog& log, int64_t batch_dims, int64_t q, int64_t r);
// ONNX-GN7: data.shape[:b] == indices.shape[:b]; else shape_mismatch.
bool batch_shapes_equal(RuleLog& log, const Tensor& data, const Tensor& indices, int64_t batch_dims);
// ONNX-GN8: k = indices.shape[-1] in [1, r - b]; else shape_mismatch.
bool gather_tuple_length(RuleLog& log, int64_t k, int64_t r, int64_t batch_dims);
// ONNX-SN5: updates' dtype is data's (both T); else dtype_mismatch.
bool updates_dtype_matches(RuleLog& log, const Tensor& data, const Tensor& updates);
// ONNX-SN6: k = indices.shape[-1] <= r ("k can be a value at most the rank
// of data"); else shape_mismatch.
bool scatter_tuple_length(RuleLog& log, int64_t k, int64_t r);
// ONNX-SN7: updates.shape == indices.shape[:-1] ++ data.shape[k:]; a rank
// other than q + r - k - 1 is rank_mismatch, other sizes shape_mismatch.
bool updates_shape(RuleLog& log, const Tensor& data, const Tensor& indices, const Tensor& updates);
// ONNX-SN8 (reduction allowed by the schema version in force) is
// onnx_rules::onnx_reduction_mode (reference/dialect_onnx.h).
// ONNX-GN9 / ONNX-SN9: every index value indices[..., j] lies in [-s, s-1],
// s = data.shape[first_dim + j]; else index_out_of_bounds. Reports the first
// offender in row-major order. REQUIRES: indices int64, rank >= 1,
// first_dim + indices.shape[-1] <= data.rank().
bool index_values_in_bounds(RuleLog& log, std::string_view clause, const Tensor& data, const Tensor& indices,
                            int64_t first_dim);

// The mechanics (index tuples, slices) are reference/nd_slices.h's.

}  // namespace sp::ref::onnx_nd_rules
