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

namespace sp {
namespace {

using Terms = std::vector<double>;

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

// One order of combining: a sequence over a permutation, or a tree.
using Combine = std::function<double(double, double)>;
double fold(const Terms& x, const Combine& op) {
  double acc = x[0];
  for (size_t i = 1; i < x.size(); ++i) acc = op(acc, x[i]);
  return acc;
}
double pairwise(Terms x, const Combine& op) {
  while (x.size() > 1) {
    Terms next;
    for (size_t i = 0; i + 1 < x.size(); i += 2) next.push_back(op(x[i], x[i + 1]));
    if (x.size() % 2) next.push_back(x.back());
    x = std::move(next);
  }
  return x[0];
}
double random_tree(Terms x, const Combine& op, std::mt19937_64& rng) {
  while (x.size() > 1) {
    const size_t i = rng() % x.size();
    std::swap(x[i], x.back());
    const double a = x.back();
    x.pop_back();
    const size_t j = rng() % x.size();
    x[j] = op(a, x[j]);
  }
  return x[0];
}

// Adversarial orders, sought greedily: a tree that joins, at each step,
// the two values whose rounded sum errs furthest in direction `dir` (+1:
// up, -1: down), and a sequence that adds next the term whose addition errs
// furthest that way. Sampled orders land near the exact result; these reach
// the edges a sound bound must still hold (for 16-bit sums they span 4-5
// times what sampled orders span).
double greedy_tree(Terms x, const Combine& op, int dir) {
  while (x.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = -INFINITY;
    for (size_t i = 0; i < x.size(); ++i) {
      for (size_t j = i + 1; j < x.size(); ++j) {
        const double e = dir * (op(x[i], x[j]) - (x[i] + x[j]));
        if (e > best) best = e, bi = i, bj = j;
      }
    }
    x[bi] = op(x[bi], x[bj]);
    x.erase(x.begin() + static_cast<long>(bj));
  }
  return x[0];
}
double greedy_sequence(Terms x, const Combine& op, int dir) {
  double acc = x.back();
  x.pop_back();
  while (!x.empty()) {
    size_t b = 0;
    double best = -INFINITY;
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = dir * (op(acc, x[i]) - (acc + x[i]));
      if (e > best) best = e, b = i;
    }
    acc = op(acc, x[b]);
    x.erase(x.begin() + static_cast<long>(b));
  }
  return acc;
}

// Every order the test tries, each giving one result in t.
std::vector<double> real_results(DType t, Mode m, const Terms& x, std::mt19937_64& rng) {
  std::vector<double> out;
  const double n = static_cast<double>(x.size());
  std::vector<DType> accs{t};
  if (t == DType::Float16 || t == DType::BFloat16) accs.push_back(DType::Float32);
  if (t != DType::Float64) accs.push_back(DType::Float64);
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

// Tightness: each case drops one term or adds one twice (a term whose
// loss or repeat changes the exact result) and reduces sequentially, each
// step rounded in t. A mutant whose result lies between two results of
// real orders of the original terms (or equals one: 0, inf) cannot be
// rejected by any sound interval; it counts in `cases` but not in
// `detectable`.
Tally tightness(DType t, Mode m, Kind k, int cases, std::mt19937_64& rng, size_t max_terms = 64) {
  Tally tally;
  while (tally.cases < cases) {
    const Terms x = draw(t, m, k, 2 + rng() % (max_terms - 1), rng);
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
    RecordProperty(std::string("tightness_16bit_") + mode_name(m), std::to_string(share));
    // Measured 0.56 (add) and 0.55 (mean): below the 99% goal, which the
    // worst-case half-ulp sum cannot reach with u = 2^-8 or 2^-11 over up
    // to 64 terms (SEMANTICS.md FR-6); the old (1+u)^(n-1) bound gave far less.
    // Of the detectable mutants: 0.80 (add) and 0.64 (mean); 0.73 and 0.59
    // against sampled orders only (SEMANTICS.md FR-6).
    EXPECT_GE(share, 0.50) << mode_name(m);
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
    EXPECT_GE(share, 0.99) << mode_name(m);  // measured 0.998 (add), 0.999 (mean); the ranking bound: 0.957, 0.988
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

}  // namespace
}  // namespace sp
