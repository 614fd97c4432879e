// float_tree_hull.h — the least and the greatest result of adding a few
// terms in every binary tree, each addition rounded to nearest even in a
// binary format of at most 24 significand bits (reference/SEMANTICS.md FR-7;
// float_bounds.h uses it for sums of up to kExactTreeTerms non-zero terms).
//
// Rounding is monotone, so over a set S of leaves the extremes of fl(a + b),
// a from a tree over A and b from one over B = S \ A, are fl(min A + min B)
// and fl(max A + max B): one pass over the subsets (3^k steps) gives them.
#pragma once

#include <cstddef>
#include <vector>

namespace sp {

inline constexpr size_t kExactTreeTerms = 6;

// A binary floating format: p significand bits (p <= 24), its smallest
// positive subnormal, its largest finite value.
struct TreeFormat {
  int p;
  double denorm;
  double max;
};

// lo / hi: the extremes over every tree of `terms` (each a value of the
// format or of a narrower one). False, leaving lo / hi alone, for fewer
// than 2 or more than kExactTreeTerms terms, or when some intermediate of
// some tree overflows.
bool tree_sum_hull(const TreeFormat& f, const std::vector<double>& terms, double& lo, double& hi);

}  // namespace sp
