#include "fuzz/shrink.h"

#include <algorithm>
#include <random>

namespace sp::fuzz {

bool shortlex_less(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

namespace {

class Shrinker {
 public:
  Shrinker(std::vector<uint32_t> best, const StillFails& still_fails, const ShrinkLimits& limits)
      : still_fails_(still_fails), limits_(limits), start_(std::chrono::steady_clock::now()) {
    result_.choices = std::move(best);
  }

  ShrinkResult run() {
    bool improved = true;
    while (improved && !out_of_budget()) {
      improved = false;
      for (size_t chunk : {8u, 4u, 2u, 1u}) improved |= delete_chunks(chunk);
      for (size_t chunk : {8u, 4u, 2u, 1u}) improved |= zero_chunks(chunk);
      improved |= reduce_values();
      for (size_t chunk : {8u, 2u}) improved |= sort_chunks(chunk);
      if (!improved) improved = lower_and_delete();
      if (!improved) improved = lower_with_fresh_tail();
    }
    return result_;
  }

 private:
  bool out_of_budget() const {
    return result_.attempts >= limits_.max_attempts || std::chrono::steady_clock::now() - start_ > limits_.max_time;
  }

  // Tries a candidate; adopts it (or its consumed prefix) when it still fails.
  bool attempt(const std::vector<uint32_t>& candidate) {
    if (out_of_budget() || !shortlex_less(candidate, result_.choices)) return false;
    ++result_.attempts;
    std::optional<std::vector<uint32_t>> consumed = still_fails_(candidate);
    if (!consumed) return false;
    // Trailing zeros replay the same as a shorter sequence.
    while (!consumed->empty() && consumed->back() == 0) consumed->pop_back();
    if (!shortlex_less(*consumed, result_.choices)) consumed = candidate;
    result_.choices = std::move(*consumed);
    ++result_.improvements;
    return true;
  }

  bool delete_chunks(size_t chunk) {
    bool any = false;
    for (size_t i = 0; i + chunk <= result_.choices.size();) {
      std::vector<uint32_t> c = result_.choices;
      c.erase(c.begin() + static_cast<std::ptrdiff_t>(i), c.begin() + static_cast<std::ptrdiff_t>(i + chunk));
      if (attempt(c))
        any = true;  // the next chunk now sits at i
      else
        ++i;
      if (out_of_budget()) break;
    }
    return any;
  }

  bool zero_chunks(size_t chunk) {
    bool any = false;
    for (size_t i = 0; i + chunk <= result_.choices.size() && !out_of_budget(); ++i) {
      std::vector<uint32_t> c = result_.choices;
      bool changes = false;
      for (size_t j = i; j < i + chunk; ++j) {
        changes |= c[j] != 0;
        c[j] = 0;
      }
      if (changes && attempt(c)) any = true;
    }
    return any;
  }

  bool reduce_values() {
    bool any = false;
    for (size_t i = 0; i < result_.choices.size() && !out_of_budget(); ++i) {
      while (i < result_.choices.size() && result_.choices[i] > 0) {
        std::vector<uint32_t> c = result_.choices;
        c[i] /= 2;
        if (attempt(c)) {
          any = true;
          continue;
        }
        c = result_.choices;
        c[i] -= 1;
        if (!attempt(c)) break;
        any = true;
      }
    }
    return any;
  }

  // A choice that sets a length (a dim size) is followed, later in the
  // sequence, by one choice per element it sized: lowering it alone leaves
  // the following choices misaligned, and deleting them alone changes
  // nothing. Tried together, one choice lowered by one and one later chunk
  // deleted; only when the cheaper passes are stuck (it costs O(n^2)).
  bool lower_and_delete() {
    for (size_t i = 0; i < result_.choices.size() && !out_of_budget(); ++i) {
      if (result_.choices[i] == 0) continue;
      for (size_t chunk : {1u, 2u}) {
        for (size_t j = i + 1; j + chunk <= result_.choices.size() && !out_of_budget(); ++j) {
          std::vector<uint32_t> c = result_.choices;
          c[i] -= 1;
          c.erase(c.begin() + static_cast<std::ptrdiff_t>(j), c.begin() + static_cast<std::ptrdiff_t>(j + chunk));
          if (attempt(c)) return true;
        }
      }
    }
    return false;
  }

  // Where a lowered choice reshapes everything after it (a lower rank: one
  // size fewer, a fraction of the elements), no local edit keeps the case
  // failing; a fresh random tail often does (half the tries small choices,
  // half any), and is shortlex-smaller whatever it holds. A fixed seed keeps shrinking
  // reproducible.
  bool lower_with_fresh_tail() {
    std::mt19937 rng(0x5eed);
    for (size_t i = 0; i < result_.choices.size() && !out_of_budget(); ++i) {
      if (result_.choices[i] == 0) continue;
      for (int tries = 0; tries < 16 && !out_of_budget(); ++tries) {
        std::vector<uint32_t> c(result_.choices.begin(), result_.choices.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        c[i] = tries % 4 < 2 ? c[i] - 1 : c[i] / 2;
        for (size_t j = i + 1; j < result_.choices.size(); ++j) c.push_back(tries % 2 ? rng() : rng() % 8);
        if (attempt(c)) return true;
      }
    }
    return false;
  }

  bool sort_chunks(size_t chunk) {
    bool any = false;
    for (size_t i = 0; i + chunk <= result_.choices.size() && !out_of_budget(); ++i) {
      std::vector<uint32_t> c = result_.choices;
      std::sort(c.begin() + static_cast<std::ptrdiff_t>(i), c.begin() + static_cast<std::ptrdiff_t>(i + chunk));
      if (c != result_.choices && attempt(c)) any = true;
    }
    return any;
  }

  const StillFails& still_fails_;
  const ShrinkLimits limits_;
  const std::chrono::steady_clock::time_point start_;
  ShrinkResult result_;
};

}  // namespace

ShrinkResult shrink(std::vector<uint32_t> failing, const StillFails& still_fails, const ShrinkLimits& limits) {
  return Shrinker(std::move(failing), still_fails, limits).run();
}

}  // namespace sp::fuzz
