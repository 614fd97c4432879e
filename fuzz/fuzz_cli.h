// fuzz_cli.h — the `fuzz`, `repro` and `mutants` subcommands of
// `scatterproof`, as functions cli/main.cc wires to CLI11 options.
//
//   scatterproof fuzz --backend NAME [--seconds N] [--seed S] [--out DIR] [--max-cases N]
//       generate cases, run the reference and the backend, judge; on the
//       first disagreement shrink it, write DIR/repro-NAME-HASH.json and
//       print the command that replays it. Exit 0: none found in the time;
//       1: a finding (repro written); 4: backend unavailable; 5: internal.
//   scatterproof repro FILE [--backend NAME]...
//       replay a spec file (a repro) on every built-in backend (plus any
//       named), print the verdicts, the first difference and the
//       reference's explanation. Exit 0 all pass, 1 some finding, 3 bad file.
//   scatterproof mutants [--seconds-per-mutant N] [--json FILE] [--seed S] [--specs PATH]...
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
  int threads = 1;                        // backend threads; the generated tensors are small
  std::vector<std::string> ops;           // op id globs; empty: every op
  std::vector<std::string> expectations;  // files whose clause-keyed entries are known deviations
  double timeout_s = 0;                   // BackendOptions::timeout_s (--timeout)
};
int fuzz_main(const FuzzOptions& options);

struct ReproOptions {
  std::string file;
  std::vector<std::string> backends;  // in addition to every built-in backend
  double timeout_s = 0;               // BackendOptions::timeout_s (--timeout)
};
int repro_main(const ReproOptions& options);

struct MutantsOptions {
  double seconds_per_mutant = 10.0;
  std::string json_file;  // empty: no JSON
  uint64_t seed = 1;
  std::vector<std::string> spec_paths;  // empty: the source tree's specs/
  std::vector<std::string> only;        // mutant names; empty: all
};
int mutants_main(const MutantsOptions& options);

}  // namespace sp::fuzz
