// fuzz_cli.h — the `fuzz`, `repro` and `mutants` subcommands of
// `scatterproof`, as functions cli/cmd_tools.cc wires to CLI11 options.
//
//   scatterproof fuzz --backend NAME [--seconds N] [--seed S] [--out DIR] [--max-cases N]
//                     [--max-findings N] [--shrink-seconds N] [--expectations FILE]...
//       a campaign: generate cases, run the reference and the backend,
//       judge; a finding is bucketed by its signature (fuzz/findings.h) and
//       the campaign goes on until the time or case budget is spent or N
//       distinct buckets were found (default 20). Then each bucket's first
//       finding is shrunk (keeping its signature, --shrink-seconds each) and
//       written as DIR/repro-NAME-HASH.json, and DIR/findings.json and
//       DIR/findings.md summarise the campaign (signature, hits, repro,
//       shell-quoted replay command, verdict detail). Known deviations
//       (--expectations) are counted, not findings. Prints exec/s.
//       Exit 0: no finding; 1: findings (repros written); 4: backend
//       unavailable; 5: internal.
//   scatterproof repro FILE [--backend NAME]...
//       replay a spec file (a repro) on the reference and the named
//       backends only (default: cpu, in process), print the verdicts, the
//       first difference and the reference's explanation. Exit 0 all pass,
//       1 some finding, 3 bad file, 4 a named backend unavailable.
//   scatterproof mutants [--seconds-per-mutant N] [--cases-per-mutant N] [--json FILE] [--seed S]
//                        [--specs PATH]...
//       for every mutant backend: killed by the spec suite? killed by
//       fuzzing, and how fast? Exit 0 when fuzzing killed every mutant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sp::fuzz {

struct FuzzOptions {
  std::string backend;
  double seconds = 10.0;
  uint64_t seed = 0;  // 0: derived from the clock (printed, so a run can be repeated)
  uint64_t max_cases = 0;
  std::string out_dir = "fuzz-out";
  // Backend threads (0: the hardware's). Small cases run on one thread anyway
  // (cpu::threads_for); the generator's large tier reaches the cpu kernels'
  // parallel paths only when the backend has more than one (scripts/coverage).
  int threads = 0;
  std::vector<std::string> ops;           // op id globs; empty: every op
  std::vector<std::string> expectations;  // files whose clause-keyed entries are known deviations
  double timeout_s = 0;                   // BackendOptions::timeout_s (--timeout)
  size_t max_findings = 20;               // distinct buckets before the campaign stops; 0: no limit
  double shrink_seconds = 10.0;           // per bucket
  size_t history = 64;                    // earlier cases a bucket keeps for the history replay; 0: no replay
  double history_seconds = 30.0;          // history replay budget per bucket (fuzz/history.h)
  bool programs = false;                  // draw programs of 2 to 4 steps (fuzz/program_gen.h), not single calls
};
int fuzz_main(const FuzzOptions& options);

struct ReproOptions {
  std::string file;
  std::vector<std::string> backends;  // the backends to replay on; empty: cpu
  double timeout_s = 0;               // BackendOptions::timeout_s (--timeout)
};
// The backends `repro` starts, in order: "reference" first, then the named
// ones (or "cpu" when none is named), each once.
std::vector<std::string> repro_backend_names(const ReproOptions& options);
int repro_main(const ReproOptions& options);

struct MutantsOptions {
  double seconds_per_mutant = 10.0;
  uint64_t cases_per_mutant = 0;  // 0: only the time budget
  std::string json_file;          // empty: no JSON
  uint64_t seed = 1;
  std::vector<std::string> spec_paths;  // empty: the source tree's specs/
  std::vector<std::string> only;        // mutant names; empty: all
};
int mutants_main(const MutantsOptions& options);

}  // namespace sp::fuzz
