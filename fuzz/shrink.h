// shrink.h — reduces a failing choice sequence to a small one that still
// fails the same way (Hypothesis-style shrinking on the sequence, so it
// works for every case the generator can make).
//
// Passes, repeated until none improves: delete chunks (8, 4, 2, 1 choices),
// zero chunks, halve / decrement single choices, sort chunks ascending;
// when those are stuck, decrement one choice while deleting a later chunk
// (a shorter dim together with the choices of its dropped elements).
// A candidate is kept when it is shortlex-smaller (shorter, or as long and
// lexicographically smaller) than the current best and the predicate says
// it still fails; the predicate returns the choices its replay consumed,
// which become the new best (so unread tail choices disappear). Because
// choice 0 is always the generator's simplest option, the result is a
// small, plain case.
//
// Thread-safety: runs the predicate on the calling thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace sp::fuzz {

// nullopt: the candidate does not fail the same way; otherwise the choices
// the replay consumed.
using StillFails = std::function<std::optional<std::vector<uint32_t>>(const std::vector<uint32_t>&)>;

struct ShrinkLimits {
  int max_attempts = 20000;
  std::chrono::milliseconds max_time{20000};
};

struct ShrinkResult {
  std::vector<uint32_t> choices;
  int attempts = 0;  // predicate calls
  int improvements = 0;
};

// REQUIRES: still_fails(failing) is not nullopt.
ShrinkResult shrink(std::vector<uint32_t> failing, const StillFails& still_fails, const ShrinkLimits& limits = {});

// Shortlex order: shorter first, then lexicographic.
bool shortlex_less(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace sp::fuzz
