#include "reference/float_residue.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace sp {
namespace {

using LD = long double;
constexpr LD kEpsLD = std::numeric_limits<LD>::epsilon();

// The most y + x errs upward (never below 0) when rounded to a multiple of
// U: y is a multiple of U, or, where the sum carries into U's binade from
// below, of U/2 (then y lies within |x| below that binade's start, a
// multiple of U: |x| >= U/2). With h = U/2: for |x| < h, y + x rounds to y
// (|x| where x < 0, else below 0); otherwise, m = x mod h, h - m (h where
// m = 0, a tie). Exact: fmod is, and a difference that would round down is
// moved up a step.
double up_error(double x, double U) {
  const double h = U / 2;
  if (std::fabs(x) < h) return x < 0 ? -x : 0;
  const double a = std::fmod(std::fabs(x), h);
  if (a == 0) return h;
  if (x < 0) return a;  // m = h - a
  const double v = h - a;
  return h - v == a ? v : std::nextafter(v, h);
}

// One binade threshold T = 2^(k-1): the spacing U there, the increase
// delta of the half-spacing bound h at T, each term's increment gamma of
// its residue envelope. The last level is the base: the first threshold at
// which every node may be a member (a member's leaves may sum to any
// value, or the subnormal binades); its delta is h there, the most any
// node's bound grows at or below it.
struct Level {
  LD T, U, delta;
  std::vector<double> gamma;
};

std::vector<Level> levels_of(const CountFormat& f, LD top, LD e_pos, LD e_neg) {
  auto spacing = [&](int k) { return std::max(std::ldexp(LD{1}, k - f.p), f.denorm); };
  auto half = [&](int k) { return f.grid > 0 && spacing(k) <= f.grid ? LD{0} : spacing(k) / 2; };
  int k;
  std::frexp(top, &k);
  std::vector<Level> levels;  // top first
  for (;; --k) {
    const LD T = std::ldexp(LD{1}, k - 1), slack = 4 * kEpsLD * T;
    if (half(k) == 0 || std::ldexp(LD{1}, k - f.p) <= f.denorm || T - e_pos - slack <= 0 || T - e_neg - slack <= 0) {
      levels.push_back({T, spacing(k), half(k), {}});
      return levels;
    }
    levels.push_back({T, spacing(k), half(k) - half(k - 1), {}});
  }
}

// a - b (a >= b) rounded up: the increments below then sum to at least
// the envelope's rise (TwoSum gives the rounding error exactly).
double difference_up(double a, double b) {
  const double d = a - b, bb = d - a, err = (a - (d - bb)) + (-b - bb);
  return err > 0 ? std::nextafter(d, a) : d;
}

// Each term's bound g_i(k) on the error of a node at a threshold <= k
// whose smaller operand it is, as a sum of increments gamma, from the base
// up: the least non-decreasing g_i >= the term's upward residue error at
// every level whose increments are at most delta (so every member brings
// at most delta at a level, as in FR-3 (v)). err: the residue errors, level
// by level, top first; at the base, g_i is its need there (at most h).
void fill_gamma(std::vector<Level>& levels, const std::vector<double>& err, size_t n) {
  const size_t nl = levels.size();
  std::vector<double> need(nl);
  for (Level& lv : levels) lv.gamma.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t l = 0; l < nl; ++l) {
      need[l] = err[l * n + i];
      if (l > 0) need[l] = std::max(need[l], need[l - 1] - static_cast<double>(levels[l - 1].delta));
    }
    double g = need[nl - 1];
    for (size_t l = nl - 1; l-- > 0;) {
      levels[l].gamma[i] = difference_up(std::max(g, need[l]), g);
      g = std::max(g, need[l]);
    }
  }
}

// The items one leaf can bring to a threshold's family as a member's
// hanging child: its increment gamma (a G node), or delta where the leaf
// may be the larger operand of a member (|x| >= T); those worth more than
// delta / 2, largest first, with their prefix sums.
struct Items {
  std::vector<LD> prefix;
  size_t above_half_delta = 0;  // items worth more than delta / 2 a leaf
  LD gamma_max = 0;
};

Items items_of(const Level& lv, const std::vector<LD>& terms) {
  std::vector<LD> above;  // only these are taken one by one; the rest as delta / 2 a leaf
  Items it;
  for (size_t i = 0; i < terms.size(); ++i) {
    const LD gamma = lv.gamma[i], w = std::max(gamma, std::fabs(terms[i]) >= lv.T ? lv.delta : LD{0});
    it.gamma_max = std::max(it.gamma_max, gamma);
    if (w > lv.delta / 2) above.push_back(w);
  }
  std::sort(above.begin(), above.end(), std::greater<LD>());
  it.above_half_delta = above.size();
  it.prefix.assign(above.size() + 1, 0);
  for (size_t i = 0; i < above.size(); ++i) it.prefix[i + 1] = it.prefix[i] + above[i];
  return it;
}

// Minimal members of the family at T' (disjoint, each of leaves summing to
// at least T'): at most a's total / T' and n_max / m.
size_t minimal_most(const std::vector<LD>& a, const NodeFamily& fam, LD Tp) {
  if (fam.m == 0) return 0;
  const LD by_sum = std::floor(a.back() / Tp * (1 + 4 * kEpsLD));
  return std::min(fam.n_max / fam.m, static_cast<size_t>(std::min(by_sum, LD{1e9})));
}

// The most one threshold's increments reach over the members of one sign
// (SEMANTICS.md FR-3 (vi)): l0 minimal members (each >= m leaves, at most
// max(delta, gamma_max)), l0 - 1 with two or more members below (at most
// the same), and one per remaining hanging child: a leaf (its item), a subtree of >= 2 leaves
// (delta).
LD side_bound(const Level& lv, const Items& it, const NodeFamily& fam, size_t l0_most) {
  if (fam.m == 0 || fam.n_max < fam.m) return 0;
  const LD vmin = std::max(lv.delta, it.gamma_max);
  LD best = 0;
  for (size_t l0 = 1; l0 <= std::max<size_t>(1, l0_most) && l0 * fam.m <= fam.n_max; ++l0) {
    const size_t r = fam.n_max - l0 * fam.m, s = std::min(r, it.above_half_delta);
    const LD hanging = it.prefix[s] + static_cast<LD>(r - s) * lv.delta / 2;
    const LD v = static_cast<LD>(2 * l0 - 1) * vmin + hanging;
    best = std::max(best, v);
  }
  // Every member brings at most vmin: FR-3 (v)'s count.
  return std::min(best, static_cast<LD>(fam.n_max + 1 - fam.m) * vmin);
}

// One decomposition's total over the levels. A member whose operands sum
// to at least T has leaves summing to at least T - e_pos (the upward error
// of the subtrees below it); one summing to at most -T, at most
// -(T - e_neg). A negative member at T > neg.back() needs its subtrees to
// err downward by at least T - neg.back(), which the total loses.
LD decomposed_bound(const std::vector<Level>& levels, const std::vector<LD>& terms, const std::vector<LD>& pos,
                    const std::vector<LD>& neg, LD e_pos, LD e_neg) {
  const auto inner = static_cast<LD>(terms.size() - 1);
  LD total = 0;
  LD negative_part = 0, penalty = std::numeric_limits<LD>::infinity();
  for (const Level& lv : levels) {
    if (&lv == &levels.back()) {  // the base: every node, by at most h
      total += inner * lv.delta;
      break;
    }
    const LD tp = lv.T - e_pos - 4 * kEpsLD * lv.T, tn = lv.T - e_neg - 4 * kEpsLD * lv.T;
    const Items it = items_of(lv, terms);
    const LD vmin = std::max(lv.delta, it.gamma_max), all = inner * vmin;
    const NodeFamily fp = family_at_least(pos, neg, tp), fn = family_at_least(neg, pos, tn);
    const size_t lp = minimal_most(pos, fp, tp), ln = minimal_most(neg, fn, tn);
    const LD p = side_bound(lv, it, fp, lp), n = side_bound(lv, it, fn, ln);
    total += std::min(all, p + n);
    if (lv.T > neg.back() && fn.m > 0) {
      negative_part += std::min(all, p + n) - std::min(all, p);
      penalty = lv.T - neg.back();  // levels run downward: the least such T
    }
  }
  // The sums above may round (each a sum of non-negative terms): inflated;
  // what is taken off, deflated.
  const LD slack = static_cast<LD>(levels.size() * (terms.size() + 8)) * kEpsLD;
  return total * (1 + slack) - std::min(negative_part, penalty) * (1 - 16 * kEpsLD);
}

// The bound with levels down to the base from `top`, members' leaves
// summing to at least T - ep (positive) or T - en (negative).
LD levels_bound(const CountFormat& f, const std::vector<LD>& terms, const std::vector<LD>& pos,
                const std::vector<LD>& neg, LD top, LD ep, LD en) {
  std::vector<Level> levels = levels_of(f, top, ep, en);
  const size_t nl = levels.size(), n = terms.size();
  std::vector<double> err(nl * n, 0);
  for (size_t l = 0; l < nl; ++l) {
    if (levels[l].U <= f.denorm || levels[l].U <= f.grid) continue;  // every term is a multiple of U
    const auto U = static_cast<double>(levels[l].U);
    for (size_t i = 0; i < n; ++i) err[l * n + i] = up_error(static_cast<double>(terms[i]), U);
  }
  fill_gamma(levels, err, n);
  return std::max(LD{0}, decomposed_bound(levels, terms, pos, neg, ep, en));
}

}  // namespace

LD residue_error_bound(const CountFormat& f, const std::vector<LD>& terms, const std::vector<LD>& pos,
                       const std::vector<LD>& neg, LD e_pos, LD e_neg) {
  const LD ep = e_pos * (1 + 8 * kEpsLD), en = e_neg * (1 + 8 * kEpsLD);
  return levels_bound(f, terms, pos, neg, std::max(pos.back() + ep, neg.back() + en), ep, en);
}

void residue_bounds(const CountFormat& f, const std::vector<double>& x, const std::vector<LD>& pos_mags,
                    const std::vector<LD>& neg_mags, LD& up, LD& down) {
  std::vector<LD> terms, negated, pos(pos_mags.size() + 1, 0), neg(neg_mags.size() + 1, 0);
  for (double v : x) terms.push_back(v), negated.push_back(-static_cast<LD>(v));
  std::partial_sum(pos_mags.begin(), pos_mags.end(), pos.begin() + 1);
  std::partial_sum(neg_mags.begin(), neg_mags.end(), neg.begin() + 1);
  const LD u = residue_error_bound(f, terms, pos, neg, up, down),
           d = residue_error_bound(f, negated, neg, pos, down, up);
  up = std::min(up, u);
  down = std::min(down, d);
}

}  // namespace sp
