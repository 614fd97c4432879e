// float_orders.h — orders of combining float terms that the float oracle's
// tests evaluate (tests/float_oracle_test.cc): each is a real tree or
// sequence, every step done by `op` (rounded in some format), so its result
// must lie in the oracle's allowed set (soundness), and a mutant equal to
// or between such results is not detectable by any sound oracle.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

namespace sp::float_orders {

using Terms = std::vector<double>;

// One order of combining: a sequence over a permutation, or a tree.
using Combine = std::function<double(double, double)>;
inline double fold(const Terms& x, const Combine& op) {
  double acc = x[0];
  for (size_t i = 1; i < x.size(); ++i) acc = op(acc, x[i]);
  return acc;
}
inline double pairwise(Terms x, const Combine& op) {
  while (x.size() > 1) {
    Terms next;
    for (size_t i = 0; i + 1 < x.size(); i += 2) next.push_back(op(x[i], x[i + 1]));
    if (x.size() % 2) next.push_back(x.back());
    x = std::move(next);
  }
  return x[0];
}
inline double random_tree(Terms x, const Combine& op, std::mt19937_64& rng) {
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
inline double greedy_tree(Terms x, const Combine& op, int dir) {
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
// Adds every term of `group` onto `acc`, each time the one whose addition
// errs furthest `dir` (the first such on ties); `group` ends empty.
inline double greedy_onto(double acc, Terms& group, const Combine& op, int dir) {
  while (!group.empty()) {
    size_t b = 0;
    double best = -INFINITY;
    for (size_t i = 0; i < group.size(); ++i) {
      const double e = dir * (op(acc, group[i]) - (acc + group[i]));
      if (e > best) best = e, b = i;
    }
    acc = op(acc, group[b]);
    group.erase(group.begin() + static_cast<long>(b));
  }
  return acc;
}
inline double greedy_sequence(Terms x, const Combine& op, int dir) {
  const double first = x.back();
  x.pop_back();
  return greedy_onto(first, x, op, dir);
}

// The phased start: the dominant sign's terms (`big`) and the others, with
// the largest dominant term taken out as the first partial sum; nullopt
// when no term has the dominant sign.
struct PhasedStart {
  Terms big, other;
  double acc = 0;
};
inline std::optional<PhasedStart> phased_start(const Terms& x) {
  Terms pos, neg;
  for (double v : x) (v > 0 ? pos : neg).push_back(v);
  const double ps = std::accumulate(pos.begin(), pos.end(), 0.0), ns = std::accumulate(neg.begin(), neg.end(), 0.0);
  const bool pos_big = ps >= -ns;
  PhasedStart s{pos_big ? pos : neg, pos_big ? neg : pos, 0};
  if (s.big.empty()) return std::nullopt;
  auto largest =
      std::max_element(s.big.begin(), s.big.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  s.acc = *largest;
  s.big.erase(largest);
  return s;
}

// Stronger sequences (rounding errs most where partial sums are largest):
// `phased` adds the dominant sign's terms first, the largest, then greedily
// as greedy_sequence, then the others greedily; `beam` keeps the `width`
// partial sums that erred furthest `dir` so far (ties: the larger
// magnitude, which rounds more coarsely later), extending each by every
// remaining term.
inline double phased_sequence(const Terms& x, const Combine& op, int dir) {
  std::optional<PhasedStart> s = phased_start(x);
  if (!s) return fold(x, op);
  return greedy_onto(greedy_onto(s->acc, s->big, op, dir), s->other, op, dir);
}
// A tree built around one accumulator (the phased start): adding a term
// to a partial sum on a coarse grid errs by a fixed amount (the term's
// residue modulo the spacing), so where no remaining term errs `dir` when
// added, two are first summed into one whose residue does (the pair whose
// sum then errs furthest).
inline double residue_tree(const Terms& x, const Combine& op, int dir) {
  std::optional<PhasedStart> s = phased_start(x);
  if (!s) return fold(x, op);
  double acc = s->acc;
  auto err = [&](double a, double b) { return dir * (op(a, b) - (a + b)); };
  for (Terms* pool : {&s->big, &s->other}) {
    while (!pool->empty()) {
      size_t b = 0;
      for (size_t i = 1; i < pool->size(); ++i)
        if (err(acc, (*pool)[i]) > err(acc, (*pool)[b])) b = i;
      double pair_gain = -INFINITY;
      size_t pi = 0, pj = 0;
      if (err(acc, (*pool)[b]) <= 0) {
        for (size_t i = 0; i < pool->size(); ++i) {
          for (size_t j = i + 1; j < pool->size(); ++j) {
            const double a = (*pool)[i], c = (*pool)[j], g = dir * (op(acc, op(a, c)) - (acc + a + c));
            if (g > pair_gain) pair_gain = g, pi = i, pj = j;
          }
        }
      }
      if (pair_gain > err(acc, (*pool)[b])) {
        (*pool)[pi] = op((*pool)[pi], (*pool)[pj]);
        pool->erase(pool->begin() + static_cast<long>(pj));
        continue;
      }
      acc = op(acc, (*pool)[b]);
      pool->erase(pool->begin() + static_cast<long>(b));
    }
  }
  return acc;
}

inline double beam_sequence(const Terms& x, const Combine& op, int dir, size_t width) {
  struct State {
    double acc, err;  // err: the rounding errors so far, in direction dir
    std::vector<bool> used;
  };
  std::vector<State> beam;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<bool> used(x.size(), false);
    used[i] = true;
    beam.push_back({x[i], 0, used});
  }
  auto better = [](const State& a, const State& b) {
    return a.err != b.err ? a.err > b.err : std::fabs(a.acc) > std::fabs(b.acc);
  };
  for (size_t step = 1; step < x.size(); ++step) {
    std::sort(beam.begin(), beam.end(), better);
    if (beam.size() > width) beam.resize(width);
    std::vector<State> next;
    for (const State& s : beam) {
      for (size_t i = 0; i < x.size(); ++i) {
        if (s.used[i]) continue;
        State n = s;
        n.acc = op(s.acc, x[i]);
        n.err += dir * (n.acc - (s.acc + x[i]));
        n.used[i] = true;
        next.push_back(std::move(n));
      }
    }
    beam = std::move(next);
  }
  return std::min_element(beam.begin(), beam.end(), better)->acc;
}

// The furthest `dir` result of every binary tree, found exactly for a few
// terms (about 3^n / 2 steps; <= 12 terms): over each subset, the extreme of
// op(a, b) with a, b extremes over a split (rounding is monotone, so the
// extreme tree of a set joins extreme trees of its parts). The result is
// that of one real tree.
inline double extreme_tree(const Terms& x, const Combine& op, int dir) {
  const size_t k = x.size(), full = (size_t{1} << k) - 1;
  if (k > 12) return x.empty() ? 0 : fold(x, op);
  std::vector<double> best(full + 1);
  for (size_t mask = 1; mask <= full; ++mask) {
    if ((mask & (mask - 1)) == 0) {
      best[mask] = x[static_cast<size_t>(__builtin_ctzll(mask))];
      continue;
    }
    const size_t low = mask & (~mask + 1), rest = mask ^ low;
    double b = 0;
    bool first = true;
    for (size_t r = (rest - 1) & rest;; r = (r - 1) & rest) {
      const size_t a = r | low;
      const double v = op(best[a], best[mask ^ a]);
      if (first || dir * (v - b) > 0 || std::isnan(b)) b = v;
      first = false;
      if (r == 0) break;
    }
    best[mask] = b;
  }
  return best[full];
}

// A local search for an order that errs `dir` at least as far as `goal`
// (the test asks it only of a mutant that no order above reached and the
// oracle allowed). An order is a permutation cut into groups of up to four
// terms, each group summed left to right and then added to the running sum
// (the first term): sequences, pre-summed pairs and triples. It starts from
// the dominant sign's terms, largest first, then the others; a move swaps
// two terms, moves one, or joins or splits a group, and is kept when the
// result errs no less `dir`, or by chance while the temperature (from the
// start's error spread over the terms) falls. Every order it visits is
// real; it returns the furthest result, stopping at `goal`.
inline double grouped_order(const Terms& x, const std::vector<size_t>& perm, const std::vector<char>& cut,
                            const Combine& op) {
  double acc = x[perm[0]];
  for (size_t i = 1; i < perm.size();) {
    double g = x[perm[i]];
    size_t j = i + 1;
    for (; j < perm.size() && !cut[j] && j < i + 4; ++j) g = op(g, x[perm[j]]);
    acc = op(acc, g);
    i = j;
  }
  return acc;
}
inline double searched_order(const Terms& x, const Combine& op, int dir, double goal, std::mt19937_64& rng, int steps) {
  const size_t n = x.size();
  const long double exact = std::accumulate(x.begin(), x.end(), 0.0L);
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), size_t{0});
  const bool up = exact >= 0;
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    const bool da = (x[a] > 0) == up, db = (x[b] > 0) == up;
    return da != db ? da : std::fabs(x[a]) > std::fabs(x[b]);
  });
  std::vector<char> cut(n, 1);
  double cur = grouped_order(x, perm, cut, op), best = cur;
  const double temp0 = std::fabs(static_cast<double>(cur - exact)) / static_cast<double>(n) + 1e-300;
  std::uniform_real_distribution<double> unit(0, 1);
  for (int it = 0; it < steps && dir * (best - goal) < 0 && n > 2; ++it) {
    std::vector<size_t> p = perm;
    std::vector<char> c = cut;
    const size_t i = rng() % n, j = rng() % n;
    switch (rng() % 3) {
      case 0:
        std::swap(p[i], p[j]);
        break;
      case 1:
        c[1 + rng() % (n - 1)] ^= 1;
        break;
      default: {
        const size_t v = p[i];
        p.erase(p.begin() + static_cast<long>(i));
        p.insert(p.begin() + static_cast<long>(j), v);
      }
    }
    const double r = grouped_order(x, p, c, op), temp = temp0 * (1 - static_cast<double>(it) / steps);
    if (dir * (r - cur) >= 0 || unit(rng) < std::exp(dir * (r - cur) / temp))
      perm = std::move(p), cut = std::move(c), cur = r;
    if (dir * (cur - best) > 0) best = cur;
  }
  return best;
}

}  // namespace sp::float_orders
