// float_residue.h — a one-sided bound on the rounding error of a sum over
// every binary tree, from the residues of the terms that are added to a
// coarser partial sum (reference/SEMANTICS.md FR-3 (vi); float_bounds.cc
// applies it to the 16-bit floats beside FR-3's two-sided bounds).
//
// A node adding a term x to a value y that is a multiple of the node's
// spacing U (|y| >= |x| without a carry into the next binade) errs by
// exactly x's rounding error modulo U: fl(y + x) - (y + x) is the nearest
// multiple of U to x, less x. Every other node errs by at most U/2. Writing
// each node's bound as a sum of increments over the binade thresholds
// 2^(k-1), each threshold's increments are bounded by how the nodes whose
// operands reach it can be arranged (FR-3 (v)'s forest, with its leaves).
#pragma once

#include <cstddef>
#include <vector>

#include "reference/float_node_count.h"

namespace sp {

// Terms (signed, non-zero) up to which float_bounds.cc applies the bound
// (its cost grows as n log n a binade).
inline constexpr size_t kResidueTerms = 256;

// An upper bound on (computed sum - exact sum) over every tree of `terms`
// in format f: pos / neg the prefix sums of the positive and negative
// magnitudes, largest first (exact); e_pos / e_neg bounds on the upward /
// downward error of every subtree (of every forest of subtrees). The
// downward bound is the upward one of the negated terms (swap pos and neg,
// e_pos and e_neg). The result also bounds every subtree's upward error.
long double residue_error_bound(const CountFormat& f, const std::vector<long double>& terms,
                                const std::vector<long double>& pos, const std::vector<long double>& neg,
                                long double e_pos, long double e_neg);

// Both sides at once for the non-zero terms x (pos_mags / neg_mags: the
// positive and negative magnitudes, largest first; their sums exact in long
// double), given up = down = a bound on |error| of every tree and forest:
// each lowered to residue_error_bound's where that is smaller. (A second
// round, with the first's results as the bounds, moved the 16-bit
// tightness figures by < 0.1 %.)
void residue_bounds(const CountFormat& f, const std::vector<double>& x, const std::vector<long double>& pos_mags,
                    const std::vector<long double>& neg_mags, long double& up, long double& down);

}  // namespace sp
