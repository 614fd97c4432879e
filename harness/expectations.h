// expectations.h — expectation files for CI gates: known results that are
// allowed to fail, each with a reason.
//
//   {"format": "scatterproof-expectations/1",
//    "entries": [{"case": "paddle/scatter-index/*", "backend": "paddle",
//                 "reason": "Paddle wraps negative indices", "link": "https://..."}]}
//
// `case` and `backend` are exact names or fnmatch globs (`*` crosses `/`, so
// "torch/*" also covers layout variants "torch/x@gapped").
// A deviation the backend shows wherever a documented rule applies is keyed
// by that rule instead: {"clause": "T-IA13", "op": "torch.index_add*",
// "backend": "libtorch", ...} matches every result (spec case or generated
// by `scatterproof fuzz`) whose reference answer cites that clause
// (reference/SEMANTICS.md: the clause of the error it expects, or of a
// decision note) for an op matching `op` (default "*").
// A deviation of some versions of a framework, whichever backend runs them,
// adds "framework" and "versions": {"clause": "T-TA6", "backend": "*",
// "framework": "torch", "versions": ">=2.15", ...} matches only results of a
// backend running torch (Backend::framework()) at a version in the range
// (reference/versions.h; "versions" needs "framework", and "framework" alone
// means every version).
// A deviation of a device ("device": "cuda*", a glob over Backend::device(),
// "cpu" for a backend on the host) matches only results of a backend on a
// matching device, and "verdict": "device_assert" only results judged so:
// {"clause": "T-B1", "backend": "*", "framework": "torch", "versions":
// ">=2.11", "device": "cuda*", "verdict": "device_assert", ...} lists the
// kernels' asserts where PyTorch's document requires the error of T-B1
// (reference/SEMANTICS.md "Devices"), and {"clause": "DEV-FTZ", "device":
// "cuda*", ...} the platform's flush-to-zero.
// "intermittent": true marks a deviation that shows on some runs only
// (uninitialised memory): a pass is then a pass, not an XPASS.
// An entry names `case`, `clause`, or both (then both must match). A listed result
// still runs: a failure becomes XFAIL (expected), a pass becomes XPASS (the
// entry is stale — unexpected by default, a warning with --xpass=warn).
// Unsupported results are left as they are.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/verdict.h"

namespace sp {

struct ExpectationEntry {
  std::string case_pattern;  // empty: any case (then clause_pattern is set)
  std::string backend_pattern;
  std::string reason;
  std::string link;
  std::string file;            // where it was read from
  std::string clause_pattern;  // empty: any clause
  std::string op_pattern;      // empty: any op
  std::string framework;       // empty: any backend; else only backends running it
  std::string versions;        // with framework: a version range; empty: every version
  // "intermittent": true — the deviation shows on some runs only (it reads
  // uninitialised memory, a race): a pass stays a pass (with the entry named
  // in its detail), never an XPASS, so the gate does not flake.
  bool intermittent = false;
  std::string device;   // empty: any device; else a glob over the backend's device ("cpu" for the host)
  std::string verdict;  // empty: any failing verdict; else only this one ("device_assert")
};

// Throws SpecError (harness/case.h) naming the file, the entry and the field.
std::vector<ExpectationEntry> load_expectation_file(const std::string& path);
std::vector<ExpectationEntry> load_expectation_files(const std::vector<std::string>& paths);

// Whether `e`'s op pattern matches `op` and its clause pattern one of the
// clauses in `clause` (space separated, as cited_clauses() gives them); an
// empty pattern matches anything. find_expectation's op and clause test.
bool matches_op_and_clause(const ExpectationEntry& e, const std::string& op, const std::string& clause);

// The first entry matching (case id, backend, op, the clauses the
// reference's answer cites, space separated — cited_clauses()), or null.
// `framework`: what the backend runs (Backend::framework()), for entries that
// name a framework; `device`: where (Backend::device(), "" for the host), for
// entries that name one; `verdict`: the judged verdict, for entries that
// name one (an entry naming a verdict never matches without it).
const ExpectationEntry* find_expectation(const std::vector<ExpectationEntry>& entries, const std::string& case_id,
                                         const std::string& backend, const std::string& op = {},
                                         const std::string& clause = {},
                                         const std::optional<FrameworkVersion>& framework = std::nullopt,
                                         const std::string& device = {},
                                         std::optional<Verdict::Kind> verdict = std::nullopt);

// Applies an entry to a judged verdict: fail/crash/timeout/error -> xfail,
// pass -> xpass; anything else unchanged. The detail says why.
Verdict apply_expectation(const ExpectationEntry& entry, Verdict v);

// Writes (or merges into) an expectation file: existing entries are kept,
// new (case, backend) pairs appended. Returns the number added.
size_t write_expectation_file(const std::string& path, const std::vector<ExpectationEntry>& add);

}  // namespace sp
