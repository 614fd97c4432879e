// program_run.cc — program cases in the runner (program_run.h).
#include "harness/program_run.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <optional>

#include "harness/comparator.h"
#include "harness/run_judge.h"
#include "harness/runner.h"
#include "reference/versions.h"

namespace sp {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string rules_label(const std::string& dialect, const std::string& version) {
  if (!version.empty()) return dialect + " " + version;
  for (const ref::FrameworkBaseline& b : ref::framework_baselines())
    if (dialect == b.framework) return dialect + " " + b.version + " (baseline)";
  return dialect;
}

std::string error_list(const std::vector<ErrorCategory>& errors) {
  std::string s;
  for (ErrorCategory c : errors) s += (s.empty() ? "" : " | ") + std::string(error_name(c));
  return s;
}

// The reference's answers to one program, per framework version.
class ProgramAnswers {
 public:
  explicit ProgramAnswers(const Program& p) : program_(p) {}
  // The program as answered for `version`, and the reference's answer (null
  // with `why` when it threw).
  std::pair<const Program*, const Expectation*> at(const std::string& version, std::string& why) {
    auto it = answers_.find(version);
    if (it == answers_.end()) {
      Entry e{program_, std::nullopt, {}};
      e.program.framework_version = version;
      try {
        e.answer = evaluate_program(e.program);
      } catch (const std::exception& ex) {
        e.why = ex.what();
      }
      it = answers_.emplace(version, std::move(e)).first;
    }
    why = it->second.why;
    return {&it->second.program, it->second.answer ? &*it->second.answer : nullptr};
  }

 private:
  struct Entry {
    Program program;
    std::optional<Expectation> answer;
    std::string why;
  };
  const Program& program_;
  std::map<std::string, Entry> answers_;
};

// Why the case does not apply to `version` (its "versions" range), or nullopt.
std::optional<std::string> not_applicable(const Case& c, const std::string& dialect, const std::string& version) {
  if (c.versions.empty()) return std::nullopt;
  std::string why;
  const std::optional<ref::VersionRange> range = ref::parse_version_range(c.versions, &why);
  if (!range) throw std::invalid_argument(why);
  if (range->contains(ref::effective_version(dialect, version))) return std::nullopt;
  return "the case applies to " + dialect + " " + c.versions + "; this backend is answered for " +
         rules_label(dialect, version);
}

void judge_on(ResultRecord& r, Backend& backend, const Program& program, const Expectation& answer, const Case& c) {
  r.expected = answer.summary();
  r.clause = cited_clauses(answer);
  Outcome o;
  try {
    o = run_program(backend, program);
  } catch (const std::exception& e) {
    o = Outcome::harness_error(fmt::format("backend {} threw: {}", backend.name(), e.what()));
  }
  r.backend_version = backend.version();
  r.framework = backend.framework();
  r.device = backend.device();
  r.outcome = outcome_summary(o);
  Verdict v;
  try {
    v = judge_program(answer, o);
  } catch (const std::exception& e) {
    v = Verdict::error(fmt::format("judging failed: {}", e.what()));
  }
  r.verdict = v.kind;
  r.detail = std::move(v.detail);
  if (r.verdict == Verdict::Kind::Fail) r.picture = output_picture(answer, o);
  if (verdict_is_unexpected(r.verdict))
    r.explanation = program_explanation_lines(
        program, fmt::format("scatterproof explain {} {}", shell_quote(c.id), shell_quote(c.file)));
}

}  // namespace

Verdict judge_program(const Expectation& exp, const Outcome& out) {
  switch (out.kind) {
    case Outcome::Kind::Crash:
      return {Verdict::Kind::Crash, out.message};
    case Outcome::Kind::DeviceAssert:
      if (exp.unspecified) return Verdict::pass("unspecified program; a device kernel asserted: " + out.message);
      return {Verdict::Kind::DeviceAssert, "a device kernel asserted: " + out.message};
    case Outcome::Kind::Timeout:
      return {Verdict::Kind::Timeout, out.message};
    case Outcome::Kind::HarnessError:
      return Verdict::error(out.message);
    case Outcome::Kind::Unsupported:
      return {Verdict::Kind::Unsupported, out.message};
    case Outcome::Kind::Error: {
      if (!out.error) return {Verdict::Kind::Unclassified, "unclassified error: " + out.message};
      const std::string got(error_name(*out.error));
      if (exp.unspecified) return Verdict::pass("unspecified program; got error " + got);
      if (exp.allows_error(*out.error)) return Verdict::pass();
      if (exp.errors.empty()) return Verdict::fail(fmt::format("expected outputs, got error {}: {}", got, out.message));
      return Verdict::fail(fmt::format("expected error {} ({}), got {}: {}", error_list(exp.errors), exp.error_message,
                                       got, out.message));
    }
    case Outcome::Kind::Outputs:
      break;
  }
  if (exp.unspecified) return Verdict::pass("unspecified program; got outputs");
  if (!exp.outputs)
    return Verdict::fail(fmt::format("expected error {} ({}), got outputs", error_list(exp.errors), exp.error_message));
  if (out.outputs.size() != exp.outputs->size())
    return Verdict::fail(fmt::format("expected {} output(s), got {}", exp.outputs->size(), out.outputs.size()));
  for (size_t i = 0; i < out.outputs.size(); ++i)
    if (std::optional<std::string> bad = output_mismatch((*exp.outputs)[i], out.outputs[i])) return Verdict::fail(*bad);
  return Verdict::pass();
}

std::vector<std::string> program_explanation_lines(const Program& program, const std::string& explain_command) {
  int64_t elements = 0;
  for (const auto& [name, t] : program.inputs) elements += t.numel();
  if (elements > kMaxExplainedElements)
    return {fmt::format("(a program over {} input elements is not traced in the reports: `{}` prints every step)",
                        elements, explain_command)};
  std::vector<std::string> all;
  try {
    ProgramTrace trace;
    const Expectation e = evaluate_program(program, &trace);
    all = explain_program_lines(program, e, trace);
  } catch (const std::exception& ex) {
    return {fmt::format("(the reference could not explain this program: {})", ex.what())};
  }
  return bounded_explanation(std::move(all), explain_command);
}

void run_program_case(const Case& c, std::vector<std::unique_ptr<Backend>>& backends, const ProgramCaseHooks& hooks) {
  const Program& program = *c.program;
  const std::string dialect = program.dialect();
  ProgramAnswers answers(program);
  ResultRecord doc = hooks.record_for(c, "reference", "document");
  doc.outcome = "document: " + document_expectation_summary(c.expect);
  doc.rules_version = rules_label(dialect, program.framework_version);
  auto start = Clock::now();
  std::string why;
  const Expectation* own = answers.at(program.framework_version, why).second;
  if (own) {
    doc.expected = own->summary();
    doc.clause = cited_clauses(*own);
    const Verdict v = check_reference_against_document(c, *own);
    doc.verdict = v.kind;
    doc.detail = v.detail;
  } else {
    doc.verdict = Verdict::Kind::Error;
    doc.detail = "the reference threw: " + why;
  }
  doc.duration_ms = ms_since(start);
  hooks.emit(doc, {});
  // A deviation listed by clause names the op of the step it is about (compiled.json: "op": "torch.index_add*").
  std::vector<std::string> step_ops;
  for (const ProgramStep& s : program.steps)
    if (!is_view_op(s.op)) step_ops.push_back(s.op);
  for (std::unique_ptr<Backend>& backend : backends) {
    if (hooks.stopping()) return;
    ResultRecord r = hooks.record_for(c, backend->name(), "differential");
    start = Clock::now();
    const std::string version = hooks.version_for(dialect, program.framework_version, *backend);
    r.rules_version = rules_label(dialect, version);
    const auto [run, answer] = answers.at(version, why);
    std::optional<std::string> skip;
    std::string missing;  // the first step op the backend does not implement
    for (const ProgramStep& s : program.steps)
      if (missing.empty() && !is_view_op(s.op) && !backend->implements(s.op)) missing = s.op;
    if (!missing.empty()) {
      r.verdict = Verdict::Kind::NotApplicable;
      r.detail = fmt::format("backend {} does not implement {}, a step of this program; nothing was run",
                             backend->name(), missing);
    } else if (!answer) {
      r.verdict = Verdict::Kind::Error;
      r.detail = "not judged: the reference threw: " + why;
    } else if ((skip = not_applicable(c, dialect, version))) {
      r.verdict = Verdict::Kind::NotApplicable;
      r.detail = *skip;
    } else {
      judge_on(r, *backend, *run, *answer, c);
    }
    r.duration_ms = ms_since(start);
    hooks.emit(std::move(r), step_ops);
  }
}

}  // namespace sp
