// float_node_count.h — a bound on the rounding error of a sum over every
// binary tree, from counting the nodes whose operands can sum into each
// binade (reference/SEMANTICS.md FR-3 (v); float_bounds.cc applies it
// beside FR-3's ranking bound and keeps the smaller).
#pragma once

#include <cstddef>
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

// The internal nodes of one tree whose leaves sum to at least T > 0 (a: the
// prefix sums of that sign's magnitudes, largest first; b: the other
// sign's): each has at least m leaves (2, or the fewest of a reaching T),
// and all their leaves lie in a set of at most n_max terms (all of a and
// the smallest of b while the sum stays >= T). m = 0 when no set reaches T.
struct NodeFamily {
  size_t m = 0, n_max = 0;
};
NodeFamily family_at_least(const std::vector<long double>& a, const std::vector<long double>& b, long double T);

// pos / neg: the prefix sums (p[0] = 0, exact) of the positive and of the
// negative terms' magnitudes, largest first; the terms are non-zero and at
// least two. e: a bound on the error of every subtree of every tree. The
// result bounds the error of every tree (and so of every subtree).
long double counted_error_bound(const CountFormat& f, const std::vector<long double>& pos,
                                const std::vector<long double>& neg, long double e);

}  // namespace sp
