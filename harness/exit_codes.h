// exit_codes.h — the documented exit codes of `scatterproof`.
//
// Precedence when several apply: usage (2) and backend unavailable (4) stop
// the run before any case runs; after a run, any unexpected result that is
// not a spec problem gives 1, otherwise spec problems give 3; an exception
// escaping the harness gives 5.
#pragma once

namespace sp::exit_code {

inline constexpr int kOk = 0;                  // every result as expected (pass, unsupported, xfail)
inline constexpr int kUnexpectedResults = 1;   // some fail, crash, timeout, error or xpass
inline constexpr int kUsage = 2;               // bad command line
inline constexpr int kBadSpecInput = 3;        // spec files failed to load or validate
inline constexpr int kBackendUnavailable = 4;  // a requested backend is unknown or unavailable
inline constexpr int kInternalError = 5;       // a bug in scatterproof itself
// `run` stopped by SIGINT or SIGTERM: 128 + the signal's number, as a shell
// reports a process killed by it (130, 143); what finished is written.
constexpr int interrupted(int signal_number) { return 128 + signal_number; }

// The text `scatterproof --help` prints.
inline constexpr const char* kHelpText =
    "Exit codes:\n"
    "  0  every result as expected (pass, unsupported, xfail)\n"
    "  1  unexpected results: some fail, crash, timeout, error or xpass\n"
    "  2  usage error\n"
    "  3  bad spec input (and no other unexpected result)\n"
    "  4  a requested backend is unknown or unavailable\n"
    "  5  internal error\n"
    "  130, 143  run interrupted by SIGINT / SIGTERM (the results so far are written, reports rebuilt)\n";

}  // namespace sp::exit_code
