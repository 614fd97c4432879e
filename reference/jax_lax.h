// jax_lax.h — JAX's layer over the StableHLO dialect: jax.lax.gather and
// jax.lax.scatter with `mode` (clip, fill / drop, promise_in_bounds) and
// gather's `fill_value` (clause ids JAX-*, reference/SEMANTICS.md "JAX").
//
// A call is read as the StableHLO call JAX lowers it to (lax's names for
// the operands and dimension numbers renamed to the spec's, the index
// vector in the indices' last dim: lax has no index_vector_dim), plus the
// mode's index transform; the references (reference/jax_lax.cc) then run
// the StableHLO reference on the transformed call.
//
// Source: jax 0.10.2 docstrings of jax.lax.GatherScatterMode,
// jax.lax.gather and jax.lax.scatter (quoted in reference/SEMANTICS.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/dialect_stablehlo.h"
#include "reference/op_call.h"
#include "reference/semantics_common.h"

namespace sp::ref::jax {

enum class Mode { Clip, FillOrDrop, PromiseInBounds };

// JAX-M1: the call's mode (absent: gather promise_in_bounds, scatter
// fill_or_drop); nullopt (and the violation logged) for another string.
std::optional<Mode> read_mode(RuleLog& log, const OpCall& call, bool scatter);

// The StableHLO call of a jax.lax call: stablehlo.gather / stablehlo.scatter
// with the spec's names, index_vector_dim = rank(indices) - 1, and the
// promises and update_computation passed through. mode / fill_value /
// gather's unique_indices are JAX's and left out. REQUIRES: indices of rank
// >= 1 (JAX-L1).
OpCall to_stablehlo(const OpCall& call, bool scatter);

// Per window (batch / scatter position, row-major), whether its start lies
// in [0, dim - window size] along every start_index_map axis (the whole
// window in range), for a valid StableHLO call `sh_call`.
std::vector<bool> windows_in_range(const OpCall& sh_call, bool scatter);

// The mode's index transform on `sh_call`'s indices (made int64):
//   clip:  each start clamped into [0, dim - window size] (JAX-M2);
//   drop:  a start of a window not wholly in range set to dim, so the
//          spec's element-wise drop (SH-S-F2) drops all of it (JAX-M4);
//   other: unchanged.
void transform_indices(OpCall& sh_call, bool scatter, Mode mode);

}  // namespace sp::ref::jax
