// paddle_nd_add.h — what paddle.scatter_nd_add and paddle.scatter_nd share:
// scatter_nd(index, updates, shape) "is equal to
// scatter_nd_add(paddle.zeros(shape, updates.dtype), index, updates)", so
// both are "add every updates slice to the base at its index tuple" with
// the same rules on index and updates, each op citing its own clause ids.
// Defined in reference/paddle_scatter_nd_add.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/expectation.h"
#include "reference/op_call.h"
#include "reference/semantics_common.h"

namespace sp::ref::paddle_nd {

// The clause ids of the shared rules (PD-SNA* / PD-SN*).
struct NdAddClauses {
  const char* formula;     // PD-SNA1 / PD-SN1 (a note: duplicates add, in a free order)
  const char* index_rank;  // index.ndim >= min_index_rank (invalid_argument)
  int64_t min_index_rank;  // 2 ("ndim > 1") or 1 ("ndim >= 1")
  const char* index_rank_text;
  const char* index_dtype;     // int32 / int64 (index_dtype)
  const char* tuple_length;    // Q = index.shape[-1] <= base rank (shape_mismatch)
  const char* updates_shape;   // index.shape[:-1] + base.shape[Q:] (rank_mismatch / shape_mismatch)
  const char* bounds;          // index_out_of_bounds; the versioned rule for negatives
  const char* dtype;           // the documented dtypes (result or unsupported_dtype)
  const char* empty;           // a note: an operand without elements
  const char* whole;           // a note: Q = 0 (every tuple addresses the whole base)
  const char* rank;            // a note: a base or updates of rank above 8
  const char* scalar_updates;  // a note: a 0-d updates
  const char* base_name;       // "x" or "shape"
};

// Runs the shared checks into `log` (after the op's own: a base of nullopt,
// an invalid shape, skips the ones that read it), then, when every check
// passed, the result: base with every updates slice added at its tuple
// (ReduceMode::Add: duplicates accumulate, in an order the page leaves
// free). `documented`: the data dtype is one the page lists.
// `base_rank`: the base's rank (scatter_nd: len(shape), also when shape is
// invalid), for the rank note.
Expectation add_slices(const OpCall& call, RuleLog& log, const std::optional<Tensor>& base, int64_t base_rank,
                       const Tensor& index, const Tensor& updates, bool documented, const NdAddClauses& c,
                       Trace* trace);

}  // namespace sp::ref::paddle_nd
