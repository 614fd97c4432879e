// run_judge.cc — run a backend on a deep copy and judge it (run_judge.h).
#include "harness/run_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
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

namespace {

// The same elements, bit for bit (shapes and dtypes equal): one comparison
// of the bytes where both are contiguous, else element by element.
bool same_elements(const Tensor& a, const Tensor& b) {
  if (a.is_contiguous() && b.is_contiguous()) {
    const size_t bytes = static_cast<size_t>(a.numel()) * dtype_size(a.dtype());
    return bytes == 0 || std::memcmp(a.element_ptr(a.offset()), b.element_ptr(b.offset()), bytes) == 0;
  }
  return a.to_bits() == b.to_bits();
}

}  // namespace

// Where two expectations of the same call under different layouts differ;
// nullopt when they allow exactly the same outcomes.
std::optional<std::string> expectation_difference(const Expectation& a, const Expectation& b) {
  if (a.unspecified != b.unspecified) return "unspecified on one layout only";
  if (a.errors != b.errors) return fmt::format("errors {} vs {}", a.summary(), b.summary());
  if (a.outputs.has_value() != b.outputs.has_value() || (a.outputs && a.outputs->size() != b.outputs->size()))
    return fmt::format("{} vs {}", a.summary(), b.summary());
  if (!a.outputs) return std::nullopt;
  for (size_t i = 0; i < a.outputs->size(); ++i) {
    const ExpectedTensor& x = (*a.outputs)[i];
    const ExpectedTensor& y = (*b.outputs)[i];
    if (x.exact.shape() != y.exact.shape() || x.exact.dtype() != y.exact.dtype())
      return "output shape or dtype differs";
    if (!same_elements(x.exact, y.exact)) return "output " + x.name + " differs";
    if (x.loose.size() != y.loose.size()) return "output " + x.name + " has different loose elements";
    for (const auto& [linear, allowed] : x.loose) {
      auto it = y.loose.find(linear);
      if (it == y.loose.end() || it->second.describe(x.exact.dtype()) != allowed.describe(x.exact.dtype()))
        return fmt::format("output {} element {} allows differently", x.name, linear);
    }
  }
  return std::nullopt;
}

}  // namespace sp
