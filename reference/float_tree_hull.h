// float_tree_hull.h — the least and the greatest result of adding a few
// terms in every binary tree, each addition rounded to nearest even in a
// binary format of at most 24 significand bits (reference/SEMANTICS.md FR-7;
// float_bounds.h uses it for sums of up to kExactTreeTerms16 non-zero terms).
//
// Rounding is monotone, so over a set S of leaves the extremes of fl(a + b),
// a from a tree over A and b from one over B = S \ A, are fl(min A + min B)
// and fl(max A + max B): one pass over the subsets (3^k steps) gives them.
#pragma once

#include <cstddef>
#include <vector>

namespace sp {

// Terms summed exactly: up to 8 in a format of at most 11 bits (float16,
// bfloat16: the sums FR-3 bounds most loosely), 6 in a wider one (about
// 3^k / 2 steps: 3 300 for 8 terms, 360 for 6; 13 µs and 5 µs a float16 sum).
inline constexpr size_t kExactTreeTerms = 6;
inline constexpr size_t kExactTreeTerms16 = 8;

// A binary floating format: p significand bits (p <= 24), its smallest
// positive subnormal, its largest finite value.
struct TreeFormat {
  int p;
  double denorm;
  double max;
};

// lo / hi: the extremes over every tree of `terms` (each a value of the
// format or of a narrower one). False, leaving lo / hi alone, for fewer
// than 2 or more than kExactTreeTerms (kExactTreeTerms16 where p <= 11)
// terms, or when some intermediate of some tree overflows.
bool tree_sum_hull(const TreeFormat& f, const std::vector<double>& terms, double& lo, double& hi);

}  // namespace sp
