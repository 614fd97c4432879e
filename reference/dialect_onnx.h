// dialect_onnx.h — ONNX's rules for GatherElements, ScatterElements and the
// deprecated Scatter, one small check per rule, each citing its clause
// (ONNX-O*, common; ONNX-GE*; ONNX-SE*) in reference/SEMANTICS.md. Source:
// the op schemas and their docs, onnx 1.23.2 (onnx.defs.get_schema(op,
// opset)): GatherElements 11, 13; ScatterElements 11, 13, 16, 18; Scatter 9,
// 11. The schema in force at a call's `opset` is the latest version whose
// since_version <= opset.
//
// The helpers in the first block are shared ONNX rules (usable by the ND
// ops too); each takes the clause id to record. Every check records itself
// in the RuleLog and returns whether it held.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp::ref::onnx_rules {

// ---- shared ONNX rules -------------------------------------------------
// ONNX-O1: the schema version in force at `opset` (latest of `versions` <=
// opset, ascending); an opset below the first version is invalid_argument.
std::optional<int64_t> onnx_schema_version(RuleLog& log, std::string_view clause, std::string_view op, int64_t opset,
                                           const std::vector<int64_t>& versions);
// ONNX-O2: `t` is in type constraint T at `version`: every dtype of
// reference/dtype.h (bool included) from 13; all but bfloat16 before 13.
// Else unsupported_dtype.
bool onnx_dtype_allowed(RuleLog& log, std::string_view clause, std::string_view name, DType t, int64_t version);
// ONNX-O3: Tind: indices is int32 or int64; else index_dtype.
bool onnx_index_dtype_int32_or_int64(RuleLog& log, std::string_view clause, const Tensor& indices);
// ONNX-O4: axis in [-r, r-1]; returns the wrapped axis, nullopt (and
// dim_out_of_range) otherwise.
std::optional<int64_t> onnx_wrap_axis(RuleLog& log, std::string_view clause, int64_t axis, int64_t r);
// ONNX-O5: index value v with axis size s: v in [-s, s-1] -> v (+ s if
// negative); nullopt otherwise.
std::optional<int64_t> onnx_normalise_index(int64_t v, int64_t s);
// ONNX-O6: reduction allowed at `version` of ScatterElements/ScatterND:
// "none" (11, 13), + "add", "mul" (16), + "max", "min" (18); else
// invalid_reduce. Returns the mode (None for "none").
std::optional<ReduceMode> onnx_reduction_mode(RuleLog& log, std::string_view clause, std::string_view op,
                                              const std::string& reduction, int64_t version);

// ---- Elements ops -------------------------------------------------------
// ONNX-GE1 / ONNX-SE3: data rank r >= 1 and `other` has rank r; else
// rank_mismatch.
bool same_rank_at_least_one(RuleLog& log, std::string_view clause, const Tensor& data, std::string_view name,
                            const Tensor& other);
// ONNX-SE2: updates dtype == data dtype; else dtype_mismatch.
bool updates_dtype_matches(RuleLog& log, const Tensor& data, const Tensor& updates);
// ONNX-SE4: updates.shape == indices.shape; else shape_mismatch.
bool updates_shape_is_indices_shape(RuleLog& log, const Tensor& indices, const Tensor& updates);
// ONNX-GE3 / ONNX-SE5 (a decision, not a document rule): indices.shape[d] <=
// data.shape[d] for d != axis. Returns whether it holds; records a note only
// (the caller makes the call unspecified).
bool indices_fit_data(const Tensor& data, const Tensor& indices, int64_t axis, std::string* where);
// ONNX-GE4 / ONNX-SE6: every index value in [-s, s-1] (s = data.shape[axis]);
// else index_out_of_bounds (first offender, row-major).
bool index_values_in_bounds(RuleLog& log, std::string_view clause, const Tensor& data, const Tensor& indices,
                            int64_t axis);

}  // namespace sp::ref::onnx_rules
