#include "reference/float_bounds.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "reference/float_node_count.h"
#include "reference/float_residue.h"
#include "reference/float_tree_hull.h"

namespace sp {
namespace {

// The arithmetic below runs in long double (at least double's precision
// and range). Every quantity that bounds an error is kept an upper bound:
// sums that are not provably exact carry a slack, quotients are nudged
// outward before they are rounded into a dtype (rounding is monotone).
using LD = long double;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr LD kEpsLD = std::numeric_limits<LD>::epsilon();

uint64_t inf_bits(DType t, bool negative) { return bits_from_value(t, Value::of_float(negative ? -kInf : kInf)); }
uint64_t zero_bits(DType t, bool negative) { return bits_from_value(t, Value::of_float(negative ? -0.0 : 0.0)); }

// A binary floating format: p significand bits (implicit one included),
// the smallest positive subnormal, the largest finite value.
struct Fmt {
  int p;
  LD denorm;
  LD max;
};

Fmt fmt_of(DType t) {
  switch (t) {
    case DType::Float16:
      return {11, std::ldexp(LD{1}, -24), LD{65504}};
    case DType::BFloat16:
      return {8, std::ldexp(LD{1}, -133), std::ldexp(LD{255}, 120)};
    case DType::Float32:
      return {24, std::ldexp(LD{1}, -149), LD{FLT_MAX}};
    default:
      return {53, std::ldexp(LD{1}, -1074), LD{DBL_MAX}};
  }
}

// The spacing of the format's values in the binade holding |x| (x finite,
// non-zero): 2^(k-p) for |x| in [2^(k-1), 2^k), at least a subnormal step.
LD ulp_at(const Fmt& f, LD x) {
  int k;
  std::frexp(std::fabs(x), &k);
  return std::max(std::ldexp(LD{1}, k - f.p), f.denorm);
}

// The spacing of the format's values of magnitude at most x (x > 0): as
// ulp_at, but x = 2^k itself is a value, so the binade below counts.
LD spacing_below(const Fmt& f, LD x) {
  int k;
  const LD m = std::frexp(x, &k);
  if (m == LD{0.5}) --k;
  return std::max(std::ldexp(LD{1}, k - f.p), f.denorm);
}

// Round to nearest even (±inf past the overflow threshold), down, and up.
LD round_near(const Fmt& f, LD x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const LD u = ulp_at(f, x);
  const LD r = std::nearbyint(x / u) * u;  // x / u is exact: u is a power of two
  if (std::fabs(r) > f.max) return r > 0 ? LD{kInf} : -LD{kInf};
  return r;
}
LD round_down(const Fmt& f, LD x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const LD u = ulp_at(f, x);
  const LD r = std::floor(x / u) * u;
  return r > f.max ? f.max : r < -f.max ? -LD{kInf} : r;
}
LD round_up(const Fmt& f, LD x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const LD u = ulp_at(f, x);
  const LD r = std::ceil(x / u) * u;
  return r < -f.max ? -f.max : r > f.max ? LD{kInf} : r;
}

// The largest power of two every term is a multiple of ("the common
// grid"): the lowest set bit over the non-zero finite terms; 0 when none.
LD common_grid(const std::vector<double>& terms) {
  int lowest = std::numeric_limits<int>::max();
  for (double x : terms) {
    if (x == 0 || !std::isfinite(x)) continue;
    int e;
    const double m = std::frexp(std::fabs(x), &e);  // m in [0.5, 1), 53 bits
    auto bits = static_cast<uint64_t>(std::ldexp(m, 53));
    int tz = 0;
    while ((bits & 1) == 0) {
      bits >>= 1;
      ++tz;
    }
    lowest = std::min(lowest, e - 53 + tz);
  }
  return lowest == std::numeric_limits<int>::max() ? LD{0} : std::ldexp(LD{1}, lowest);
}

// What a sum's bounds need to know of its (finite) terms.
struct SumFacts {
  bool nan = false, pos_inf = false, neg_inf = false;
  LD pos_sum = 0, neg_sum = 0, exact = 0, abs_sum = 0;
  LD grid = 0;                  // common power of two of the terms (0: all zero)
  LD slack = 0;                 // bound on the error of `exact` and of the sums below
  std::vector<LD> by_mag;       // |term| (non-zero), largest first; partial sums exact when slack is 0
  std::vector<LD> pos, neg;     // |term| of the positive / negative terms, largest first
  std::vector<double> nonzero;  // the finite non-zero terms, in order
  size_t n = 0;                 // number of terms (finite or not)
};

SumFacts sum_facts(const std::vector<double>& terms) {
  SumFacts f;
  f.n = terms.size();
  for (double x : terms) {
    if (std::isnan(x)) {
      f.nan = true;
    } else if (std::isinf(x)) {
      (x > 0 ? f.pos_inf : f.neg_inf) = true;
    } else {
      (x > 0 ? f.pos_sum : f.neg_sum) += x;
      f.exact += x;
      f.abs_sum += std::fabs(x);
      // Adding a zero to a value is exact: zeros never round.
      if (x != 0) f.by_mag.push_back(std::fabs(static_cast<LD>(x)));
      if (x != 0) (x > 0 ? f.pos : f.neg).push_back(std::fabs(static_cast<LD>(x)));
      if (x != 0) f.nonzero.push_back(x);
    }
  }
  for (std::vector<LD>* v : {&f.by_mag, &f.pos, &f.neg})
    std::sort(v->begin(), v->end(), [](LD a, LD b) { return a > b; });
  f.grid = common_grid(terms);
  // Multiples of the grid whose magnitudes sum to at most 2^digits * grid
  // add exactly in long double; otherwise each long-double sum is off by at
  // most n half-ulps of abs_sum.
  const bool exact_ld = f.abs_sum <= std::ldexp(f.grid, std::numeric_limits<LD>::digits);
  if (!exact_ld) f.slack = f.abs_sum * static_cast<LD>(f.n + 1) * kEpsLD;
  return f;
}

// The possible results of one way of computing: a finite interval (empty
// when lo > hi) and which specials may come out.
struct Range {
  LD lo = 0, hi = 0;
  bool pos_inf = false, neg_inf = false, nan = false;
};

// Adding the finite terms in any order (any binary tree), each addition
// rounded to nearest in format `acc`. The final error is exactly the sum
// of the n-1 local rounding errors d_v = fl(a+b) - (a+b). Rank the tree's
// internal nodes by their number of leaves, largest first: the j-th has at
// most n-j+1 leaves (SEMANTICS.md, "Float reductions"), so with P_m the
// sum of the m largest |terms| and D_m a bound on |d_v| at a node of at
// most m leaves, |error| <= D_2 + ... + D_n (zero terms left out: a node
// adding a zero is exact). A node of m leaves adds two computed values
// whose exact sum is at most P_m + (D_2 + ... + D_{m-1}) in magnitude:
// |d_v| <= half the spacing there, 0 if that is <= the terms' grid.
LD sum_error_bound(const Fmt& f, const SumFacts& s) {
  const size_t n = s.by_mag.size();
  if (n < 2) return s.slack;
  const LD inflate = s.slack == 0 ? LD{1} : 1 + static_cast<LD>(s.n + 2) * kEpsLD;
  std::vector<LD> pos(s.pos.size() + 1, 0), neg(s.neg.size() + 1, 0);  // prefix sums of the magnitudes
  std::partial_sum(s.pos.begin(), s.pos.end(), pos.begin() + 1);
  std::partial_sum(s.neg.begin(), s.neg.end(), neg.begin() + 1);
  LD errors = 0, leaves = 0;
  for (size_t m = 2; m <= n; ++m) {
    // m terms sum to at most the m largest positives, and to the whole sum
    // less the other n - m, which sum to >= minus the n - m largest negative
    // magnitudes; -sum likewise. A running maximum keeps D non-decreasing.
    auto at = [](const std::vector<LD>& p, size_t k) { return p[std::min(k, p.size() - 1)]; };
    const LD up = std::min(at(pos, m), s.exact + s.slack + at(neg, n - m));
    const LD down = std::min(at(neg, m), -s.exact + s.slack + at(pos, n - m));
    leaves = std::max({leaves, up, down});
    const LD x = (leaves + errors) * inflate;
    if (x == 0) continue;
    const LD spacing = spacing_below(f, x);
    if (s.grid > 0 && spacing <= s.grid) continue;
    errors += spacing / 2;
  }
  // The sum of powers of two above may have rounded. FR-3 (v) where the
  // prefix sums are exact: a bound on every subtree's error gives another.
  LD e = errors * (1 + static_cast<LD>(s.n + 2) * kEpsLD);
  const CountFormat cf{f.p, f.denorm, s.grid};
  for (int round = 0; round < 3 && s.slack == 0 && e > 0; ++round)
    e = std::min(e, counted_error_bound(cf, pos, neg, e));
  return e + s.slack;
}

// A sum of the finite terms in format `acc`, any order.
Range sum_range(const Fmt& acc, const SumFacts& s) {
  Range r;
  const LD b = sum_error_bound(acc, s);
  // Exact in every order (b = 0) needs no search; few terms in a format of
  // at most 24 bits: the exact hull of every tree (FR-7; no intermediate overflows).
  double lo = 0, hi = 0;
  if (b > 0 && acc.p <= 24 && s.slack == 0 &&
      tree_sum_hull({acc.p, static_cast<double>(acc.denorm), static_cast<double>(acc.max)}, s.nonzero, lo, hi)) {
    r.lo = lo, r.hi = hi;
    return r;
  }
  LD up = b, down = b;  // FR-3 (vi): each side apart, from the terms' residues (16-bit formats)
  if (b > 0 && acc.p <= 11 && s.slack == 0 && s.nonzero.size() <= kResidueTerms)
    residue_bounds({acc.p, acc.denorm, s.grid}, s.nonzero, s.pos, s.neg, up, down);
  r.lo = s.exact - down, r.hi = s.exact + up;
  // Rounding never flips the sign of a sum of one-signed terms.
  if (s.neg_sum == 0) r.lo = std::max(r.lo, LD{0});
  if (s.pos_sum == 0) r.hi = std::min(r.hi, LD{0});
  // An intermediate of one sign is at most that sign's terms plus the
  // rounding errors below it; it overflows once it reaches max + ulp/2.
  const LD overflow_at = acc.max + ulp_at(acc, acc.max) / 2;
  const bool ovf_pos = s.pos_sum + up >= overflow_at, ovf_neg = -s.neg_sum + down >= overflow_at;
  r.pos_inf = ovf_pos, r.neg_inf = ovf_neg, r.nan = ovf_pos && ovf_neg;
  r.lo = std::max(r.lo, -acc.max), r.hi = std::min(r.hi, acc.max);
  return r;
}

// The finite values of `r` (computed in some format) rounded once to `t`.
Range round_range(const Fmt& t, Range r) {
  if (r.lo > r.hi) return r;
  r.lo = round_near(t, r.lo);
  r.hi = round_near(t, r.hi);
  if (r.hi == kInf) {
    r.pos_inf = true;
    r.hi = t.max;
  }
  if (r.lo == -kInf) {
    r.neg_inf = true;
    r.lo = -t.max;
  }
  if (r.lo == kInf || r.hi == -kInf) r.lo = 1, r.hi = 0;  // every finite value rounds to inf
  return r;
}

// x / n for an interval end, rounded outward to an upper (up) or lower bound.
LD quotient(LD x, size_t n, bool up) {
  const LD d = static_cast<LD>(n);
  const LD q = x / d;
  if (std::fma(q, d, -x) == 0) return q;
  return std::nextafter(q, up ? LD{kInf} : -LD{kInf});
}

// `r` divided by n, rounded in format `div` where given (else the exact
// quotient), then in `t` (each step monotone).
Range divide_range(const Fmt* div, const Fmt& t, Range r, size_t n) {
  if (r.lo > r.hi) return r;
  const LD lo = quotient(r.lo, n, false), hi = quotient(r.hi, n, true);
  r.lo = round_near(t, div ? round_near(*div, lo) : lo);
  r.hi = round_near(t, div ? round_near(*div, hi) : hi);
  return r;
}

void unite(Range& into, bool& any, const Range& r) {
  into.pos_inf |= r.pos_inf;
  into.neg_inf |= r.neg_inf;
  into.nan |= r.nan;
  if (r.lo > r.hi) return;
  into.lo = any ? std::min(into.lo, r.lo) : r.lo;
  into.hi = any ? std::max(into.hi, r.hi) : r.hi;
  any = true;
}

// The formats a dtype-t reduction may accumulate in: t itself, float32 for
// the 16-bit floats (what CPU kernels do), float64 for all narrower ones.
std::vector<Fmt> accumulators(DType t) {
  std::vector<Fmt> acc{fmt_of(t)};
  if (t == DType::Float16 || t == DType::BFloat16) acc.push_back(fmt_of(DType::Float32));
  if (t != DType::Float64) acc.push_back(fmt_of(DType::Float64));
  return acc;
}

// The allowed set of a finite range: its interval snapped inward to t's
// values, the infinities, NaN.
ElementAllowed to_allowed(DType t, const Range& r, bool any_finite) {
  const Fmt f = fmt_of(t);
  ElementAllowed a;
  a.any_nan = r.nan;
  if (any_finite && r.lo <= r.hi) {
    const LD lo = round_up(f, r.lo), hi = round_down(f, r.hi);
    a.has_interval = true;
    a.lo = static_cast<double>(lo);
    a.hi = static_cast<double>(hi);
  }
  if (r.pos_inf) a.bits.push_back(inf_bits(t, false));
  if (r.neg_inf) a.bits.push_back(inf_bits(t, true));
  return a;
}

// NaN and infinite terms: the result is fixed (or NaN) whatever the order.
// Returns true when it decided `a`.
bool special_sum(DType t, const SumFacts& s, bool overflow_pos, bool overflow_neg, ElementAllowed& a) {
  if (s.nan) {
    a.any_nan = true;
    return true;
  }
  if (!s.pos_inf && !s.neg_inf) return false;
  if ((s.pos_inf && s.neg_inf) || (s.pos_inf && overflow_neg) || (s.neg_inf && overflow_pos)) a.any_nan = true;
  if (!(s.pos_inf && s.neg_inf)) a.bits.push_back(inf_bits(t, s.neg_inf));
  return true;
}

ElementAllowed add_bounds(DType t, const std::vector<double>& terms) {
  const SumFacts s = sum_facts(terms);
  const Fmt ft = fmt_of(t);
  // The narrowest format bounds overflow for every path.
  const Range in_t = sum_range(ft, s);
  ElementAllowed a;
  if (special_sum(t, s, in_t.pos_inf, in_t.neg_inf, a)) return a;
  Range all;
  bool any = false;
  unite(all, any, in_t);  // each step rounded in t: the result is on t's grid already
  const std::vector<Fmt> wide = accumulators(t);
  for (size_t i = 1; i < wide.size(); ++i) unite(all, any, round_range(ft, sum_range(wide[i], s)));
  return to_allowed(t, all, any);
}

// The terms each divided by n first, rounded to format `div`.
std::vector<double> divided_terms(const Fmt& div, const std::vector<double>& terms) {
  std::vector<double> out;
  const double n = static_cast<double>(terms.size());
  for (double x : terms) {
    // A long-double quotient has >= 64 bits, >= 2p + 2 for p <= 24, so
    // rounding it again is innocuous; float64 divides directly.
    out.push_back(div.p == 53 ? x / n : static_cast<double>(round_near(div, static_cast<LD>(x) / static_cast<LD>(n))));
  }
  return out;
}

ElementAllowed mean_bounds(DType t, const std::vector<double>& terms) {
  const SumFacts s = sum_facts(terms);
  const Fmt ft = fmt_of(t);
  const size_t n = terms.size();
  const Range in_t = sum_range(ft, s);
  ElementAllowed a;
  if (special_sum(t, s, in_t.pos_inf, in_t.neg_inf, a)) return a;
  Range all;
  bool any = false;
  const Fmt f64 = fmt_of(DType::Float64);
  const SumFacts divided_in_t = sum_facts(divided_terms(ft, terms));
  for (const Fmt& acc : accumulators(t)) {
    // A sum in `acc`, any order (its values lie on acc's grid); then
    // divided once: in acc, in float64, exactly, or after the sum is
    // rounded to t (LibTorch: the sum in t, divided in t).
    Range sum = acc.p == ft.p ? in_t : sum_range(acc, s);
    if (sum.lo <= sum.hi) sum.lo = round_up(acc, sum.lo), sum.hi = round_down(acc, sum.hi);
    unite(all, any, divide_range(&acc, ft, sum, n));
    unite(all, any, divide_range(&f64, ft, sum, n));
    unite(all, any, divide_range(nullptr, ft, sum, n));
    const Range sum_t = round_range(ft, sum);
    unite(all, any, divide_range(&ft, ft, sum_t, n));
    unite(all, any, divide_range(nullptr, ft, sum_t, n));
    // Each term divided first (in acc, or in t), then summed in acc, rounded to t.
    unite(all, any, round_range(ft, sum_range(acc, sum_facts(divided_terms(acc, terms)))));
    if (acc.p != ft.p) unite(all, any, round_range(ft, sum_range(acc, divided_in_t)));
  }
  return to_allowed(t, all, any);
}

ElementAllowed multiply_bounds(DType t, const std::vector<double>& terms) {
  ElementAllowed a;
  bool negative = false, has_zero = false, has_inf = false;
  // |product| as mantissa * 2^exp, so no intermediate over/underflows here.
  double mant = 1.0;
  long exp = 0;
  // Magnitudes of the largest and smallest partial products any order can
  // reach: the product of all factors > 1, and of all factors < 1.
  double big_mant = 1.0, small_mant = 1.0;
  long big_exp = 0, small_exp = 0;
  // Exactness: each |term| = odd * 2^low. Every partial product of any
  // order is a subset's product: odd parts multiply to at most the product
  // of them all, the 2^low parts to between the sums of the negative and of
  // the positive lows.
  double odd_product = 1.0;
  long low_neg = 0;
  for (double x : terms) {
    if (std::isnan(x)) {
      a.any_nan = true;
      return a;
    }
    negative ^= std::signbit(x);
    if (x == 0) {
      has_zero = true;
      continue;
    }
    if (std::isinf(x)) {
      has_inf = true;
      continue;
    }
    int e;
    const double m = std::frexp(std::fabs(x), &e);
    mant *= m;
    exp += e;
    int ne;
    mant = std::frexp(mant, &ne);
    exp += ne;
    if (std::fabs(x) > 1) {
      big_mant = std::frexp(big_mant * m, &ne);
      big_exp += e + ne;
    } else if (std::fabs(x) < 1) {
      small_mant = std::frexp(small_mant * m, &ne);
      small_exp += e + ne;
    }
    auto bits = static_cast<uint64_t>(std::ldexp(m, 53));
    int tz = 0;
    while ((bits & 1) == 0) bits >>= 1, ++tz;
    if (odd_product <= 0x1p53) odd_product *= static_cast<double>(bits);  // exact while <= 2^53
    const long low = e - 53 + tz;
    if (low < 0) low_neg += low;
  }
  const double u = unit_roundoff(t);
  // Each rounding multiplies by (1 + d), |d| <= u / (1 + u).
  const double g = std::expm1(static_cast<double>(terms.size() - 1) * std::log1p(u / (1 + u)));
  const double max = dtype_max(t);
  int max_exp;
  std::frexp(max, &max_exp);
  // Smallest normal of the dtype: 2^(min_exp - 1).
  const int min_normal_exp = t == DType::Float16    ? -14
                             : t == DType::BFloat16 ? -126
                             : t == DType::Float32  ? -126
                                                    : -1022;
  const bool may_overflow = big_exp > max_exp || (big_exp == max_exp && std::ldexp(big_mant, big_exp) * (1 + g) > max);
  const bool may_underflow = small_exp - 1 < min_normal_exp;
  if (has_zero && has_inf) {
    a.any_nan = true;
    return a;
  }
  if (has_inf) {
    a.bits.push_back(inf_bits(t, negative));
    if (may_underflow) a.any_nan = true;  // an order reaching 0 before the inf
    return a;
  }
  if (has_zero) {
    a.bits.push_back(zero_bits(t, negative));
    if (may_overflow) a.any_nan = true;  // an order reaching inf before the 0
    return a;
  }
  const Fmt ft = fmt_of(t);
  const double exact = exp > max_exp + 2 ? kInf : std::ldexp(mant, static_cast<int>(std::max<long>(exp, -2000)));
  // Every subset's product has an odd part of at most p bits, a lowest bit
  // no finer than t's subnormal step and a magnitude below t's max: every
  // partial product of every order is representable, so each rounding is
  // exact (in t and in any wider accumulator) and the result is the product.
  if (odd_product < std::ldexp(1.0, ft.p) &&
      std::ldexp(LD{1}, static_cast<int>(std::max(low_neg, -5000L))) >= ft.denorm && !may_overflow &&
      std::ldexp(big_mant, static_cast<int>(big_exp)) <= max) {
    a.has_interval = true;
    a.lo = a.hi = negative ? -exact : exact;
    return a;
  }
  if (may_overflow) a.bits.push_back(inf_bits(t, negative));
  a.has_interval = true;
  double lo = exact * (1 - g), hi = exact * (1 + g);
  if (may_underflow) {
    // Gradual underflow loses relative accuracy: an intermediate may round
    // to zero or to a subnormal far from its exact value, and a later large
    // factor scales that error up. Only the sign (or zero) is then certain.
    lo = 0;
    hi = max;
    a.bits.push_back(zero_bits(t, negative));
    a.bits.push_back(inf_bits(t, negative));
  } else if (t != DType::Float64) {
    // A wider accumulator (float32 for 16-bit, float64) rounded once to t.
    const std::vector<Fmt> wide = accumulators(t);
    for (size_t i = 1; i < wide.size(); ++i) {
      const double ua = std::ldexp(1.0, -wide[i].p);
      const double ga = std::expm1(static_cast<double>(terms.size() - 1) * std::log1p(ua / (1 + ua)));
      const LD wlo = round_near(ft, static_cast<LD>(exact) * (1 - ga)),
               whi = round_near(ft, static_cast<LD>(exact) * (1 + ga));
      lo = std::min(lo, static_cast<double>(wlo));
      hi = std::max(hi, static_cast<double>(whi));
    }
    if (hi > max) {
      hi = max;
      if (std::find(a.bits.begin(), a.bits.end(), inf_bits(t, negative)) == a.bits.end())
        a.bits.push_back(inf_bits(t, negative));
    }
    // Snap inward to t's values.
    lo = static_cast<double>(round_up(ft, lo));
    hi = static_cast<double>(round_down(ft, hi));
  }
  a.lo = negative ? -hi : lo;
  a.hi = negative ? -lo : hi;
  return a;
}

}  // namespace

ElementAllowed float_reduction_bounds(DType t, ReduceMode mode, const std::vector<double>& terms) {
  return mode == ReduceMode::Multiply ? multiply_bounds(t, terms) : add_bounds(t, terms);
}

ElementAllowed float_mean_bounds(DType t, const std::vector<double>& terms) { return mean_bounds(t, terms); }

}  // namespace sp
