// The float reduction oracle (reference/float_bounds.h) proved both ways:
// soundness — real summation/product orders, each step rounded in the
// dtype or accumulated wider and rounded once, always land in the allowed
// set; tightness — a sum that drops one term or adds one twice falls
// outside it. Membership is decided by ElementAllowed::allows, the
// comparator's own check (harness/comparator.cc via ExpectedTensor).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/float_bounds.h"
#include "reference/output_builder.h"
#include "reference/tensor.h"
#include "tests/float_orders.h"

namespace sp {
namespace {

using float_orders::beam_sequence;
using float_orders::Combine;
using float_orders::extreme_tree;
using float_orders::fold;
using float_orders::greedy_sequence;
using float_orders::greedy_tree;
using float_orders::pairwise;
using float_orders::phased_sequence;
using float_orders::random_tree;
using float_orders::residue_tree;
using float_orders::Terms;

// x rounded to nearest even in t (one rounding from double; for the
// 16-bit dtypes a double holding an exact or correctly rounded add/mul of
// two 16-bit values rounds innocuously: 53 >= 2p + 2).
double rnd(DType t, double x) { return value_from_bits(t, bits_from_value(t, Value::of_float(x))).f; }

double add_in(DType t, double a, double b) {
  if (t == DType::Float32) return static_cast<float>(a) + static_cast<float>(b);
  if (t == DType::Float64) return a + b;
  return rnd(t, a + b);
}
double mul_in(DType t, double a, double b) {
  if (t == DType::Float32) return static_cast<float>(a) * static_cast<float>(b);
  if (t == DType::Float64) return a * b;
  return rnd(t, a * b);
}
double div_in(DType t, double a, double n) {
  if (t == DType::Float32) return static_cast<float>(a) / static_cast<float>(n);
  return t == DType::Float64 ? a / n : rnd(t, a / n);
}

bool allowed(const ElementAllowed& a, DType t, double v) { return a.allows(t, bits_from_value(t, Value::of_float(v))); }

enum class Mode { Add, Multiply, Mean };
const char* mode_name(Mode m) { return m == Mode::Add ? "add" : m == Mode::Multiply ? "multiply" : "mean"; }

ElementAllowed oracle(DType t, Mode m, const Terms& x) {
  if (m == Mode::Mean) return float_mean_bounds(t, x);
  return float_reduction_bounds(t, m == Mode::Add ? ReduceMode::Add : ReduceMode::Multiply, x);
}

// Up to this many terms the test finds the extreme trees exactly
// (float_orders::extreme_tree: about 30 000 steps at 10 terms).
constexpr size_t kExtremeTerms = 10;

// Every order the test tries, each giving one result in t.
std::vector<double> real_results(DType t, Mode m, const Terms& x, std::mt19937_64& rng) {
  std::vector<double> out;
  const double n = static_cast<double>(x.size());
  std::vector<DType> accs{t};
  if (t == DType::Float16 || t == DType::BFloat16) accs.push_back(DType::Float32);
  if (t != DType::Float64) accs.push_back(DType::Float64);
  const bool half = t == DType::Float16 || t == DType::BFloat16;
  std::vector<Terms> orders{x};
  Terms rev(x.rbegin(), x.rend());
  orders.push_back(rev);
  Terms sorted = x;
  std::sort(sorted.begin(), sorted.end(), [](double a, double b) { return std::fabs(a) > std::fabs(b); });
  orders.push_back(sorted);
  orders.emplace_back(sorted.rbegin(), sorted.rend());
  for (int k = 0; k < 4; ++k) {
    Terms p = x;
    std::shuffle(p.begin(), p.end(), rng);
    orders.push_back(p);
  }
  for (DType acc : accs) {
    const Combine op = [&](double a, double b) { return m == Mode::Multiply ? mul_in(acc, a, b) : add_in(acc, a, b); };
    std::vector<double> raw;  // results in acc
    for (const Terms& o : orders) raw.push_back(fold(o, op));
    raw.push_back(pairwise(x, op));
    raw.push_back(random_tree(x, op, rng));
    if (m != Mode::Multiply) {
      for (int dir : {1, -1}) {
        raw.push_back(greedy_sequence(x, op, dir));
        raw.push_back(phased_sequence(x, op, dir));
        if (acc == t && half && x.size() <= 64) {  // t's own rounding is coarse; O(n^3)
          raw.push_back(beam_sequence(x, op, dir, 4));
          raw.push_back(residue_tree(x, op, dir));
        }
        if (acc == t && half && x.size() <= kExtremeTerms) raw.push_back(extreme_tree(x, op, dir));
        if (x.size() <= 40) raw.push_back(greedy_tree(x, op, dir));  // O(n^3)
      }
    }
    for (double r : raw) {
      if (m != Mode::Mean) {
        out.push_back(rnd(t, r));
      } else {
        out.push_back(div_in(t, rnd(t, r), n));    // sum rounded to t, divided in t (LibTorch)
        out.push_back(rnd(t, div_in(acc, r, n)));  // divided in the accumulator
        out.push_back(rnd(t, r / n));              // divided in double, rounded once
      }
    }
    if (m == Mode::Mean) {
      // Each term divided first (in t), then summed in acc.
      Terms d;
      for (double v : x) d.push_back(div_in(t, v, n));
      out.push_back(rnd(t, fold(d, op)));
      out.push_back(rnd(t, pairwise(d, op)));
      for (int dir : {1, -1}) {
        out.push_back(rnd(t, greedy_sequence(d, op, dir)));
        out.push_back(rnd(t, phased_sequence(d, op, dir)));
        if (acc == t && half && x.size() <= 64) out.push_back(rnd(t, residue_tree(d, op, dir)));
        if (acc == t && half && x.size() <= kExtremeTerms) out.push_back(rnd(t, extreme_tree(d, op, dir)));
      }
      std::shuffle(d.begin(), d.end(), rng);
      out.push_back(rnd(t, fold(d, op)));
    }
  }
  return out;
}

// Terms of many kinds, rounded to t.
enum class Kind { SmallInt, Dyadic, Uniform, LogUniform, WideLog, Cancel, Subnormal, NearOverflow, Ones, NumKinds };
const char* kind_name(Kind k) {
  static const char* names[] = {"small-int", "dyadic",    "uniform",       "log-uniform", "wide-log",
                                "cancel",    "subnormal", "near-overflow", "ones"};
  return names[static_cast<int>(k)];
}

double min_subnormal(DType t) {
  return t == DType::Float16    ? std::ldexp(1.0, -24)
         : t == DType::BFloat16 ? std::ldexp(1.0, -133)
         : t == DType::Float32  ? std::ldexp(1.0, -149)
                                : std::ldexp(1.0, -1074);
}

Terms draw(DType t, Mode m, Kind k, size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto coin = [&] { return rng() % 2 == 0; };
  Terms x;
  const double max = dtype_max(t);
  const int scale = static_cast<int>(rng() % 9) - 4;
  for (size_t i = 0; i < n; ++i) {
    double v = 0;
    switch (k) {
      case Kind::SmallInt:
        v = static_cast<double>(static_cast<int>(rng() % 17) - 8);
        break;
      case Kind::Dyadic:
        v = std::ldexp(static_cast<double>(static_cast<int>(rng() % 64) - 32), scale - 3);
        break;
      case Kind::Uniform:
        v = std::ldexp(unit(rng), scale);
        break;
      case Kind::LogUniform:
        v = (coin() ? 1 : -1) * std::ldexp(1 + std::fabs(unit(rng)), static_cast<int>(rng() % 13) - 6);
        break;
      case Kind::WideLog:  // 60 binades: many terms below the others' rounding errors
        v = (coin() ? 1 : -1) * std::ldexp(1 + std::fabs(unit(rng)), static_cast<int>(rng() % 61) - 30);
        break;
      case Kind::Cancel:
        v = i % 3 == 2 ? -x[i - 1] * (1 + std::ldexp(unit(rng), -10)) : std::ldexp(unit(rng), scale + (i % 3 ? 8 : 0));
        break;
      case Kind::Subnormal:
        v = min_subnormal(t) * static_cast<double>(static_cast<int>(rng() % 2001) - 1000) *
            (i % 5 == 0 ? 1024.0 * (1 + std::fabs(unit(rng))) : 1.0);
        break;
      case Kind::NearOverflow:
        v = (coin() ? 1 : -1) * max * (0.3 + 0.7 * std::fabs(unit(rng))) / (i % 2 ? 1.0 : 3.0);
        break;
      default:
        v = 1.0;
        break;
    }
    if (m == Mode::Multiply && k != Kind::SmallInt && k != Kind::Ones && k != Kind::Subnormal &&
        k != Kind::NearOverflow) {
      // Factors near 1 (in magnitude) keep products in range.
      v = (coin() ? 1 : -1) * std::ldexp(1 + std::fabs(v) / (1 + std::fabs(v)), static_cast<int>(rng() % 3) - 1);
    }
    x.push_back(rnd(t, v));
  }
  return x;
}

constexpr DType kFloats[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};

TEST(FloatOracle, SoundForEveryRealOrder) {
  std::mt19937_64 rng(20261126);
  long checks = 0, misses = 0;
  for (DType t : kFloats) {
    for (Mode m : {Mode::Add, Mode::Multiply, Mode::Mean}) {
      for (int k = 0; k < static_cast<int>(Kind::NumKinds); ++k) {
        for (int trial = 0; trial < 60; ++trial) {
          const size_t n = static_cast<Kind>(k) == Kind::Ones ? 2 + rng() % 300 : 2 + rng() % 63;
          const Terms x = draw(t, m, static_cast<Kind>(k), n, rng);
          const ElementAllowed a = oracle(t, m, x);
          for (double r : real_results(t, m, x, rng)) {
            ++checks;
            if (allowed(a, t, r)) continue;
            ++misses;
            ADD_FAILURE() << dtype_name(t) << " " << mode_name(m) << " " << kind_name(static_cast<Kind>(k))
                          << " n=" << n << ": real result " << r << " not in " << a.describe(t) << " (first term "
                          << x[0] << ")";
            if (misses > 20) return;
          }
        }
      }
    }
  }
  std::cout << "[float oracle] soundness: " << checks << " real results checked, " << misses << " outside\n";
  RecordProperty("soundness_checks", std::to_string(checks));
  EXPECT_GT(checks, 50000);
}

// Sequential, each step rounded in t.
double sequential(DType t, Mode m, const Terms& x) {
  double acc = x[0];
  for (size_t i = 1; i < x.size(); ++i) acc = m == Mode::Multiply ? mul_in(t, acc, x[i]) : add_in(t, acc, x[i]);
  return m == Mode::Mean ? div_in(t, acc, static_cast<double>(x.size())) : acc;
}

struct Tally {
  long cases = 0, caught = 0;
  long detectable = 0, caught_detectable = 0;  // excluding mutants no sound interval can reject
  static double share(long a, long b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0; }
};

// A stronger real order, tried only for a mutant that no order of
// real_results reached and the oracle allowed (one the oracle rejects lies
// outside every real order already, the oracle being sound): a search
// toward the mutant's result (float_orders::searched_order, in t), for a
// mean over the sums and over the terms divided first. Each result it finds
// must be allowed (soundness); true when one reaches the mutant's result.
bool search_reaches(DType t, Mode m, const Terms& x, double got, double hi, const ElementAllowed& a,
                    std::mt19937_64& rng) {
  constexpr int kSteps = 4000;
  const int dir = got > hi ? 1 : -1;
  const Combine op = [&](double p, double q) { return add_in(t, p, q); };
  auto check = [&](double r) {
    EXPECT_TRUE(allowed(a, t, r)) << dtype_name(t) << " " << mode_name(m) << ": searched order " << r << " not in "
                                  << a.describe(t);
    return dir * (r - got) >= 0;
  };
  const double n = static_cast<double>(x.size());
  if (m == Mode::Add) return check(float_orders::searched_order(x, op, dir, got, rng, kSteps));
  const double r = float_orders::searched_order(x, op, dir, got * n, rng, kSteps);
  const bool reached = check(div_in(t, r, n)), reached_once = check(rnd(t, r / n));  // both checked
  if (reached || reached_once) return true;
  Terms d;
  for (double v : x) d.push_back(div_in(t, v, n));
  return check(rnd(t, float_orders::searched_order(d, op, dir, got, rng, kSteps)));
}

// Tightness: each case drops one term or adds one twice (a term whose
// loss or repeat changes the exact result) and reduces sequentially, each
// step rounded in t. A mutant whose result lies between two results of
// real orders of the original terms (or equals one: 0, inf) cannot be
// rejected by any sound interval; it counts in `cases` but not in
// `detectable`. The real orders: real_results', and for a mutant the
// oracle allows beyond them, search_reaches'.
Tally tightness(DType t, Mode m, Kind k, int cases, std::mt19937_64& rng, size_t max_terms = 64, size_t min_terms = 2) {
  Tally tally;
  while (tally.cases < cases) {
    const Terms x = draw(t, m, k, min_terms + rng() % (max_terms - min_terms + 1), rng);
    const size_t j = rng() % x.size();
    const bool drop = rng() % 2 == 0;
    const double v = x[j];
    if (m == Mode::Add && v == 0) continue;
    if (m == Mode::Multiply && (std::fabs(v) == 1 || v == 0)) continue;
    if (!std::isfinite(v)) continue;
    if (drop && x.size() < 3) continue;
    Terms mutant = x;
    if (drop)
      mutant.erase(mutant.begin() + static_cast<long>(j));
    else
      mutant.push_back(v);
    if (m == Mode::Mean) {
      const double exact = std::accumulate(x.begin(), x.end(), 0.0L) / static_cast<long double>(x.size());
      const double exact_mutant =
          std::accumulate(mutant.begin(), mutant.end(), 0.0L) / static_cast<long double>(mutant.size());
      if (exact == exact_mutant) continue;
    }
    const ElementAllowed a = oracle(t, m, x);
    const double got = sequential(t, m, mutant);
    const bool caught = !allowed(a, t, got);
    bool ambiguous = false;
    double lo = INFINITY, hi = -INFINITY;
    for (double r : real_results(t, m, x, rng)) {
      if (r == got || (std::isnan(r) && std::isnan(got))) ambiguous = true;
      if (!std::isfinite(r)) continue;  // the finite results span an interval; specials stand alone
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    ambiguous |= std::isfinite(got) && got >= lo && got <= hi;
    if (drop && m == Mode::Add) {
      // A real order: the mutant's sequence, then the dropped term last
      // (absorbed when below half an ulp of the partial sum).
      ambiguous |= add_in(t, got, v) == got;
    }
    if (!ambiguous && !caught && m != Mode::Multiply && std::isfinite(got)) {
      std::mt19937_64 search_rng(static_cast<uint64_t>(tally.cases));  // the draws above stay as they were
      ambiguous = search_reaches(t, m, x, got, hi, a, search_rng);
    }
    ++tally.cases;
    tally.caught += caught;
    if (!ambiguous) {
      ++tally.detectable;
      tally.caught_detectable += caught;
    }
  }
  return tally;
}

TEST(FloatOracle, TightAgainstADroppedOrRepeatedTerm) {
  std::mt19937_64 rng(7);
  // Terms of these kinds span at most ~13 binades (or cancel, or are
  // subnormal): the figure the issue asks for. WideLog (60 binades) is
  // reported apart: most of its mutants drop a term below the others'
  // rounding errors, which no sound oracle can see.
  const Kind kinds[] = {Kind::SmallInt, Kind::Dyadic, Kind::Uniform, Kind::LogUniform, Kind::Cancel, Kind::Subnormal};
  auto report = [](const char* what, Mode m, DType t, Kind k, const Tally& one) {
    std::printf("[float oracle] tightness %-8s %-7s %-11s%s caught %4ld of %4ld (%.4f); of the %4ld detectable: %.4f\n",
                mode_name(m), std::string(dtype_name(t)).c_str(), kind_name(k), what, one.caught, one.cases,
                Tally::share(one.caught, one.cases), one.detectable,
                Tally::share(one.caught_detectable, one.detectable));
  };
  for (Mode m : {Mode::Add, Mode::Mean, Mode::Multiply}) {
    Tally all, wide;
    for (DType t : {DType::Float32, DType::Float64}) {
      for (Kind k : kinds) {
        const Tally one = tightness(t, m, k, 500, rng);
        all.cases += one.cases;
        all.caught += one.caught;
        all.detectable += one.detectable;
        all.caught_detectable += one.caught_detectable;
        report("", m, t, k, one);
      }
      const Tally w = tightness(t, m, Kind::WideLog, 500, rng);
      wide.cases += w.cases;
      wide.caught += w.caught;
      wide.detectable += w.detectable;
      wide.caught_detectable += w.caught_detectable;
      report("", m, t, Kind::WideLog, w);
    }
    const double share = Tally::share(all.caught, all.cases);
    const double share_detectable = Tally::share(all.caught_detectable, all.detectable);
    const double wide_detectable = Tally::share(wide.caught_detectable, wide.detectable);
    std::printf(
        "[float oracle] TIGHTNESS %s float32+float64: %.4f of all %ld cases, %.4f of the %ld detectable; "
        "wide-log %.4f of all %ld, %.4f of the %ld detectable\n",
        mode_name(m), share, all.cases, share_detectable, all.detectable, Tally::share(wide.caught, wide.cases),
        wide.cases, wide_detectable, wide.detectable);
    RecordProperty(std::string("tightness_") + mode_name(m), std::to_string(share));
    RecordProperty(std::string("tightness_detectable_") + mode_name(m), std::to_string(share_detectable));
    RecordProperty(std::string("tightness_widelog_detectable_") + mode_name(m), std::to_string(wide_detectable));
    EXPECT_GE(share_detectable, 0.99) << mode_name(m);
    // Sums and means: a dropped or repeated term is caught in >= 99% of all
    // cases. Products: zero factors, underflow and overflow make many
    // mutants equal to a real result (0 or inf): see the detectable share.
    if (m != Mode::Multiply) {
      EXPECT_GE(share, 0.99) << mode_name(m);
    }
    EXPECT_GE(wide_detectable, 0.75) << mode_name(m);  // measured, not a goal: see SEMANTICS.md
  }
  // The 16-bit floats, where the old worst-case bound was widest (bfloat16:
  // 256 ones allowed anything in [0, 694.5]).
  for (Mode m : {Mode::Add, Mode::Mean}) {
    Tally half;
    for (DType t : {DType::Float16, DType::BFloat16}) {
      for (Kind k : kinds) {
        const Tally one = tightness(t, m, k, 300, rng);
        half.cases += one.cases;
        half.caught += one.caught;
        half.detectable += one.detectable;
        half.caught_detectable += one.caught_detectable;
        report("", m, t, k, one);
      }
    }
    const double share = Tally::share(half.caught, half.cases);
    std::printf("[float oracle] TIGHTNESS %s float16+bfloat16: %.4f of all %ld cases, %.4f of the %ld detectable\n",
                mode_name(m), share, half.cases, Tally::share(half.caught_detectable, half.detectable),
                half.detectable);
    const double share_detectable = Tally::share(half.caught_detectable, half.detectable);
    RecordProperty(std::string("tightness_16bit_") + mode_name(m), std::to_string(share));
    RecordProperty(std::string("tightness_16bit_detectable_") + mode_name(m), std::to_string(share_detectable));
    // Measured 0.570 (add) and 0.570 (mean) of all cases; of the detectable
    // mutants 0.871 (add, 2 355) and 0.758 (mean, 2 705), below the 99% goal
    // (SEMANTICS.md FR-6; FR-3 (vi) moved 0.866 / 0.746 to these).
    EXPECT_GE(share, 0.55) << mode_name(m);
    EXPECT_GE(share_detectable, m == Mode::Add ? 0.865 : 0.75) << mode_name(m);
  }
}

// Up to six terms (the duplicates of one element, as most cases have) the
// oracle's interval is the exact hull of every tree's result (FR-7): every
// 16-bit mutant outside the real orders' hull is rejected.
TEST(FloatOracle, FewTermsAreJudgedByTheExactHullOfEveryOrder) {
  std::mt19937_64 rng(11);
  const Kind kinds[] = {Kind::Uniform, Kind::LogUniform, Kind::Cancel, Kind::Dyadic, Kind::Subnormal};
  for (Mode m : {Mode::Add, Mode::Mean}) {
    Tally few;
    for (DType t : {DType::Float16, DType::BFloat16}) {
      for (Kind k : kinds) {
        const Tally one = tightness(t, m, k, 300, rng, 6);
        few.cases += one.cases;
        few.caught += one.caught;
        few.detectable += one.detectable;
        few.caught_detectable += one.caught_detectable;
      }
    }
    const double share = Tally::share(few.caught_detectable, few.detectable);
    std::printf(
        "[float oracle] TIGHTNESS %s float16+bfloat16, 2-6 terms: %.4f of all %ld, %.4f of the %ld detectable\n",
        mode_name(m), Tally::share(few.caught, few.cases), few.cases, share, few.detectable);
    RecordProperty(std::string("tightness_16bit_few_") + mode_name(m), std::to_string(share));
    EXPECT_GE(share, 0.99) << mode_name(m);  // measured 1.000 (add, mean); the ranking bound: 0.957, 0.988
  }
  // float16 2048 + 1 + 1: real orders give 2048 (each 1 absorbed by a tie
  // to even) or 2050 ((1 + 1) + 2048); the ranking bound allowed 2052 too.
  const ElementAllowed a = float_reduction_bounds(DType::Float16, ReduceMode::Add, {2048, 1, 1});
  EXPECT_TRUE(allowed(a, DType::Float16, 2048));
  EXPECT_TRUE(allowed(a, DType::Float16, 2050));
  EXPECT_FALSE(allowed(a, DType::Float16, 2052)) << a.describe(DType::Float16);
  // bfloat16 256 + 1 + 1 + 1 (spacing 2 at 256): 256 (each 1 absorbed),
  // 258, or 260 ((1 + 1) + 1 = 3, and 259 ties to the even 260); no tree
  // reaches 262, which the ranking bound allowed.
  const ElementAllowed b = float_reduction_bounds(DType::BFloat16, ReduceMode::Add, {256, 1, 1, 1});
  EXPECT_TRUE(allowed(b, DType::BFloat16, 256));
  EXPECT_TRUE(allowed(b, DType::BFloat16, 260));
  EXPECT_FALSE(allowed(b, DType::BFloat16, 262)) << b.describe(DType::BFloat16);
}

// FR-3 (v): nine bfloat16 terms of both signs. The ranking bound charged
// every node above the largest partial sum's binade; counting the nodes
// whose leaves can reach each binade rejects the ends it allowed.
TEST(FloatOracle, MixedSignsCountTheNodesPerBinade) {
  const Terms x = {0.421875,    -0.26171875,  -0.478515625, -0.2109375,  0.171875,
                   -0.33203125, -0.345703125, 0.3515625,    -0.458984375};
  const DType t = DType::BFloat16;
  const ElementAllowed a = float_reduction_bounds(t, ReduceMode::Add, x);
  EXPECT_FALSE(allowed(a, t, -1.1875)) << a.describe(t);     // allowed by FR-3 (i)-(iv) alone
  EXPECT_FALSE(allowed(a, t, -1.1015625)) << a.describe(t);  // likewise
  std::mt19937_64 rng(5);
  for (double r : real_results(t, Mode::Add, x, rng)) EXPECT_TRUE(allowed(a, t, r)) << r << " " << a.describe(t);
}

}  // namespace
}  // namespace sp
