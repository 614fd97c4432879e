// run_judge.cc — run a backend on a deep copy and judge it (run_judge.h).
#include "harness/run_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <vector>

#include "harness/comparator.h"

namespace sp {

std::string cited_clauses(const Expectation& e) {
  std::vector<std::string> ids;
  if (!e.unspecified && !e.error_clause.empty()) ids.push_back(e.error_clause);
  for (const Note& note : e.notes)
    if (!note.clause.empty() && std::find(ids.begin(), ids.end(), note.clause) == ids.end()) ids.push_back(note.clause);
  std::string joined;
  for (const std::string& id : ids) joined += (joined.empty() ? "" : " ") + id;
  return joined;
}

Judged run_and_judge(Backend& backend, const OpCall& call, const Expectation& expectation) {
  const OpCall before = call.deep_copy();
  const OpCall given = call.deep_copy();
  Judged j;
  try {
    j.outcome = run_backend(backend, given);
  } catch (const std::exception& e) {
    j.outcome = Outcome::harness_error(fmt::format("backend {} threw: {}", backend.name(), e.what()));
  } catch (...) {
    j.outcome = Outcome::harness_error(fmt::format("backend {} threw a non-standard exception", backend.name()));
  }
  try {
    j.verdict = judge(before, expectation, j.outcome, given, backend.device());
  } catch (const std::exception& e) {
    j.verdict = Verdict::error(fmt::format("judging failed: {}", e.what()));
  }
  return j;
}

std::string outcome_summary(const Outcome& o) {
  switch (o.kind) {
    case Outcome::Kind::Outputs: {
      std::string s = "outputs";
      for (const Tensor& t : o.outputs) s += " " + render_tensor_values(t, 16);
      return s;
    }
    case Outcome::Kind::Error:
      return fmt::format("error {}: {}", o.error ? error_name(*o.error) : std::string_view("(no category)"), o.message);
    default:
      return fmt::format("{}: {}", outcome_kind_name(o.kind), o.message);
  }
}

}  // namespace sp
