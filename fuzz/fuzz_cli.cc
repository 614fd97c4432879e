#include "fuzz/fuzz_cli.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backends/mutant/mutant.h"
#include "fuzz/engine.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

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

bool is_builtin_name(const std::string& name) {
  for (const auto& info : registered_backends())
    if (info.name == name) return true;
  return false;
}

}  // namespace

int fuzz_main(const FuzzOptions& options) {
  FuzzScope scope;
  scope.backend_name = options.backend;
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
    for (ExpectationEntry& e : load_expectation_files(options.expectations))
      if (!e.clause_pattern.empty() && e.case_pattern.empty()) scope.known.push_back(std::move(e));
  } catch (const SpecError& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return exit_code::kBadSpecInput;
  }
  auto backend = open_backend(options.backend, options.threads, options.timeout_s);
  if (!backend) return exit_code::kBackendUnavailable;
  scope.framework = backend->framework();
  const uint64_t seed =
      options.seed ? options.seed : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::cout << "fuzzing backend " << options.backend << " for " << options.seconds << " s, seed " << seed << "\n";
  const bool tty = isatty(fileno(stderr));
  FuzzLimits limits;
  limits.seed = seed;
  limits.duration = to_ms(options.seconds);
  limits.max_cases = options.max_cases;
  const FuzzResult r = fuzz_backend(
      *backend, limits,
      [&](const FuzzStats& s) {
        if (tty) std::cerr << "\r[fuzz] " << rate_line(s) << "   " << std::flush;
      },
      nullptr, scope);
  if (tty) std::cerr << "\n";
  std::cout << rate_line(r.stats) << "\n";
  if (!r.finding) {
    std::cout << "no disagreement found\n";
    return exit_code::kOk;
  }
  std::cout << verdict_name(r.finding->verdict.kind) << ": " << r.finding->call.describe() << "\n  "
            << r.finding->verdict.detail << "\nshrinking " << r.finding->choices.size() << " choices...\n";
  const Shrunk s = shrink_finding(*backend, *r.finding, {}, scope);
  std::cout << fmt::format("shrunk to {} choices in {} attempts: {}\n  {}\n", s.shrink.choices.size(),
                           s.shrink.attempts, s.trial.call.describe(), s.trial.verdict.detail);
  const Case c = repro_case(s.trial, options.backend);
  const std::string path = write_repro(c, options.backend, options.out_dir);
  std::cout << "wrote " << path << "\nreplay with:\n  scatterproof repro " << path
            << (is_builtin_name(options.backend) ? "" : " --backend " + options.backend) << "\n";
  return exit_code::kUnexpectedResults;
}

int repro_main(const ReproOptions& options) {
  std::vector<Case> cases;
  try {
    cases = load_spec_file(options.file);
  } catch (const SpecError& e) {
    std::cerr << "scatterproof: " << e.what() << "\n";
    return exit_code::kBadSpecInput;
  }
  std::vector<std::string> names;
  for (const auto& info : registered_backends())
    if (info.name.back() != ':') names.push_back(info.name);  // prefixes are families, not backends
  for (const auto& n : options.backends)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  bool any_finding = false;
  for (const Case& c : cases) {
    Trace trace;
    const Expectation exp = evaluate(c.call, &trace);
    std::cout << "case " << c.id << ": " << c.call.describe() << "\n  reference: " << exp.summary() << "\n";
    std::string first_difference;
    for (const auto& name : names) {
      std::string why;
      BackendOptions opts;
      opts.timeout_s = options.timeout_s;
      auto backend = make_backend(name, opts, &why);
      if (!backend) {
        std::cout << fmt::format("  {:<28} unavailable ({})\n", name, why);
        continue;
      }
      const Trial t = judge_call(*backend, c.call);
      std::cout << fmt::format("  {:<28} {:<12} {}\n", name, verdict_name(t.verdict.kind), outcome_summary(t.outcome));
      if (is_finding(t.verdict.kind)) {
        any_finding = true;
        if (first_difference.empty()) first_difference = name + ": " + t.verdict.detail;
      }
    }
    if (!first_difference.empty()) std::cout << "first difference: " << first_difference << "\n";
    std::cout << "explanation (reference):\n";
    for (const auto& line : explain_lines(c.call, exp, trace)) std::cout << "  " << line << "\n";
  }
  return any_finding ? exit_code::kUnexpectedResults : exit_code::kOk;
}

int mutants_main(const MutantsOptions& options) {
  const std::vector<std::string> paths =
      options.spec_paths.empty() ? std::vector<std::string>{std::string(SP_SOURCE_DIR) + "/specs"} : options.spec_paths;
  const LoadedSpecs specs = load_specs(paths);
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
      if (is_new_finding(judge_call(*backend, c.call), baseline.get())) {
        spec_killer = c.id;
        break;
      }
    }
    FuzzLimits limits;
    limits.seed = options.seed;
    limits.duration = to_ms(options.seconds_per_mutant);
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
