// onnx_rules.h — the argument checks the cpu backend runs for the ONNX
// ops (onnx.GatherElements, onnx.ScatterElements, onnx.Scatter,
// onnx.GatherND, onnx.ScatterND) before any write. Like arg_rules.h they
// are written apart from the reference (reference/onnx_*.cc) on purpose,
// from ONNX's operator documentation (onnx 1.23 schemas), so a
// differential run can catch either one. Index *values* are checked by the
// kernels with a bounds scan once these pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/common/arg_rules.h"
#include "reference/op_call.h"

namespace sp::backend_rules {

// The first opset of each ONNX op (GatherElements 11, ScatterElements 11,
// Scatter 9, GatherND 11, ScatterND 11); 0 for a non-ONNX op.
int64_t onnx_first_opset(const std::string& op);
// The call's opset (the argument, else the table's default).
int64_t onnx_opset(const OpCall& call);
// Whether index values in [-s, 0) count from the end: every opset of every
// op here except onnx.Scatter-9 (whose document does not mention them).
bool onnx_negatives_wrap(const OpCall& call);

// onnx.GatherElements: opset, dtypes, ranks, axis.
std::optional<Violation> check_onnx_gather_elements(const OpCall& call);
// onnx.ScatterElements / onnx.Scatter: opset, reduction at the opset,
// dtypes, ranks, axis, updates' shape == indices'.
std::optional<Violation> check_onnx_scatter_elements(const OpCall& call);
// GatherElements / ScatterElements / Scatter, after the index values are
// scanned: indices.shape[d] <= data.shape[d] for d != axis (shape_mismatch;
// ONNX leaves the call undefined — the reference allows any outcome — but a
// bad index value is index_out_of_bounds first). REQUIRES: the op's check
// passed.
std::optional<Violation> check_onnx_indices_fit(const OpCall& call);
// onnx.GatherND: opset, batch_dims (0 before opset 12), index dtype, ranks,
// batch dims equal, k in [1, r - b].
std::optional<Violation> check_onnx_gather_nd(const OpCall& call);
// onnx.ScatterND: opset, reduction at the opset, dtypes, ranks, k <= r
// (k = 0: every update is the whole of data), updates' rank
// (rank_mismatch) and shape == indices.shape[:-1] + data.shape[k:].
// Every op: bfloat16 data only from opset 13 (type constraint T; never for
// Scatter, whose schemas 9 and 11 predate it),
// unsupported_dtype. A 0-d data is rank_mismatch for the Elements ops
// (data and indices of one rank r >= 1), invalid_argument for the ND ops
// (data and indices each of rank >= 1).
std::optional<Violation> check_onnx_scatter_nd(const OpCall& call);

}  // namespace sp::backend_rules
