// runner.h — runs spec cases through the reference and the chosen
// backends, judges every result and hands each record to a sink.
//
// For each case: the reference is evaluated once and checked against the
// case's documented expectation (check "document", backend "reference");
// then each backend is run and judged by run_and_judge() (run_judge.h: its
// own deep copy of the call, a second one kept as `before` for the storage
// guards; check "differential"). Every exception a backend throws becomes
// an `error` result; the run never aborts on a case. Spec files that fail
// to load become `error` results with check "load" and backend "loader"
// (always reported, whatever the filters, so broken input is never hidden).
//
// Records go to a ResultSink (result_record.h) as they are known; the
// runner writes no files. reports/report_dir.h has the sink behind
// `scatterproof run`: results.jsonl, then report.json, junit.xml and
// report.md rebuilt from it at the end.
//
// Thread-safety: run_* may run cases on `threads` worker threads; each
// worker owns its backend instances. The sink is called serialized.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/case.h"
#include "harness/expectations.h"
#include "harness/result_record.h"
#include "harness/run_judge.h"
#include "harness/spec_loader.h"

namespace sp {

struct RunOptions {
  std::vector<std::string> backends{"reference"};
  // A case runs when the list is empty or any filter matches: a glob
  // (fnmatch, `*` crosses `/`) on the case id, or "tag:GLOB" on its tags.
  std::vector<std::string> filters;
  int threads = 1;  // cases run concurrently
  // Besides each case as written, re-run it with its operands re-laid out
  // (harness/layouts.h: transposed, gapped, offset, expanded). A variant's
  // id is "<case id>@<layout>"; a layout that changes nothing for a case
  // yields no variant. The reference is also checked to give the same
  // answer on every variant (check "layout").
  std::vector<std::string> layouts;
  BackendOptions backend_options;  // passed to every backend instance
  // Known failures (harness/expectations.h): a listed failure is XFAIL, a
  // listed pass XPASS — unexpected unless xpass_warn.
  std::vector<ExpectationEntry> expectations;
  bool xpass_warn = false;
  // Run only every shard_count-th selected case, starting at shard_index
  // (0-based), so a CI matrix can split the suite.
  int shard_index = 0;
  int shard_count = 1;
  bool verbose = false;
  // --framework-version FRAMEWORK=VERSION: the version whose rules the
  // reference answers for, per framework (op table dialect), for backends
  // that run no framework of their own (cpu, cuda, plugins, mutants): it
  // overrides a case's source.doc_version. A framework backend always gets
  // the reference for its own version (Backend::framework()).
  std::map<std::string, std::string> framework_versions;
  // When set and non-zero (the CLI stores the number of a SIGINT/SIGTERM it
  // caught), no new case or backend call starts: the run writes what it
  // has, closes the sink (reports rebuilt), destroys the backends (their
  // processes killed) and returns with exit_code::interrupted(signal).
  const std::atomic<int>* stop = nullptr;
  // Called once per selected case when it has finished (all its backends
  // and layouts), from the thread that ran it: the CLI's progress line.
  // Several threads may call it at once.
  std::function<void()> on_case_done;
};

struct RunSummary {
  int exit_code = 0;    // harness/exit_codes.h
  std::string message;  // why the run stopped early (backend unavailable, the sink's open(), a signal)
  std::map<Verdict::Kind, size_t> verdicts;
  int interrupted_by = 0;  // the signal that stopped the run (RunOptions::stop), or 0
};

bool case_matches(const Case& c, const std::vector<std::string>& filters);

// The cases of spec files/directories streamed one at a time (file by
// file, spec_loader.h stream_spec_file), with their problems. Case ids must
// be unique across the whole set: a later duplicate is a spec error.
void stream_specs(const std::vector<std::string>& paths, const CaseFn& on_case, const ErrorFn& on_error);
// The same, collected (for callers that need every case at once: fuzz's
// mutant check, tests); `run_specs` streams.
struct LoadedSpecs {
  std::vector<Case> cases;
  std::vector<SpecError> errors;
};
LoadedSpecs load_specs(const std::vector<std::string>& paths);

// Streams `paths` and runs each matching case as it is loaded, releasing
// it after: memory holds the cases in flight (one per thread and one waiting), never the
// whole suite.
RunSummary run_specs(const std::vector<std::string>& paths, const RunOptions& options, ResultSink& sink);
// Runs already-loaded cases; `spec_errors` are recorded as load errors.
RunSummary run_cases(const std::vector<Case>& cases, const std::vector<SpecError>& spec_errors,
                     const RunOptions& options, ResultSink& sink);

// One-line summary of a case's documented expectation, used in records
// (outcome_summary, for a backend's answer, is in run_judge.h).
std::string document_expectation_summary(const CaseExpect& e);

}  // namespace sp
