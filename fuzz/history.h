// history.h — a finding that does not reproduce alone, replayed after the
// cases that ran before it in the same backend process (heap corruption
// from an earlier call, state a kernel keeps between calls: a crash, a
// wrong answer or a hang that a fresh process never shows for the case
// alone).
//
// Each try runs in a fresh backend (the factory's): the earlier cases in
// campaign order, then the finding's case; it reproduces when that last
// case gives the bucket's signature (findings.h) and no earlier case lost
// the process. The whole history is tried first; then chunks of it are
// deleted (halves, quarters, ... single cases, as the shrinker does with
// choices) while the rest still reproduces, until the budget is spent. The
// result is a spec file of the kept cases in order, the finding last, that
// `scatterproof repro FILE --backend B` replays in one process.
//
// Thread-safety: runs on the calling thread; each backend is used by it
// alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "fuzz/engine.h"
#include "fuzz/findings.h"

namespace sp::fuzz {

struct HistoryRepro {
  enum class Kind { Alone, AfterHistory, NotReproduced, NotTried };
  Kind kind = Kind::NotTried;
  std::vector<uint64_t> cases;  // AfterHistory: the earlier case numbers kept, in order
  int starts = 0;               // fresh backends started
  std::string why;              // NotTried / NotReproduced: the reason
  std::string summary() const;  // one line for findings.md and the console
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// Tries `bucket`'s first finding alone, then after its history (a campaign
// of `scope` seeded `seed`), within `budget`. Single calls only: a program
// campaign, or an empty history, is not tried.
HistoryRepro reproduce_with_history(const BackendFactory& fresh, const FuzzScope& scope, uint64_t seed,
                                    const Bucket& bucket, std::chrono::milliseconds budget);

// The spec file DIR/repro-BACKEND-HASH-history.json: the kept earlier cases
// (ids FINAL/before-K, tag "history"), then the finding's own repro case
// (repro_case of the first finding: its id, so case-keyed expectation
// entries still match). Returns the path.
std::string write_history_repro(const FuzzScope& scope, uint64_t seed, const Bucket& bucket, const HistoryRepro& h,
                                const std::optional<FrameworkVersion>& framework, const std::string& dir);

}  // namespace sp::fuzz
