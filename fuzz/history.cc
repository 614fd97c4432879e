#include "fuzz/history.h"

#include <fmt/format.h>

#include <stdexcept>

#include "reference/reference.h"

namespace sp::fuzz {
namespace {

using clock = std::chrono::steady_clock;

// One try in a fresh backend: `earlier` in order, then the finding's case.
// True when no earlier case lost the process and the last one gives the
// bucket's signature.
bool reproduces(const BackendFactory& fresh, const FuzzScope& scope, uint64_t seed, const Bucket& bucket,
                const std::vector<uint64_t>& earlier, int& starts) {
  std::unique_ptr<Backend> backend = fresh();
  ++starts;
  if (!backend) throw std::runtime_error("the backend could not be started again");
  FuzzStats stats;
  for (uint64_t i : earlier)
    if (lost_process(run_case(*backend, scope, seed, i, stats).verdict.kind)) return false;
  const Trial t = run_case(*backend, scope, seed, bucket.first_case, stats);
  return is_finding(t.verdict.kind) && signature_of(t).key() == bucket.signature.key();
}

// Deletes chunks of `kept` (halves, then quarters, ... single cases) while
// the rest still reproduces, until `deadline`.
void minimise(const BackendFactory& fresh, const FuzzScope& scope, uint64_t seed, const Bucket& bucket,
              clock::time_point deadline, HistoryRepro& h) {
  for (size_t chunk = std::max<size_t>(1, h.cases.size() / 2); !h.cases.empty(); chunk /= 2) {
    for (size_t start = 0; start < h.cases.size();) {
      if (clock::now() >= deadline) return;
      std::vector<uint64_t> candidate(h.cases.begin(), h.cases.begin() + static_cast<long>(start));
      const size_t end = std::min(h.cases.size(), start + chunk);
      candidate.insert(candidate.end(), h.cases.begin() + static_cast<long>(end), h.cases.end());
      if (reproduces(fresh, scope, seed, bucket, candidate, h.starts))
        h.cases = std::move(candidate);
      else
        start += chunk;
    }
    if (chunk == 1) return;
  }
}

}  // namespace

std::string HistoryRepro::summary() const {
  switch (kind) {
    case Kind::Alone:
      return fmt::format("reproduces alone in a fresh backend ({} start)", starts);
    case Kind::AfterHistory:
      return fmt::format("reproduces only after {} earlier case(s) in the same process ({}; {} backend starts)",
                         cases.size(), fmt::join(cases, ", "), starts);
    case Kind::NotReproduced:
      return fmt::format("does not reproduce alone nor after the earlier cases: {} ({} backend starts)", why, starts);
    case Kind::NotTried:
      break;
  }
  return "history replay not tried: " + why;
}

HistoryRepro reproduce_with_history(const BackendFactory& fresh, const FuzzScope& scope, uint64_t seed,
                                    const Bucket& bucket, std::chrono::milliseconds budget) {
  HistoryRepro h;
  if (scope.programs) {
    h.why = "a program campaign (single calls only)";
    return h;
  }
  const auto deadline = clock::now() + budget;
  try {
    if (reproduces(fresh, scope, seed, bucket, {}, h.starts)) {
      h.kind = HistoryRepro::Kind::Alone;
      return h;
    }
    h.kind = HistoryRepro::Kind::NotReproduced;
    if (bucket.history.empty()) {
      h.why = "no earlier case ran in that process";
      return h;
    }
    if (!reproduces(fresh, scope, seed, bucket, bucket.history, h.starts)) {
      h.why = fmt::format("the {} earlier case(s) kept do not bring it back", bucket.history.size());
      return h;
    }
    h.kind = HistoryRepro::Kind::AfterHistory;
    h.cases = bucket.history;
    minimise(fresh, scope, seed, bucket, deadline, h);
  } catch (const std::exception& e) {
    h.kind = HistoryRepro::Kind::NotReproduced;
    h.why = e.what();
  }
  return h;
}

std::string write_history_repro(const FuzzScope& scope, uint64_t seed, const Bucket& bucket, const HistoryRepro& h,
                                const std::optional<FrameworkVersion>& framework, const std::string& dir) {
  const Case last = repro_case(bucket.first, scope.backend_name);
  std::vector<Case> cases;
  for (size_t k = 0; k < h.cases.size(); ++k) {
    Trial t;
    t.call = case_call(scope, seed, h.cases[k], framework);
    t.expectation = evaluate(t.call);
    Case c = repro_case(t, scope.backend_name);
    c.id = fmt::format("{}/before-{}", last.id, k + 1);
    c.tags = {"fuzz", "regression", "history"};
    c.source.example = fmt::format(
        "campaign case {} (seed {}), run before {} in the same backend process: alone, that case does not fail",
        h.cases[k], seed, last.id);
    cases.push_back(std::move(c));
  }
  cases.push_back(last);
  return write_repro_cases(cases, scope.backend_name, dir, "-history",
                           fmt::format("a fuzz finding on backend {} that needs {} earlier case(s) in the same "
                                       "process: replay the file in order on one backend",
                                       scope.backend_name, h.cases.size()));
}

}  // namespace sp::fuzz
