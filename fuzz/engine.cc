#include "fuzz/engine.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "fuzz/case_gen.h"
#include "fuzz/findings.h"
#include "fuzz/program_gen.h"
#include "harness/program_run.h"
#include "harness/run_judge.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {

bool is_finding(Verdict::Kind k) {
  return k == Verdict::Kind::Fail || k == Verdict::Kind::Crash || k == Verdict::Kind::Timeout ||
         k == Verdict::Kind::Error || k == Verdict::Kind::Unclassified || k == Verdict::Kind::DeviceAssert;
}

bool lost_process(Verdict::Kind k) {
  return k == Verdict::Kind::Crash || k == Verdict::Kind::Timeout || k == Verdict::Kind::DeviceAssert;
}

Trial judge_call(Backend& backend, const OpCall& generated) {
  // A framework backend is judged by its own version's rules.
  OpCall call = generated;
  if (const std::optional<FrameworkVersion> own = backend.framework(); own && own->name == op_spec(call).dialect)
    call.framework_version = own->version;
  Trial t;
  t.call = call;
  try {
    t.expectation = evaluate(call);
  } catch (const std::exception& e) {
    t.verdict = Verdict::error(std::string("the reference threw on a generated call: ") + e.what());
    return t;
  }
  Judged j = run_and_judge(backend, call, t.expectation);
  t.outcome = std::move(j.outcome);
  t.verdict = std::move(j.verdict);
  return t;
}

Trial judge_program_trial(Backend& backend, std::shared_ptr<const Program> program) {
  Program p = *program;
  if (const std::optional<FrameworkVersion> own = backend.framework(); own && own->name == p.dialect())
    p.framework_version = own->version;
  Trial t;
  t.call.op = std::string(kProgramOp);
  t.call.tensors = p.inputs;
  t.call.framework_version = p.framework_version;
  t.program = std::make_shared<const Program>(p);
  try {
    t.expectation = evaluate_program(p);
  } catch (const std::exception& e) {
    t.verdict = Verdict::error(std::string("the reference threw on a generated program: ") + e.what());
    return t;
  }
  try {
    t.outcome = run_program(backend, p);
  } catch (const std::exception& e) {
    t.outcome = Outcome::harness_error(fmt::format("backend {} threw: {}", backend.name(), e.what()));
  }
  t.verdict = judge_program(t.expectation, t.outcome);
  return t;
}

namespace {

// The case of `choices`, judged: a program or a single call, as `scope` says.
Trial generated_trial(Backend& backend, Choices& choices, const FuzzScope& scope) {
  if (scope.programs) return judge_program_trial(backend, std::make_shared<const Program>(generate_program(choices)));
  return judge_call(backend, generate_call(choices, scope.ops));
}

}  // namespace

const ExpectationEntry* known_deviation(const FuzzScope& scope, const Trial& t) {
  if (scope.known.empty() || !is_finding(t.verdict.kind)) return nullptr;
  // A generated case's id is the one its repro would carry (what `run
  // --expectations` sees when it replays the repro file); computed only
  // where an entry names a case.
  std::string case_id;
  for (const ExpectationEntry& e : scope.known)
    if (!e.case_pattern.empty()) {
      case_id = repro_case(t, scope.backend_name).id;
      break;
    }
  // The clauses the reference cites, and the one a NaN-bits failure broke
  // (failure_clause: C-3, C-4), which no expectation cites.
  std::string clauses = cited_clauses(t.expectation);
  if (const std::string broken = failure_clause(t); !broken.empty()) clauses += (clauses.empty() ? "" : " ") + broken;
  // A program's finding may be listed under the op of any of its steps.
  std::vector<std::string> ops;
  if (t.program)
    for (const ProgramStep& s : t.program->steps) ops.push_back(s.op);
  if (ops.empty()) ops.push_back(t.call.op);
  for (const std::string& op : ops)
    if (const ExpectationEntry* e = find_expectation(scope.known, case_id, scope.backend_name, op, clauses,
                                                     scope.framework, scope.device, t.verdict.kind))
      return e;
  return nullptr;
}

Trial replay_trial(Backend& backend, const std::vector<uint32_t>& choices, const FuzzScope& scope) {
  Choices c = Choices::replay(choices);
  Trial t = generated_trial(backend, c, scope);
  t.choices = c.consumed();
  return t;
}

bool is_new_finding(const Trial& t, Backend* baseline) {
  if (!is_finding(t.verdict.kind)) return false;
  if (!baseline) return true;
  return !is_finding(
      (t.program ? judge_program_trial(*baseline, t.program) : judge_call(*baseline, t.call)).verdict.kind);
}

namespace {

uint64_t case_seed(uint64_t seed, uint64_t i) { return seed * 0x9e3779b97f4a7c15ull + i; }

}  // namespace

OpCall case_call(const FuzzScope& scope, uint64_t seed, uint64_t i, const std::optional<FrameworkVersion>& framework) {
  Choices choices(case_seed(seed, i));
  OpCall call = generate_call(choices, scope.ops);
  if (framework && framework->name == op_spec(call).dialect) call.framework_version = framework->version;
  return call;
}

Trial run_case(Backend& backend, const FuzzScope& scope, uint64_t seed, uint64_t i, FuzzStats& stats) {
  Choices choices(case_seed(seed, i));
  Trial t = generated_trial(backend, choices, scope);
  ++stats.cases;
  if (t.expectation.expects_error()) ++stats.invalid;
  if (t.verdict.kind == Verdict::Kind::Unsupported) ++stats.unsupported;
  if (is_finding(t.verdict.kind)) t.choices = choices.consumed();  // a finding is replayed and shrunk from them
  return t;
}

FuzzResult fuzz_backend(Backend& backend, const FuzzLimits& limits,
                        const std::function<void(const FuzzStats&)>& progress, Backend* baseline,
                        const FuzzScope& scope) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last_progress = start;
  FuzzResult result;
  for (uint64_t i = 0;; ++i) {
    const auto now = clock::now();
    result.stats.seconds = std::chrono::duration<double>(now - start).count();
    if (now - start >= limits.duration || (limits.max_cases && i >= limits.max_cases)) break;
    if (progress && now - last_progress >= std::chrono::milliseconds(200)) {
      progress(result.stats);
      last_progress = now;
    }
    Trial t = run_case(backend, scope, limits.seed, i, result.stats);
    if (known_deviation(scope, t)) {
      ++result.stats.known;
      continue;
    }
    if (is_new_finding(t, baseline)) {
      result.finding = std::move(t);
      break;
    }
  }
  result.stats.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

Shrunk shrink_finding(Backend& backend, const Trial& finding, const ShrinkLimits& limits, const FuzzScope& scope) {
  // A step is kept only when the candidate fails with the same signature
  // (findings.h): same op, verdict kind, expected and actual categories and
  // clause, so shrinking never slips to a different failure.
  const std::string key = signature_of(finding).key();
  const StillFails still_fails = [&](const std::vector<uint32_t>& candidate) -> std::optional<std::vector<uint32_t>> {
    Trial t = replay_trial(backend, candidate, scope);
    if (!is_finding(t.verdict.kind) || signature_of(t).key() != key || known_deviation(scope, t)) return std::nullopt;
    return t.choices;
  };
  Shrunk s;
  s.shrink = shrink(finding.choices, still_fails, limits);
  s.trial = replay_trial(backend, s.shrink.choices, scope);
  s.trial.choices = s.shrink.choices;  // the replay's zeros past the end are implied
  // A backend that answers differently on a replay (a flaky crash, a
  // timeout): keep the finding as it was found rather than another failure.
  if (signature_of(s.trial).key() != key) {
    s.trial = finding;
    s.shrink.choices = finding.choices;
  }
  return s;
}

namespace {

std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '-';
  return out;
}

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

size_t loose_elements(const Expectation& e) {
  size_t n = 0;
  if (e.outputs)
    for (const auto& o : *e.outputs) n += o.loose.size();
  return n;
}

}  // namespace

namespace {

// A repro's strings must load again: the loader refuses any JSON string
// longer than kMaxJsonStringChars (a backend's message or an outcome can be
// longer). Cut at a UTF-8 character boundary, saying how much was left out.
std::string fit_spec_string(std::string s) {
  if (s.size() <= kMaxJsonStringChars) return s;
  const size_t total = s.size();
  size_t cut = kMaxJsonStringChars - 64;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + fmt::format(" ...({} of {} bytes left out)", total - cut, total);
}

}  // namespace

Case repro_case(const Trial& trial, const std::string& backend_name) {
  Case c;
  c.file = "<fuzz>";
  c.call = trial.call;
  c.program = trial.program;
  c.source.document = "scatterproof fuzz";
  c.source.kind = "fuzz";
  c.source.doc_version = trial.call.framework_version;
  const Expectation& e = trial.expectation;
  std::string example = "found by fuzzing backend " + backend_name + ": " + trial.verdict.detail;
  if (e.unspecified) {
    c.expect.kind = CaseExpect::Kind::Unspecified;
    c.expect.text = fit_spec_string(e.unspecified_reason);
  } else if (e.expects_error()) {
    c.expect.kind = CaseExpect::Kind::Error;
    c.expect.error = e.errors.front();
    c.expect.text = fit_spec_string(e.error_message);
  } else if (e.outputs && !e.outputs->empty()) {
    c.expect.kind = CaseExpect::Kind::Output;
    c.expect.outputs = {e.outputs->front().exact};
    const OpSpec* op = find_op(trial.call);
    if (trial.program || (op && !op->backward_of.empty())) {  // every output by name (grads; a program's tensors)
      c.expect.outputs.clear();
      for (const ExpectedTensor& g : *e.outputs) {
        c.expect.outputs.push_back(g.exact);
        c.expect.output_names.push_back(g.name);
      }
    }
    if (const size_t loose = loose_elements(e))
      example += fmt::format(
          " (the reference allows a set or interval at {} element(s); the output written is its "
          "representative, the reference's own visit order)",
          loose);
  }
  c.source.example = fit_spec_string(std::move(example));
  c.tags = {"fuzz", "regression"};
  c.id = "regression/fuzz-pending";
  const uint64_t h = fnv1a(case_to_json(c).dump());
  c.id = fmt::format("regression/fuzz-{}-{:012x}", file_safe(backend_name), h & 0xffffffffffffull);
  return c;
}

std::string write_repro(const Case& c, const std::string& backend_name, const std::string& dir) {
  return write_repro_cases({c}, backend_name, dir, "", "shrunk fuzz finding on backend " + backend_name);
}

std::string write_repro_cases(const std::vector<Case>& cases, const std::string& backend_name, const std::string& dir,
                              const std::string& suffix, const std::string& description) {
  std::filesystem::create_directories(dir);
  const std::string& id = cases.back().id;
  const std::string hash = id.substr(id.rfind('-') + 1);
  const std::string path =
      (std::filesystem::path(dir) / ("repro-" + file_safe(backend_name) + "-" + hash + suffix + ".json")).string();
  std::ofstream out(path);
  out << spec_file_json(cases, description).dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

}  // namespace sp::fuzz
