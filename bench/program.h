// program.h — runs a program with a deadline and collects what it wrote
// (the bench's out-of-process worker, bench.cc): killed at the deadline,
// always reaped.
//
// Thread-safety: stateless; one call per program run.
#pragma once

#include <string>
#include <vector>

namespace sp::bench {

// What a program run by run_program did.
struct ProgramResult {
  std::string start_error;  // non-empty: it did not start
  bool timed_out = false;   // killed at the deadline
  int status = 0;           // waitpid status
  std::string out, err;     // err: its last 64 KiB
};

// How it ended, in words: did not start, killed at the deadline, by a signal, or its exit code.
std::string describe_exit(const ProgramResult& r, double timeout_s);
// Runs argv (environment inherited, as the libtorch-current backend's
// scatterproof-serve gets it; the wheel's libraries are found through the
// build's RPATH), stdin from /dev/null, collecting stdout and stderr until
// it exits or `timeout_s` passes; then it is killed. Always reaped.
ProgramResult run_program(const std::vector<std::string>& args, double timeout_s);

}  // namespace sp::bench
