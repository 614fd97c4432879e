// engine.h — one fuzz trial (generate, evaluate the reference, run a
// backend on a deep copy, judge), the time-boxed fuzz loop, shrinking a
// finding, and turning it into a regression spec case.
//
// A trial judges exactly as the runner does: the backend receives its own
// deep copy of the call and `judge(before, expectation, outcome, after)`
// sees a second, untouched copy as `before`. A *finding* is a verdict of
// fail, crash, timeout or error (a backend exception, or the reference
// throwing on a generated call).
//
// Thread-safety: functions use only their arguments; a Backend is used by
// one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "fuzz/shrink.h"
#include "harness/case.h"
#include "harness/expectations.h"
#include "harness/verdict.h"
#include "reference/expectation.h"
#include "reference/op_table.h"
#include "reference/program.h"

namespace sp::fuzz {

struct Trial {
  OpCall call;
  Expectation expectation;
  Outcome outcome;
  Verdict verdict;
  std::vector<uint32_t> choices;  // consumed by the generator
  // A generated program (fuzz/program_gen.h; FuzzScope::programs): what the
  // trial ran, `call` then standing for it (op "program", its inputs).
  std::shared_ptr<const Program> program;
};

bool is_finding(Verdict::Kind k);
// A crash, a timeout or a device-side assert: the backend lost its process
// or its device context (the next call starts a fresh one).
bool lost_process(Verdict::Kind k);
// Runs `call` through the reference and `backend`; a backend running the
// call's framework (Backend::framework()) gets the call with its version as
// OpCall::framework_version (Trial::call holds what ran).
Trial judge_call(Backend& backend, const OpCall& call);
// The same for a program: the reference's composed answer (P-1), the
// backend's run (whole or op by op: backends/backend.h run_program), judged.
Trial judge_program_trial(Backend& backend, std::shared_ptr<const Program> program);

// What a campaign covers and what it already knows: the ops it generates
// (empty: every op of the table) and the known deviations of the backend
// under test — expectation entries (harness/expectations.h) matched as
// `run --expectations` matches them: against `backend_name`, the call's op,
// the clauses the reference's answer cites (cited_clauses), the backend's
// framework, and — for entries naming a case — the id the finding's repro
// spec would carry (repro_case). A finding an entry covers is counted, not
// reported, and the campaign goes on.
struct FuzzScope {
  std::vector<const OpSpec*> ops;
  bool programs = false;  // draw programs of 2 to 4 steps (fuzz/program_gen.h) instead of single calls
  std::vector<ExpectationEntry> known;
  std::string backend_name;
  std::optional<FrameworkVersion> framework;  // what the backend runs, for versioned entries
  std::string device;                         // where it runs (Backend::device()), for device entries
};
// The entry covering `t`'s finding, or null.
const ExpectationEntry* known_deviation(const FuzzScope& scope, const Trial& t);
// Generates the case of `choices` (replayed; zeros past the end) and judges it.
Trial replay_trial(Backend& backend, const std::vector<uint32_t>& choices, const FuzzScope& scope = {});

struct FuzzLimits {
  uint64_t seed = 1;
  std::chrono::milliseconds duration{10000};
  uint64_t max_cases = 0;  // 0: until the duration is spent
};
struct FuzzStats {
  uint64_t cases = 0;
  uint64_t invalid = 0;      // the reference expected an error
  uint64_t unsupported = 0;  // the backend declined
  uint64_t known = 0;        // findings a known deviation covers (FuzzScope)
  double seconds = 0.0;
};
// Case `i` of a run seeded `seed` — one generator per case, seeded from
// (seed, i), so any case of a run can be regenerated alone — generated from
// `scope`'s ops, judged, and counted in `stats` (cases, invalid, unsupported);
// a finding's Trial holds the choices it consumed.
Trial run_case(Backend& backend, const FuzzScope& scope, uint64_t seed, uint64_t i, FuzzStats& stats);
// The call case `i` of a run seeded `seed` generates (single calls only, not
// FuzzScope::programs), run by nothing; `framework` (what the backend runs)
// sets its framework_version where the op is of that framework.
OpCall case_call(const FuzzScope& scope, uint64_t seed, uint64_t i, const std::optional<FrameworkVersion>& framework);

struct FuzzResult {
  FuzzStats stats;
  std::optional<Trial> finding;  // the first one, unshrunk
};
// Fuzzes `backend` until the first finding or a limit (`scatterproof
// mutants`; a campaign that goes on after a finding is fuzz_campaign,
// findings.h). `progress` (may be empty) is
// called about every 200 ms. With a `baseline` (mutation testing: the
// unmutated backend), a disagreement counts only where the baseline agrees
// with the reference, so a known reference/backend difference does not
// "kill" every mutant.
FuzzResult fuzz_backend(Backend& backend, const FuzzLimits& limits,
                        const std::function<void(const FuzzStats&)>& progress = {}, Backend* baseline = nullptr,
                        const FuzzScope& scope = {});
// Is `t` a finding that `baseline` (if any) does not share?
bool is_new_finding(const Trial& t, Backend* baseline);

// Shrinks a finding to a minimal trial with the same signature
// (findings.h: op, verdict kind, expected/actual category, clause); when
// the shrunk choices replay to another signature (a flaky backend), the
// finding is returned as found.
struct Shrunk {
  Trial trial;
  ShrinkResult shrink;
};
// Candidates a known deviation of `scope` covers do not count as failing.
Shrunk shrink_finding(Backend& backend, const Trial& finding, const ShrinkLimits& limits = {},
                      const FuzzScope& scope = {});

// A regression spec case for a finding: id "regression/fuzz-BACKEND-HASH",
// source.kind "fuzz", expect = the reference's expectation in spec form
// (the exact output — representative values where the reference allows a
// set or an interval, said in source.example — or the error category, or
// unspecified).
Case repro_case(const Trial& trial, const std::string& backend_name);
// Writes the case as a spec file DIR/repro-BACKEND-HASH.json; returns the path.
std::string write_repro(const Case& c, const std::string& backend_name, const std::string& dir);
// The same for several cases (run in order), named after the last one's
// hash: DIR/repro-BACKEND-HASH{suffix}.json.
std::string write_repro_cases(const std::vector<Case>& cases, const std::string& backend_name, const std::string& dir,
                              const std::string& suffix, const std::string& description);

}  // namespace sp::fuzz
