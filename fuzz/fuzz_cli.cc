#include "fuzz/fuzz_cli.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "backends/common/resource_paths.h"
#include "backends/mutant/mutant.h"
#include "fuzz/engine.h"
#include "fuzz/findings.h"
#include "fuzz/history.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/program_run.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

// A spec case on `backend`: a program whole or op by op (harness/program_run.h),
// else its one call; a framework backend is judged by its own version's rules.
Trial judge_spec_case(Backend& backend, const Case& c) {
  if (!c.is_program()) return judge_call(backend, c.call);
  Trial t;
  t.call = c.call;
  Program p = *c.program;
  if (const std::optional<FrameworkVersion> own = backend.framework(); own && own->name == p.dialect())
    p.framework_version = own->version;
  try {
    t.expectation = evaluate_program(p);
    t.outcome = run_program(backend, p);
  } catch (const std::exception& e) {
    t.verdict = Verdict::error(std::string("the program could not be judged: ") + e.what());
    return t;
  }
  t.verdict = judge_program(t.expectation, t.outcome);
  return t;
}

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

std::unique_ptr<Backend> open_backend(const std::string& name, int threads, double timeout_s = 0) {
  std::string why;
  BackendOptions opts;
  opts.threads = threads;
  opts.timeout_s = timeout_s;
  auto b = make_backend(name, opts, &why);
  if (!b) std::cerr << "scatterproof: " << why << "\n";
  return b;
}

std::string rate_line(const FuzzStats& s) {
  const double rate = s.seconds > 0 ? static_cast<double>(s.cases) / s.seconds : 0.0;
  return fmt::format("{} cases in {:.1f} s ({:.0f} exec/s), {:.1f}% invalid, {} unsupported, {} known deviations",
                     s.cases, s.seconds, rate,
                     s.cases ? 100.0 * static_cast<double>(s.invalid) / static_cast<double>(s.cases) : 0.0,
                     s.unsupported, s.known);
}

// How this program was started, for replay commands: its absolute path
// where the system tells it, else "scatterproof" (on PATH).
std::string self_program() {
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  // Rebuilt while it ran: the kernel marks the old file " (deleted)".
  const std::string deleted = " (deleted)";
  if (exe.size() > deleted.size() && exe.compare(exe.size() - deleted.size(), deleted.size(), deleted) == 0)
    exe.resize(exe.size() - deleted.size());
  return ec || exe.empty() ? std::string("scatterproof") : exe;
}

// The campaign's --op globs and --expectations into `scope`; the exit code
// (after saying why) when one is wrong.
std::optional<int> select_scope(const FuzzOptions& options, FuzzScope& scope) {
  for (const std::string& glob : options.ops) {
    bool any = false;
    for (const OpSpec& op : op_table())
      if (fnmatch(glob.c_str(), op.id.c_str(), 0) == 0) {
        if (std::find(scope.ops.begin(), scope.ops.end(), &op) == scope.ops.end()) scope.ops.push_back(&op);
        any = true;
      }
    if (!any) {
      std::cerr << "scatterproof: --op " << glob << " matches no op of the table (scatterproof ops lists them)\n";
      return exit_code::kUsage;
    }
  }
  try {
    // Every entry, matched as `run --expectations` would match it
    // (known_deviation, engine.h).
    scope.known = load_expectation_files(options.expectations);
  } catch (const SpecError& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return exit_code::kBadSpecInput;
  }
  return std::nullopt;
}

// The history replay of one bucket (fuzz/history.h), each try in a fresh
// backend; prints what it found and, where earlier cases are needed, writes
// their sequence. False when the file cannot be written.
bool history_replay(const FuzzOptions& options, const FuzzScope& scope, uint64_t seed, const Bucket& b,
                    const std::string& out_dir, const std::string& program, FindingRecord& rec) {
  const BackendFactory fresh = [&] { return open_backend(options.backend, options.threads, options.timeout_s); };
  const HistoryRepro h = reproduce_with_history(fresh, scope, seed, b, to_ms(options.history_seconds));
  rec.history = h.summary();
  std::cout << "    history: " << rec.history << "\n";
  if (h.kind != HistoryRepro::Kind::AfterHistory) return true;
  try {
    rec.history_file = write_history_repro(scope, seed, b, h, scope.framework, out_dir);
  } catch (const std::exception& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return false;
  }
  rec.history_replay = replay_command(program, rec.history_file, options.backend, options.timeout_s);
  std::cout << "    replay with its history: " << rec.history_replay << "\n";
  return true;
}

}  // namespace

int fuzz_main(const FuzzOptions& options) {
  FuzzScope scope;
  scope.backend_name = options.backend;
  scope.programs = options.programs;
  if (const std::optional<int> bad = select_scope(options, scope)) return *bad;
  auto backend = open_backend(options.backend, options.threads, options.timeout_s);
  if (!backend) return exit_code::kBackendUnavailable;
  scope.framework = backend->framework();
  scope.device = backend->device();
  const uint64_t seed =
      options.seed ? options.seed : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::cout << "fuzzing backend " << options.backend << " for " << options.seconds << " s, seed " << seed
            << (options.max_findings ? fmt::format(", up to {} distinct findings", options.max_findings) : "") << "\n";
  const bool tty = isatty(fileno(stderr));
  CampaignLimits limits;
  limits.seed = seed;
  limits.duration = to_ms(options.seconds);
  limits.max_cases = options.max_cases;
  limits.max_findings = options.max_findings;
  limits.history = options.history;
  const CampaignResult r = fuzz_campaign(*backend, limits, scope, [&](const FuzzStats& s, size_t buckets) {
    if (tty) std::cerr << "\r[fuzz] " << rate_line(s) << ", " << buckets << " distinct findings   " << std::flush;
  });
  if (tty) std::cerr << "\n";
  std::cout << rate_line(r.stats) << "\n";
  for (const auto& [entry, n] : r.known_by_entry) std::cout << "  known deviation x" << n << ": " << entry << "\n";
  CampaignSummary summary;
  summary.backend = options.backend;
  summary.seed = seed;
  summary.stats = r.stats;
  summary.findings = r.findings;
  summary.known_by_entry = r.known_by_entry;
  summary.stopped_at_max_findings = r.stopped_at_max_findings;
  if (r.buckets.empty()) {
    std::cout << "no disagreement found\n";
  } else {
    std::cout << fmt::format("{} finding(s) in {} distinct bucket(s){}; shrinking each (up to {} s)...\n", r.findings,
                             r.buckets.size(), r.stopped_at_max_findings ? " (stopped at --max-findings)" : "",
                             options.shrink_seconds);
  }
  const std::string program = self_program();
  std::string out_dir = options.out_dir;
  try {
    out_dir = std::filesystem::absolute(out_dir).lexically_normal().string();
  } catch (const std::exception&) {
  }
  for (size_t i = 0; i < r.buckets.size(); ++i) {
    const Bucket& b = r.buckets[i];
    ShrinkLimits shrink_limits;
    shrink_limits.max_time = to_ms(options.shrink_seconds);
    const Shrunk s = shrink_finding(*backend, b.first, shrink_limits, scope);
    FindingRecord rec;
    rec.bucket = b;
    rec.shrunk = s.trial;
    rec.shrunk_from = b.first.choices.size();
    try {
      rec.repro_file = write_repro(repro_case(s.trial, options.backend), options.backend, out_dir);
    } catch (const std::exception& e) {
      std::cerr << "scatterproof: " << e.what() << "\n";
      return exit_code::kInternalError;
    }
    rec.replay = replay_command(program, rec.repro_file, options.backend, options.timeout_s);
    std::cout << fmt::format("[{}] {}\n    hits {}; shrunk {} -> {} choices: {}\n    {}\n    replay: {}\n", i + 1,
                             b.signature.key(), b.hits, rec.shrunk_from, s.trial.choices.size(),
                             s.trial.call.describe(), s.trial.verdict.detail, rec.replay);
    if (options.history > 0 && !history_replay(options, scope, seed, b, out_dir, program, rec))
      return exit_code::kInternalError;
    summary.records.push_back(std::move(rec));
  }
  try {
    const std::vector<std::string> written = write_findings(summary, out_dir);
    std::cout << "summary: " << written[0] << ", " << written[1] << "\n";
  } catch (const std::exception& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return exit_code::kInternalError;
  }
  return r.buckets.empty() ? exit_code::kOk : exit_code::kUnexpectedResults;
}

std::vector<std::string> repro_backend_names(const ReproOptions& options) {
  std::vector<std::string> names = {"reference"};
  const std::vector<std::string> asked = options.backends.empty() ? std::vector<std::string>{"cpu"} : options.backends;
  for (const std::string& n : asked)
    if (!n.empty() && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

int repro_main(const ReproOptions& options) {
  std::vector<Case> cases;
  try {
    cases = load_spec_file(options.file);
  } catch (const SpecError& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return exit_code::kBadSpecInput;
  }
  // Each backend is started once, and only the ones asked for.
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> backends;
  bool unavailable = false;
  for (const std::string& name : repro_backend_names(options)) {
    std::string why;
    BackendOptions opts;
    opts.timeout_s = options.timeout_s;
    auto backend = make_backend(name, opts, &why);
    if (!backend) {
      std::cout << fmt::format("  {:<28} unavailable ({})\n", name, why);
      unavailable = true;
      continue;
    }
    backends.emplace_back(name, std::move(backend));
  }
  bool any_finding = false;
  for (const Case& c : cases) {
    Trace trace;
    ProgramTrace program_trace;
    const Expectation exp = c.is_program() ? evaluate_program(*c.program, &program_trace) : evaluate(c.call, &trace);
    std::cout << "case " << c.id << ": " << (c.is_program() ? "a program" : c.call.describe())
              << "\n  reference: " << exp.summary() << "\n";
    std::string first_difference;
    for (auto& [name, backend] : backends) {
      const Trial t = judge_spec_case(*backend, c);
      std::cout << fmt::format("  {:<28} {:<12} {}\n", name, verdict_name(t.verdict.kind), outcome_summary(t.outcome));
      if (is_finding(t.verdict.kind)) {
        any_finding = true;
        if (first_difference.empty()) first_difference = name + ": " + t.verdict.detail;
      }
    }
    if (!first_difference.empty()) std::cout << "first difference: " << first_difference << "\n";
    std::cout << "explanation (reference):\n";
    for (const auto& line :
         c.is_program() ? explain_program_lines(*c.program, exp, program_trace) : explain_lines(c.call, exp, trace))
      std::cout << "  " << line << "\n";
  }
  if (any_finding) return exit_code::kUnexpectedResults;
  return unavailable ? exit_code::kBackendUnavailable : exit_code::kOk;
}

int mutants_main(const MutantsOptions& options) {
  // Default: the installed share/scatterproof/specs, else the source tree's.
  const std::filesystem::path suite = resources::find("specs");
  const std::vector<std::string> paths =
      options.spec_paths.empty() ? std::vector<std::string>{suite.empty() ? std::string("specs") : suite.string()}
                                 : options.spec_paths;
  LoadedSpecs specs = load_specs(paths);
  // A huge case the loader did not build (no --allow-huge here) has no call to run.
  std::erase_if(specs.cases, [](const Case& c) { return !c.not_run.empty(); });
  std::cout << fmt::format("{} spec cases ({} spec errors) from {}\n", specs.cases.size(), specs.errors.size(),
                           fmt::join(paths, ", "));
  size_t width = 6;
  for (const mutant::MutantInfo& m : mutant::mutant_catalog()) width = std::max(width, m.name.size());
  std::cout << fmt::format("{:<{}} {:<28} {:>10} {:>12} {:>9}\n", "mutant", width, "killed by specs (first case)",
                           "by fuzzing", "time-to-kill", "cases");
  nlohmann::json report = nlohmann::json::array();
  bool all_killed = true;
  // A mutant is killed by a case where it disagrees with the reference and
  // the unmutated cpu backend does not.
  auto baseline = open_backend("cpu", 1);
  if (!baseline) return exit_code::kBackendUnavailable;
  for (const mutant::MutantInfo& m : mutant::mutant_catalog()) {
    if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), m.name) == options.only.end())
      continue;
    auto backend = open_backend("mutant:" + m.name, 1);
    if (!backend) return exit_code::kBackendUnavailable;
    std::string spec_killer;
    for (const Case& c : specs.cases) {
      if (is_finding(judge_spec_case(*backend, c).verdict.kind) &&
          !is_finding(judge_spec_case(*baseline, c).verdict.kind)) {
        spec_killer = c.id;
        break;
      }
    }
    FuzzLimits limits;
    limits.seed = options.seed;
    limits.duration = to_ms(options.seconds_per_mutant);
    limits.max_cases = options.cases_per_mutant;
    const FuzzResult r = fuzz_backend(*backend, limits, {}, baseline.get());
    all_killed &= r.finding.has_value();
    std::cout << fmt::format("{:<{}} {:<28} {:>10} {:>11.3f}s {:>9}\n", m.name, width,
                             spec_killer.empty() ? "no" : spec_killer.substr(0, 28), r.finding ? "yes" : "NO",
                             r.stats.seconds, r.stats.cases)
              << std::flush;
    nlohmann::json j = {{"mutant", m.name},
                        {"bug", m.bug},
                        {"killed_by_specs", !spec_killer.empty()},
                        {"spec_case", spec_killer},
                        {"killed_by_fuzzing", r.finding.has_value()},
                        {"fuzz_seconds", r.stats.seconds},
                        {"fuzz_cases", r.stats.cases}};
    if (r.finding) j["fuzz_verdict"] = std::string(verdict_name(r.finding->verdict.kind));
    report.push_back(std::move(j));
  }
  if (!options.json_file.empty()) {
    std::ofstream out(options.json_file);
    out << report.dump(2) << "\n";
    if (!out) {
      std::cerr << "scatterproof: cannot write " << options.json_file << "\n";
      return exit_code::kInternalError;
    }
  }
  return all_killed ? exit_code::kOk : exit_code::kUnexpectedResults;
}

}  // namespace sp::fuzz
