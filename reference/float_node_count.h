// float_node_count.h — a bound on the rounding error of a sum over every
// binary tree, from counting the nodes whose operands can sum into each
// binade (reference/SEMANTICS.md FR-3 (v); float_bounds.cc applies it
// beside FR-3's ranking bound and keeps the smaller).
#pragma once

#include <vector>

namespace sp {

// A binary floating format: p significand bits, its smallest positive
// subnormal; grid: the largest power of two every term is a multiple of
// (0: none), below which no addition rounds.
struct CountFormat {
  int p;
  long double denorm;
  long double grid;
};

// pos / neg: the prefix sums (p[0] = 0, exact) of the positive and of the
// negative terms' magnitudes, largest first; the terms are non-zero and at
// least two. e: a bound on the error of every subtree of every tree. The
// result bounds the error of every tree (and so of every subtree).
long double counted_error_bound(const CountFormat& f, const std::vector<long double>& pos,
                                const std::vector<long double>& neg, long double e);

}  // namespace sp
