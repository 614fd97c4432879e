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
// smallest normal the step is the subnormal one; past max: infinity. The
// format's constants are worked out once.
struct Rounder {
  double denorm, max, smallest_normal, split;
  explicit Rounder(const TreeFormat& f)
      : denorm(f.denorm),
        max(f.max),
        smallest_normal(f.denorm * std::ldexp(1.0, f.p - 1)),
        split(std::ldexp(1.0, 53 - f.p) + 1) {}
  double operator()(double x) const {
    if (std::fabs(x) < smallest_normal) return std::nearbyint(x / denorm) * denorm;
    const double c = x * split;
    const double r = c - (c - x);
    return std::fabs(r) > max ? std::copysign(kInf, r) : r;
  }
};

}  // namespace

bool tree_sum_hull(const TreeFormat& f, const std::vector<double>& terms, double& lo, double& hi) {
  const size_t k = terms.size();
  if (k < 2 || k > (f.p <= 11 ? kExactTreeTerms16 : kExactTreeTerms) || f.p > 24) return false;
  const size_t full = (size_t{1} << k) - 1;
  const Rounder round_fast(f);
  std::vector<double> mins(full + 1), maxs(full + 1);
  for (size_t mask = 1; mask <= full; ++mask) {
    if ((mask & (mask - 1)) == 0) {
      mins[mask] = maxs[mask] = terms[static_cast<size_t>(__builtin_ctzll(mask))];
      continue;
    }
    // A holds the lowest leaf (each split once) and a proper subset of the
    // rest: B = mask \ A is never empty.
    const size_t low = mask & (~mask + 1), rest = mask ^ low;
    double mn = kInf, mx = -kInf;
    for (size_t r = (rest - 1) & rest;; r = (r - 1) & rest) {
      const size_t a = r | low, b = mask ^ a;
      mn = std::min(mn, round_fast(mins[a] + mins[b]));
      mx = std::max(mx, round_fast(maxs[a] + maxs[b]));
      if (r == 0) break;
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
