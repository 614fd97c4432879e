// FR-3 (vi) (reference/float_residue.h): the one-sided bounds from the
// terms' residues, held against the exact extremes of every tree (beyond
// FR-7's eight terms, where the oracle no longer computes them), and what
// a 16-bit sum or mean costs the oracle.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/float_bounds.h"
#include "reference/output_builder.h"
#include "tests/float_orders.h"

namespace sp {
namespace {

using float_orders::Combine;
using float_orders::extreme_tree;
using float_orders::Terms;

double rnd(DType t, double x) { return value_from_bits(t, bits_from_value(t, Value::of_float(x))).f; }
bool allowed(const ElementAllowed& a, DType t, double v) { return a.allows(t, bits_from_value(t, Value::of_float(v))); }

// Terms in (-1, 1) at a random scale, small integers, or spread over 13
// binades, rounded to t.
Terms draw(DType t, size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int kind = static_cast<int>(rng() % 3), scale = static_cast<int>(rng() % 9) - 4;
  Terms x;
  for (size_t i = 0; i < n; ++i) {
    double v = std::ldexp(unit(rng), scale);
    if (kind == 1) v = static_cast<double>(static_cast<int>(rng() % 64) - 32);
    if (kind == 2) v = (rng() % 2 ? 1 : -1) * std::ldexp(1 + std::fabs(unit(rng)), static_cast<int>(rng() % 13) - 6);
    x.push_back(rnd(t, v));
  }
  return x;
}

// Nine to eleven terms: the least and the greatest result of every tree,
// found exactly (float_orders::extreme_tree), are allowed; the bound's
// distance from the exact sum is reported as a multiple of theirs.
TEST(FloatOracle, ResidueBoundHoldsTheExtremeTrees) {
  std::mt19937_64 rng(36);
  long checks = 0;
  double ratio = 0;
  long ratios = 0;
  for (DType t : {DType::Float16, DType::BFloat16}) {
    const Combine op = [t](double a, double b) { return rnd(t, a + b); };
    for (int c = 0; c < 60; ++c) {
      const Terms x = draw(t, 9 + rng() % 3, rng);
      long double exact = 0;
      for (double v : x) exact += v;
      const ElementAllowed a = float_reduction_bounds(t, ReduceMode::Add, x);
      for (int dir : {-1, 1}) {
        const double r = extreme_tree(x, op, dir);
        ++checks;
        EXPECT_TRUE(allowed(a, t, r)) << dtype_name(t) << ": tree result " << r << " not in " << a.describe(t);
        const double reach = dir * static_cast<double>(r - exact), bound = dir * ((dir > 0 ? a.hi : a.lo) - exact);
        if (reach > 0) ratio += bound / reach, ++ratios;
      }
    }
  }
  std::printf("[float oracle] FR-3 (vi): %ld extreme trees of 9-11 terms inside; bound / extreme distance %.2f\n",
              checks, ratios ? ratio / static_cast<double>(ratios) : 0.0);
  EXPECT_GT(ratios, 100);
}

// Twelve bfloat16 terms: every tree gives 2.375 to 2.5 (float32 2.4375);
// FR-3 (v) allowed [2.3125, 2.578125], the residues [2.328125, 2.5625].
TEST(FloatOracle, ResiduesRejectWhatTheNodeCountAllowed) {
  const Terms x = {-0.3359375, 0.84375,    0.3828125, 0.6796875, 0.0546875,  -0.1484375,
                   0.5078125,  -0.8984375, 0.984375,  0.9453125, -0.7109375, 0.140625};
  const DType t = DType::BFloat16;
  const ElementAllowed a = float_reduction_bounds(t, ReduceMode::Add, x);
  const Combine op = [t](double p, double q) { return rnd(t, p + q); };
  EXPECT_EQ(extreme_tree(x, op, -1), 2.375);
  EXPECT_EQ(extreme_tree(x, op, 1), 2.5);
  EXPECT_TRUE(allowed(a, t, 2.375)) << a.describe(t);
  EXPECT_TRUE(allowed(a, t, 2.5)) << a.describe(t);
  EXPECT_FALSE(allowed(a, t, 2.3125)) << a.describe(t);
  EXPECT_FALSE(allowed(a, t, 2.578125)) << a.describe(t);
}

// The oracle's cost per call (add and mean of uniform terms in (-1, 1), 300
// calls each; printed, for SEMANTICS.md FR-7), each interval holding the
// sequential result.
TEST(FloatOracle, CostPerCallOfA16BitSum) {
  std::mt19937_64 rng(64);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (DType t : {DType::Float16, DType::BFloat16}) {
    std::string line = "[float oracle] cost " + std::string(dtype_name(t)) + " (us a call, add / mean):";
    for (size_t n : {8, 16, 32, 64}) {
      std::vector<Terms> cases(300);
      for (Terms& x : cases)
        for (size_t i = 0; i < n; ++i) x.push_back(rnd(t, unit(rng)));
      double us[2];
      for (int mean = 0; mean < 2; ++mean) {
        const auto start = std::chrono::steady_clock::now();
        for (const Terms& x : cases) {
          const ElementAllowed a = mean ? float_mean_bounds(t, x) : float_reduction_bounds(t, ReduceMode::Add, x);
          double seq = x[0];
          for (size_t i = 1; i < x.size(); ++i) seq = rnd(t, seq + x[i]);
          if (mean) seq = rnd(t, seq / static_cast<double>(n));
          EXPECT_TRUE(allowed(a, t, seq)) << a.describe(t);
        }
        us[mean] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                   static_cast<double>(cases.size());
      }
      char part[64];
      std::snprintf(part, sizeof part, " %zu terms %.0f / %.0f;", n, us[0], us[1]);
      line += part;
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace
}  // namespace sp
