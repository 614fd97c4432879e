// dialect_stablehlo.h — the StableHLO gather / dynamic_gather / scatter
// rules shared by reference/stablehlo_gather.cc and stablehlo_scatter.cc:
// the dimension numbers as the op table's int-list arguments, the checks of
// the spec's constraints (clause ids SH-G-Cn, SH-DG-Cn, SH-S-Cn: the spec's
// own constraint numbers, reference/SEMANTICS.md "StableHLO"), the index
// maps of the spec's "More formally" paragraphs and the result shape (C22).
//
// Source: StableHLO specification (docs/spec.md, sections dynamic_gather,
// gather, scatter) at openxla/stablehlo commit 3c9301c, as kept in
// shared/stablehlo/spec-gather-scatter.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reference/op_call.h"
#include "reference/semantics_common.h"

namespace sp::ref::stablehlo {

using Dims = std::vector<int64_t>;

// One op's dimension numbers in one shape: gather's and scatter's attributes
// play the same parts (gather name / scatter name):
//   window_dims    offset_dims / update_window_dims (axes of the result / updates)
//   collapsed      collapsed_slice_dims / inserted_window_dims
//   batching       operand_batching_dims / input_batching_dims
//   index_batching start_indices_batching_dims / scatter_indices_batching_dims
//   index_map      start_index_map / scatter_dims_to_operand_dims
//   slice_sizes    gather's slice_sizes (scatter: none, the updates' window)
struct DimNumbers {
  Dims window_dims, collapsed, batching, index_batching, index_map, slice_sizes;
  int64_t index_vector_dim = 0;
};

// The op (gather / dynamic_gather / scatter) and the clause id of each of
// gather's constraint numbers in that op's own numbering.
enum class Op { Gather, DynamicGather, Scatter };
std::string clause(Op op, int gather_number);

// The call's dimension numbers (defaults from the op table: []; 0).
DimNumbers read_dims(const OpCall& call, Op op);

// Gather / dynamic_gather constraints C1..C21 (gather's numbers; the
// dynamic_gather ones through clause()), every violation logged. `slice_ok`:
// slice_sizes could be read (dynamic_gather's I3). Returns whether the call
// is valid so far.
bool check_gather(RuleLog& log, Op op, const Tensor& operand, const Tensor& start_indices, const DimNumbers& d);
// Scatter constraints C2..C22 (one input and one update: C1, C3, C5 hold).
bool check_scatter(RuleLog& log, const Tensor& input, const Tensor& indices, const Tensor& updates,
                   const DimNumbers& d);

// C22: the result's shape. REQUIRES: check_gather passed.
Shape gather_result_shape(const Tensor& start_indices, const DimNumbers& d);
// The result shape when the dims can be read without error, for the op
// table's output-shape rule; nullopt otherwise.
std::optional<Shape> gather_result_shape_if_valid(const OpCall& call, Op op);

// The index map of one position of the "scatter" dims (gather: batch_index
// of the result; scatter: update_scatter_index): the start index vector read
// from `indices` (`:` at index_vector_dim), placed at index_map into a
// full_start_index (unclamped), and the full_batching_index.
struct StartIndex {
  Shape full_start;     // per operand axis, unclamped (0 off index_map)
  Shape full_batching;  // per operand axis (0 off batching)
  Shape index_pos;      // the first element of indices read (for traces)
};
StartIndex start_index(const Tensor& indices, const DimNumbers& d, const Shape& batch_index, int64_t operand_rank);

// The operand axes that a window index walks: neither collapsed nor batching.
Dims window_axes(int64_t operand_rank, const DimNumbers& d);
// The axes of `rank` not in `dims` (gather's batch_dims of the result,
// scatter's update_scatter_dims).
Dims other_axes(int64_t rank, const Dims& dims);

// Every position of `shape`, row-major (none when a dim is 0; one, {},
// for rank 0).
void for_each_position(const Shape& shape, const std::function<void(const Shape&)>& visit);

// indices_are_sorted as the reference reads it: over the batch positions
// (gather's batch_index, scatter's update_scatter_index) in row-major order,
// full_start_index (gather: clamped) never decreases in lexicographic order
// (the spec's `<=` on index vectors; its "for all i1 < i2 from
// indices(result)" compares windows, not the elements inside one).
bool starts_sorted(const Tensor& indices, const DimNumbers& d, const Tensor& operand, bool clamp);

}  // namespace sp::ref::stablehlo
