#include "reference/float_tree_hull.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// x rounded to nearest even with p <= 24 significand bits, in double
// arithmetic: the sum of two such values is exact in double or rounds
// innocuously (53 >= 2p + 2). Dekker's split rounds a normal x; below the
// smallest normal the step is the subnormal one; past max: infinity.
double round_fast(const TreeFormat& f, double x) {
  if (std::fabs(x) < f.denorm * std::ldexp(1.0, f.p - 1)) return std::nearbyint(x / f.denorm) * f.denorm;
  const double c = x * (std::ldexp(1.0, 53 - f.p) + 1);
  const double r = c - (c - x);
  return std::fabs(r) > f.max ? std::copysign(kInf, r) : r;
}

}  // namespace

bool tree_sum_hull(const TreeFormat& f, const std::vector<double>& terms, double& lo, double& hi) {
  const size_t k = terms.size();
  if (k < 2 || k > kExactTreeTerms || f.p > 24) return false;
  const size_t full = (size_t{1} << k) - 1;
  std::vector<double> mins(full + 1), maxs(full + 1);
  for (size_t mask = 1; mask <= full; ++mask) {
    if ((mask & (mask - 1)) == 0) {
      mins[mask] = maxs[mask] = terms[static_cast<size_t>(__builtin_ctzll(mask))];
      continue;
    }
    const size_t low = mask & (~mask + 1);  // A holds the lowest leaf: each split once
    double mn = kInf, mx = -kInf;
    for (size_t a = (mask - 1) & mask; a; a = (a - 1) & mask) {
      if (!(a & low)) continue;
      const size_t b = mask ^ a;
      mn = std::min(mn, round_fast(f, mins[a] + mins[b]));
      mx = std::max(mx, round_fast(f, maxs[a] + maxs[b]));
    }
    if (!std::isfinite(mn) || !std::isfinite(mx)) return false;
    mins[mask] = mn;
    maxs[mask] = mx;
  }
  lo = mins[full];
  hi = maxs[full];
  return true;
}

}  // namespace sp
