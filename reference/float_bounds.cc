#include "reference/float_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// (1+u)^k - 1, the worst relative growth of k rounded operations.
double growth(double u, size_t k) { return std::expm1(static_cast<double>(k) * std::log1p(u)); }

uint64_t inf_bits(DType t, bool negative) { return bits_from_value(t, Value::of_float(negative ? -kInf : kInf)); }
uint64_t zero_bits(DType t, bool negative) { return bits_from_value(t, Value::of_float(negative ? -0.0 : 0.0)); }

// What a sum's bounds need to know of its terms.
struct SumFacts {
  bool nan = false, pos_inf = false, neg_inf = false;
  long double pos_sum = 0, neg_sum = 0, exact = 0, abs_sum = 0;
};
SumFacts sum_facts(const std::vector<double>& terms) {
  SumFacts f;
  for (double x : terms) {
    if (std::isnan(x)) {
      f.nan = true;
    } else if (std::isinf(x)) {
      (x > 0 ? f.pos_inf : f.neg_inf) = true;
    } else {
      (x > 0 ? f.pos_sum : f.neg_sum) += x;
      f.exact += x;
      f.abs_sum += std::fabs(x);
    }
  }
  return f;
}

ElementAllowed add_bounds(DType t, const std::vector<double>& terms) {
  ElementAllowed a;
  const auto [nan, pos_inf, neg_inf, pos_sum, neg_sum, exact, abs_sum] = sum_facts(terms);
  if (nan) {
    a.any_nan = true;
    return a;
  }
  const double u = unit_roundoff(t);
  const size_t ops = terms.size() - 1;
  const double g = growth(u, ops);
  const double max = dtype_max(t);
  // Some order could overflow an intermediate sum of one sign.
  const bool may_overflow_pos = static_cast<double>(pos_sum) * (1 + g) > max;
  const bool may_overflow_neg = -static_cast<double>(neg_sum) * (1 + g) > max;
  if ((pos_inf && neg_inf) || ((pos_inf || may_overflow_pos) && (neg_inf || may_overflow_neg))) a.any_nan = true;
  if (pos_inf || neg_inf) {
    if (!(pos_inf && neg_inf)) a.bits.push_back(inf_bits(t, neg_inf));
    return a;
  }
  // Finite terms. The long-double sums carry their own small error, folded
  // into the bound (64-bit significand over terms.size() additions).
  const double slack = static_cast<double>(abs_sum) * static_cast<double>(terms.size()) * std::ldexp(1.0, -62);
  const double bound = g * static_cast<double>(abs_sum) + slack;
  a.has_interval = true;
  a.lo = static_cast<double>(exact) - bound;
  a.hi = static_cast<double>(exact) + bound;
  // Rounding never flips the sign of a sum of one-signed terms, and a finite
  // result is within the dtype's range: this keeps the bound useful when
  // (n-1)u is large (e.g. bfloat16 accumulated in bfloat16).
  if (neg_sum == 0) a.lo = std::max(a.lo, 0.0);
  if (pos_sum == 0) a.hi = std::min(a.hi, 0.0);
  a.lo = std::max(a.lo, -max);
  a.hi = std::min(a.hi, max);
  if (may_overflow_pos) a.bits.push_back(inf_bits(t, false));
  if (may_overflow_neg) a.bits.push_back(inf_bits(t, true));
  return a;
}

// The smallest positive subnormal of a float dtype.
double min_subnormal(DType t) {
  switch (t) {
    case DType::Float16:
      return std::ldexp(1.0, -24);
    case DType::BFloat16:
      return std::ldexp(1.0, -133);
    case DType::Float32:
      return std::ldexp(1.0, -149);
    default:
      return std::numeric_limits<double>::denorm_min();
  }
}

ElementAllowed mean_bounds(DType t, const std::vector<double>& terms) {
  ElementAllowed a;
  const auto [nan, pos_inf, neg_inf, pos_sum, neg_sum, exact, abs_sum] = sum_facts(terms);
  if (nan) {
    a.any_nan = true;
    return a;
  }
  const double u = unit_roundoff(t);
  const double n = static_cast<double>(terms.size());
  const double max = dtype_max(t);
  // A sum in the dtype could overflow an intermediate of one sign.
  const double g_sum = growth(u, terms.size() - 1);
  const bool may_overflow_pos = static_cast<double>(pos_sum) * (1 + g_sum) > max;
  const bool may_overflow_neg = -static_cast<double>(neg_sum) * (1 + g_sum) > max;
  if ((pos_inf && neg_inf) || ((pos_inf || may_overflow_pos) && (neg_inf || may_overflow_neg))) a.any_nan = true;
  if (pos_inf || neg_inf) {
    if (!(pos_inf && neg_inf)) a.bits.push_back(inf_bits(t, neg_inf));
    return a;
  }
  // n - 1 additions and one division (or n divisions and n - 1 additions).
  const double slack = static_cast<double>(abs_sum) * n * std::ldexp(1.0, -62);
  const double bound = (growth(u, terms.size()) * static_cast<double>(abs_sum) + slack) / n + min_subnormal(t);
  a.has_interval = true;
  a.lo = static_cast<double>(exact) / n - bound;
  a.hi = static_cast<double>(exact) / n + bound;
  if (neg_sum == 0) a.lo = std::max(a.lo, 0.0);
  if (pos_sum == 0) a.hi = std::min(a.hi, 0.0);
  a.lo = std::max(a.lo, -max);
  a.hi = std::min(a.hi, max);
  if (may_overflow_pos) a.bits.push_back(inf_bits(t, false));
  if (may_overflow_neg) a.bits.push_back(inf_bits(t, true));
  return a;
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
  }
  const double u = unit_roundoff(t);
  const double g = growth(u, terms.size() - 1);
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
  if (may_overflow) a.bits.push_back(inf_bits(t, negative));
  a.has_interval = true;
  const double exact = exp > max_exp + 2 ? kInf : std::ldexp(mant, static_cast<int>(std::max<long>(exp, -2000)));
  double lo = exact * (1 - g), hi = exact * (1 + g);
  if (may_underflow) {
    // Gradual underflow loses relative accuracy: an intermediate may round
    // to zero or to a subnormal far from its exact value, and a later large
    // factor scales that error up. Only the sign (or zero) is then certain.
    lo = 0;
    hi = max;
    a.bits.push_back(zero_bits(t, negative));
    a.bits.push_back(inf_bits(t, negative));
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
