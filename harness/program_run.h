// program_run.h — program cases (reference/program.h) in the runner: the
// reference's answer and its document check, then every backend, the
// program run whole or op by op (backends/backend.h run_program) and judged
// against the reference's answer for the version the backend is answered
// for.
//
// Thread-safety: as the runner's (one thread per backend set).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/case.h"
#include "harness/result_record.h"
#include "harness/verdict.h"

namespace sp {

// What the runner lends the program path: its record maker, its sink, the
// version a backend is answered for, and whether to stop.
struct ProgramCaseHooks {
  std::function<ResultRecord(const Case&, const std::string& backend, const std::string& check)> record_for;
  // Records a result; an expectation entry may name any of `ops` (the program's step ops).
  std::function<void(ResultRecord, std::vector<std::string> ops)> emit;
  // (dialect, the case's own version, backend) -> the version the backend is answered for
  std::function<std::string(const std::string&, const std::string&, const Backend&)> version_for;
  std::function<bool()> stopping;
};

// Records the document check and one differential result per backend.
void run_program_case(const Case& c, std::vector<std::unique_ptr<Backend>>& backends, const ProgramCaseHooks& hooks);

// A backend's answer to a whole program against the reference's: as judge()
// (comparator.h) for one call, without the storage guards (the program's
// tensors are the harness's own, and what a step writes into them is part
// of what is compared).
Verdict judge_program(const Expectation& exp, const Outcome& out);

// The program's `explain` for the reports, bounded as explanation_lines.
std::vector<std::string> program_explanation_lines(const Program& program, const std::string& explain_command);

}  // namespace sp
