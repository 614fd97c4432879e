#include "reference/float_node_count.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace sp {
namespace {

using LD = long double;
constexpr LD kEpsLD = std::numeric_limits<LD>::epsilon();

// The most internal nodes of one tree whose leaves sum to at least T > 0:
// at most n_max - m + 1 (SEMANTICS.md FR-3 (v)).
LD nodes_at_least(const std::vector<LD>& a, const std::vector<LD>& b, LD T) {
  const NodeFamily fam = family_at_least(a, b, T);
  return fam.m > 0 && fam.n_max + 1 > fam.m ? static_cast<LD>(fam.n_max + 1 - fam.m) : LD{0};
}

}  // namespace

NodeFamily family_at_least(const std::vector<LD>& a, const std::vector<LD>& b, LD T) {
  const size_t na = a.size() - 1, nb = b.size() - 1;
  NodeFamily fam;
  if (a[na] < T) return fam;
  const auto m_min = static_cast<size_t>(std::lower_bound(a.begin(), a.end(), T) - a.begin());
  // The k smallest of b sum to b[nb] - b[nb - k]; find the largest k that keeps a's total >= T.
  size_t lo = 0, hi = nb;
  while (lo < hi) {
    const size_t k = (lo + hi + 1) / 2;
    if (a[na] - (b[nb] - b[nb - k]) >= T)
      lo = k;
    else
      hi = k - 1;
  }
  fam.m = std::max<size_t>(2, m_min);
  fam.n_max = na + lo;
  return fam;
}

// A node v errs by at most half the spacing at |a + b|, a step function of
// the binade, written as the sum of its increments over the thresholds
// 2^(k-1); the nodes whose |a + b| reaches T have leaves summing to at least
// T - e in magnitude, counted by nodes_at_least for each sign.
LD counted_error_bound(const CountFormat& f, const std::vector<LD>& pos, const std::vector<LD>& neg, LD e) {
  const auto inner = static_cast<LD>(pos.size() + neg.size() - 3);  // internal nodes of any tree
  const LD e_in = e * (1 + 8 * kEpsLD);
  auto nodes = [&](LD T) {
    const LD leaves = T - e_in - 4 * kEpsLD * T;
    if (leaves <= 0) return inner;
    return std::min(inner, nodes_at_least(pos, neg, leaves) + nodes_at_least(neg, pos, leaves));
  };
  auto half_spacing = [&](int k) {  // binade [2^(k-1), 2^k)
    const LD sp = std::max(std::ldexp(LD{1}, k - f.p), f.denorm);
    return f.grid > 0 && sp <= f.grid ? LD{0} : sp / 2;
  };
  int k;
  std::frexp(std::max(pos.back(), neg.back()) + e_in, &k);
  LD total = 0;
  int steps = 0;
  for (; half_spacing(k) > 0; --k, ++steps) {
    if (std::ldexp(LD{1}, k - f.p) <= f.denorm) {  // the subnormal floor: every node
      total += half_spacing(k) * inner;
      break;
    }
    total += (half_spacing(k) - half_spacing(k - 1)) * nodes(std::ldexp(LD{1}, k - 1));
  }
  // Each product is exact (a power of two times a count); the sum may round.
  return total * (1 + static_cast<LD>(steps + 2) * kEpsLD);
}

}  // namespace sp
