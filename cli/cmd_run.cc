// cmd_run.cc — `scatterproof run` (commands.h): its options, the plan it
// prints without --backend, and the run itself with its progress line and
// its stop on SIGINT/SIGTERM.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/expectations.h"
#include "harness/layouts.h"
#include "harness/result_record.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/versions.h"
#include "reports/report_dir.h"
#include "reports/report_writers.h"

namespace sp::cli {
namespace {

// The signal that asked `run` to stop (SIGINT, SIGTERM), or 0. A second
// one ends the process at once (the handler is reset to the default).
std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int signal_number) {
  g_stop_signal.store(signal_number);
  std::signal(signal_number, SIG_DFL);
}

// The progress line of `run` when stdout is a terminal: cases done (of the
// total, once counted), rate, ETA and unexpected results so far, redrawn in
// place with \r at most 4 times a second, from the first second on (a short
// run shows none), erased before every other line printed and at the end.
// Never drawn when stdout is not a terminal (a pipe, a CI log).
class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressLine(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  bool enabled() const { return enabled_; }

  void set_total(size_t total) {
    std::lock_guard<std::mutex> lock(mutex_);
    total_ = total;
  }
  void case_done() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    draw_if_due();
  }
  // A result: counted when unexpected; `line` (may be empty) is printed
  // above the progress line.
  void result(bool unexpected, const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (unexpected) ++unexpected_;
    if (!line.empty()) {
      erase();
      std::fputs(line.c_str(), stdout);
      std::fflush(stdout);
    }
    draw_if_due();
  }
  // Erases the line for good (before the run's last words).
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    erase();
    enabled_ = false;
  }

 private:
  void erase() {
    if (!shown_) return;
    std::fputs("\r\033[K", stdout);
    std::fflush(stdout);
    shown_ = false;
  }
  void draw_if_due() {
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || (shown_ && now - last_draw_ < std::chrono::milliseconds(250))) return;
    last_draw_ = now;
    const double rate = static_cast<double>(done_) / elapsed;
    std::string text = total_ ? fmt::format("{}/{} cases", done_, *total_) : fmt::format("{} cases", done_);
    text += fmt::format(", {:.1f}/s", rate);
    if (total_ && rate > 0 && *total_ >= done_) {
      const auto left = static_cast<long long>(static_cast<double>(*total_ - done_) / rate + 0.5);
      text += left >= 3600 ? fmt::format(", ETA {}:{:02}:{:02}", left / 3600, left / 60 % 60, left % 60)
                           : fmt::format(", ETA {}:{:02}", left / 60, left % 60);
    }
    text += fmt::format(", {} unexpected", unexpected_);
    std::fputs(("\r\033[K" + text).c_str(), stdout);
    std::fflush(stdout);
    shown_ = true;
  }

  std::mutex mutex_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_draw_;
  size_t done_ = 0, unexpected_ = 0;
  std::optional<size_t> total_;
};

int command_run(const std::vector<std::string>& paths, RunOptions options, const std::string& report_dir) {
  ProgressLine progress_line(::isatty(STDOUT_FILENO) == 1);
  // The total, counted beside the run (the run itself streams the specs and
  // never knows it in advance): the cases the filters and the shard select.
  std::jthread counter;
  if (progress_line.enabled()) {
    counter = std::jthread(
        [&progress_line, &paths, filters = options.filters, index = options.shard_index, count = options.shard_count] {
          size_t matching = 0, selected = 0;
          stream_specs(
              paths,
              [&](Case&& c) {
                if (case_matches(c, filters) && matching++ % static_cast<size_t>(count) == static_cast<size_t>(index))
                  ++selected;
              },
              [](SpecError&&) {});
          progress_line.set_total(selected);
        });
    options.on_case_done = [&progress_line] { progress_line.case_done(); };
  }
  auto progress = [verbose = options.verbose, &progress_line](const ResultRecord& r) {
    const bool unexpected = verdict_is_unexpected(r.verdict);
    // Without -v only what needs a look is printed: unexpected results.
    std::string line;
    if (verbose || unexpected) {
      line = fmt::format("{:<11} {:<24} {}: {}\n", verdict_name(r.verdict), result_column(r), r.case_id, r.detail);
      if (r.verdict != Verdict::Kind::Pass) line += fmt::format("            repro: {}\n", r.repro);
    }
    progress_line.result(unexpected, line);
  };
  // SIGINT/SIGTERM: the record being made is finished and flushed, no new
  // case starts, the reports are rebuilt from what finished, the backends
  // (and every process they started) are stopped; exit 128 + signal.
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  options.stop = &g_stop_signal;
  const RunSummary s = run_specs_reported(paths, options, report_dir, progress);
  progress_line.finish();
  if (!s.message.empty()) {
    const bool names_next_step = s.message.find("scatterproof backends") != std::string::npos;
    fmt::print(stderr, "scatterproof: {}{}\n", s.message,
               s.exit_code == exit_code::kBackendUnavailable && !names_next_step
                   ? "\n  `scatterproof backends --names` lists the backends usable on this machine"
                   : "");
    if (!s.interrupted_by) return s.exit_code;
  }
  size_t total = 0;
  for (const auto& [kind, n] : s.verdicts) total += n;
  fmt::print("{} results: {} (reports in {})\n", total, format_counts(s.verdicts), report_dir);
  return s.exit_code;
}

// `run` with no --backend: nothing runs; what would run is printed (the
// backends usable here, the cases found) with the exact command that runs
// them: the same command line with --backend and every usable backend.
int command_run_plan(const std::vector<std::string>& paths, bool paths_given, const RunOptions& options,
                     const std::vector<std::string>& argv) {
  size_t cases = 0, selected = 0, matching = 0, errors = 0;
  std::set<std::string> files;
  stream_specs(
      paths,
      [&](Case&& c) {
        ++cases;
        files.insert(c.file);
        if (case_matches(c, options.filters) &&
            matching++ % static_cast<size_t>(options.shard_count) == static_cast<size_t>(options.shard_index))
          ++selected;
      },
      [&](SpecError&&) { ++errors; });
  const std::vector<std::string> backends = usable_backend_names();
  fmt::print("scatterproof run: no backend named (--backend), so nothing was run. What would run:\n");
  fmt::print("  backends usable here (`scatterproof backends --names`): {}\n",
             backends.empty() ? "none" : fmt::format("{}", fmt::join(backends, ", ")));
  fmt::print("  specs: {} case(s) in {} file(s) under {}", cases, files.size(), fmt::join(paths, " "));
  if (selected != cases) fmt::print(", {} selected by --filter/--shard", selected);
  fmt::print("\n");
  if (errors)
    fmt::print("  {} spec error(s): `scatterproof validate {}` names them\n", errors,
               fmt::join(paths.begin(), paths.end(), " "));
  if (backends.empty()) {
    fmt::print("No backend is usable here: `scatterproof backends` lists what this build has.\n");
    return exit_code::kOk;
  }
  // The command as given, with --backend after `run` (and the paths found,
  // when none were given).
  std::vector<std::string> command;
  bool inserted = false;
  for (const std::string& arg : argv) {
    command.push_back(shell_quote(arg));
    if (!inserted && arg == "run") {
      command.push_back("--backend");
      command.push_back(shell_quote(fmt::format("{}", fmt::join(backends, ","))));
      inserted = true;
    }
  }
  if (!inserted) return exit_code::kOk;
  if (!paths_given)
    for (const std::string& p : paths) command.push_back(shell_quote(p));
  fmt::print("To run them on every backend usable here (or name fewer with --backend):\n  {}\n",
             fmt::join(command, " "));
  return exit_code::kOk;
}

// --shard i/n, or GTEST_SHARD_INDEX (0-based) / GTEST_TOTAL_SHARDS as
// test runners set them; also touches GTEST_SHARD_STATUS_FILE as gtest does.
bool parse_shard(const std::string& text, RunOptions* options) {
  int index = 0, count = 1;
  if (!text.empty()) {
    char slash = 0;
    std::istringstream in(text);
    if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count < 1 || index < 1 || index > count) {
      fmt::print(stderr, "scatterproof: --shard wants i/n with 1 <= i <= n, got '{}'\n", text);
      return false;
    }
    --index;
  } else if (const char* total = std::getenv("GTEST_TOTAL_SHARDS")) {
    const char* at = std::getenv("GTEST_SHARD_INDEX");
    try {
      count = std::stoi(total);
      index = at ? std::stoi(at) : 0;
    } catch (const std::exception&) {
      count = 0;
    }
    if (count < 1 || index < 0 || index >= count) {
      fmt::print(stderr,
                 "scatterproof: bad GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX ('{}' / '{}'): they want 0 <= index < "
                 "total; unset them or pass --shard i/n\n",
                 total, at ? at : "");
      return false;
    }
    if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE")) std::ofstream{status};
  }
  options->shard_index = index;
  options->shard_count = count;
  return true;
}

// The items of repeatable comma-separated options, split at the commas.
std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      const size_t comma = std::min(item.find(',', start), item.size());
      if (comma > start) out.push_back(item.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

// run's options as given.
struct RunArgs {
  RunOptions options;
  std::string report_dir = "reports-out";
  std::vector<std::string> paths, backends, layouts, expectation_files, framework_versions;
  std::string xpass_mode = "fail";
  std::string shard;
  std::string allow_huge;
  CLI::App* app = nullptr;
};

void add_run_options(RunArgs& a) {
  CLI::App* run = a.app;
  RunOptions& run_options = a.options;
  run->footer(
      "Without --backend nothing runs: run prints the backends usable here, the cases found in PATHS (default: "
      "./specs, else the installed share/scatterproof/specs) and the exact command that runs them all.");
  run->add_option("--backend", a.backends,
                  "backends to run, comma-separated (see `scatterproof backends`); none: print what would run")
      ->allow_extra_args(false);
  run->add_option("--filter", run_options.filters, "case id glob, or tag:NAME; repeatable (any matches)")
      ->allow_extra_args(false);
  run->add_option("--report-dir", a.report_dir, "where results.jsonl and the reports go")->capture_default_str();
  run->add_option("--threads", run_options.threads, "cases run concurrently")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run->add_flag("-v,--verbose", run_options.verbose, "print every result (default: only unexpected ones)");
  run->add_option("--layouts", a.layouts,
                  "also run every case with its operands re-laid out: all, or a comma list of "
                  "transposed,gapped,offset,expanded")
      ->allow_extra_args(false);
  run->add_option("--backend-threads", run_options.backend_options.threads,
                  "threads each backend may use (0: its default, the hardware's)")
      ->check(CLI::Range(0, 1024));
  run->add_option("--timeout", run_options.backend_options.timeout_s, kTimeoutHelp)->check(CLI::Range(0.001, 1e6));
  run->add_flag("--deterministic", run_options.backend_options.deterministic,
                "ask backends with a deterministic mode to use it");
  run->add_option("--expectations", a.expectation_files, "expectation file of known failures (XFAIL); repeatable")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  run->add_option("--xpass", a.xpass_mode, "an unexpected pass of a listed failure: fail (default) or warn")
      ->check(CLI::IsMember({"fail", "warn"}));
  run->add_option("--framework-version", a.framework_versions,
                  "FRAMEWORK=VERSION (torch=2.15, mindspore=2.10, paddle=3.0): the version whose rules the reference "
                  "answers for on backends that run no framework of their own (cpu, cuda, plugins); overrides a "
                  "case's source.doc_version. A framework backend is always answered for its own version. "
                  "Repeatable")
      ->allow_extra_args(false);
  run->add_option("--allow-huge", a.allow_huge,
                  "BUDGET (e.g. 10G, 512M, bytes): run the cases tagged huge, which may exceed the element and "
                  "storage limits, within BUDGET bytes of memory, shared by --threads (specs/FORMAT.md, \"Huge "
                  "cases\"); without it they are not_applicable")
      ->allow_extra_args(false);
  run->add_option("--shard", a.shard,
                  "i/n: run the i-th of n slices of the cases (1-based; default from GTEST_SHARD_INDEX and "
                  "GTEST_TOTAL_SHARDS)");
  run->add_option("paths", a.paths,
                  "spec files or directories (without --backend: default ./specs, else the installed "
                  "<prefix>/share/scatterproof/specs)");
}

// "10G", "512M", "64K" (powers of 1024) or a plain number of bytes.
std::optional<int64_t> parse_byte_size(const std::string& text) {
  size_t used = 0;
  long double value = 0;
  try {
    value = std::stold(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  const int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : unit == "T" ? 40 : -1;
  if (shift < 0 || !(value >= 0)) return std::nullopt;
  const long double bytes = value * static_cast<long double>(int64_t{1} << shift);
  if (bytes >= 9.2e18L) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

// MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read.
int64_t memory_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return 0;
}

// --allow-huge BUDGET: "10G", "512M", "64K" or bytes, at least
// kMinHugeBudget and at most the memory available now; each of `threads`
// concurrent cases gets its share. False (after saying why) otherwise.
bool allow_huge_from_text(const std::string& text, int threads) {
  int64_t budget = -1;
  const std::optional<int64_t> parsed = parse_byte_size(text);
  if (parsed) budget = *parsed;
  if (budget < kMinHugeBudget) {
    fmt::print(stderr,
               "scatterproof: --allow-huge '{}': expected a memory budget of at least {} bytes (1G), e.g. 10G\n", text,
               kMinHugeBudget);
    return false;
  }
  const int64_t available = memory_available_bytes();
  if (available > 0 && budget > available) {
    fmt::print(stderr, "scatterproof: --allow-huge {}: only {:.1f} GiB of memory is available now (MemAvailable)\n",
               text, static_cast<double>(available) / (1 << 30));
    return false;
  }
  allow_huge_cases(budget / std::max(threads, 1));
  return true;
}

// --layouts and --framework-version into the run's options; false (after
// saying why) on an unknown one.
bool parse_layouts_and_versions(RunArgs& a) {
  for (const std::string& layout : split_commas(a.layouts)) {
    if (layout == "all") {
      a.options.layouts = layout_names();
    } else if (is_layout_name(layout)) {
      a.options.layouts.push_back(layout);
    } else {
      fmt::print(stderr, "scatterproof: unknown layout '{}' (all, transposed, gapped, offset, expanded)\n", layout);
      return false;
    }
  }
  for (const std::string& item : split_commas(a.framework_versions)) {
    const size_t eq = item.find('=');
    const std::string framework = item.substr(0, eq), version = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool known = false;
    for (const ref::FrameworkBaseline& b : ref::framework_baselines()) known = known || framework == b.framework;
    if (!known || version.empty() || !ref::parse_version(version)) {
      fmt::print(stderr,
                 "scatterproof: --framework-version '{}': expected FRAMEWORK=VERSION with FRAMEWORK torch, "
                 "mindspore or paddle and a version like 2.15.0\n",
                 item);
      return false;
    }
    a.options.framework_versions[framework] = version;
  }
  return true;
}

int dispatch_run(RunArgs& a, const std::vector<std::string>& argv) {
  RunOptions& run_options = a.options;
  run_options.backends = split_commas(a.backends);
  const bool plan = a.app->count("--backend") == 0;
  if (!plan && run_options.backends.empty()) {
    fmt::print(stderr,
               "scatterproof: --backend needs at least one name: `scatterproof backends --names` lists those "
               "usable here\n");
    return exit_code::kUsage;
  }
  const bool paths_given = !a.paths.empty();
  if (!paths_given) {
    if (!plan) {
      fmt::print(stderr, "scatterproof: run: give the spec files or directories to run (e.g. {})\n",
                 default_specs_dir());
      return exit_code::kUsage;
    }
    a.paths = {default_specs_dir()};
  }
  if (!parse_layouts_and_versions(a)) return exit_code::kUsage;
  run_options.xpass_warn = a.xpass_mode == "warn";
  try {
    run_options.expectations = load_expectation_files(a.expectation_files);
  } catch (const SpecError& e) {
    fmt::print(stderr,
               "scatterproof: {}\n  fix the expectation file (format: docs/cli.md, \"CI gates\") or leave it out\n",
               e.what());
    return exit_code::kBadSpecInput;
  }
  if (!parse_shard(a.shard, &run_options)) return exit_code::kUsage;
  if (!a.allow_huge.empty() && !allow_huge_from_text(a.allow_huge, run_options.threads)) return exit_code::kUsage;
  if (plan) return command_run_plan(a.paths, paths_given, run_options, argv);
  return command_run(a.paths, run_options, a.report_dir);
}

}  // namespace

Subcommand add_run(CLI::App& app, std::vector<std::string> argv) {
  auto a = std::make_shared<RunArgs>();
  a->app = app.add_subcommand("run", "run spec cases through the reference and backends, write reports");
  add_run_options(*a);
  return {a->app, [a, argv = std::move(argv)] { return dispatch_run(*a, argv); }};
}

}  // namespace sp::cli
