// scatterproof — the command line: run, list, validate, explain, ops,
// schema, backends, report, update-expectations, bench, fuzz, repro,
// mutants. Exit codes: harness/exit_codes.h (also printed by --help).
//
// The top layer: it wires the harness (loader, runner), the report
// directory (reports/), bench and fuzz together; nothing includes it.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "backends/common/resource_paths.h"
#include "bench/bench.h"
#include "cli/op_text.h"
#include "fuzz/fuzz_cli.h"
#include "harness/build_info.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/expectations.h"
#include "harness/layouts.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "reference/versions.h"
#include "reports/report_dir.h"
#include "reports/report_html.h"
#include "reports/report_writers.h"
#include "reports/result_stream.h"

namespace sp {
namespace {

void print_spec_errors(const std::vector<SpecError>& errors) {
  for (const SpecError& e : errors) fmt::print(stderr, "spec error: {}\n", e.what());
}

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

int command_list(const std::vector<std::string>& paths, const std::vector<std::string>& filters) {
  size_t errors = 0;
  stream_specs(
      paths,
      [&](Case&& c) {
        if (case_matches(c, filters)) fmt::print("{}\t{}\t{}\n", c.id, c.call.op, c.source.document);
      },
      [&](SpecError&& e) {
        ++errors;
        print_spec_errors({e});
      });
  return errors == 0 ? exit_code::kOk : exit_code::kBadSpecInput;
}

// Streams: memory holds one case at a time, however many there are.
int command_validate(const std::vector<std::string>& paths) {
  size_t cases = 0, errors = 0;
  std::set<std::string> files;
  stream_specs(
      paths,
      [&](Case&& c) {
        ++cases;
        if (files.empty() || *files.rbegin() != c.file) files.insert(c.file);
      },
      [&](SpecError&& e) {
        ++errors;
        print_spec_errors({e});
      });
  fmt::print("{} valid case(s) in {} file(s), {} spec error(s)\n", cases, files.size(), errors);
  return errors == 0 ? exit_code::kOk : exit_code::kBadSpecInput;
}

// The spec suite a command uses when given no paths: ./specs where it is a
// directory, else the installed share/scatterproof/specs (or, in a build
// tree, the source tree's), else "specs" (so the error names it).
std::string default_specs_dir() {
  std::error_code ec;
  if (std::filesystem::is_directory("specs", ec)) return "specs";
  const std::filesystem::path found = resources::find("specs");
  return found.empty() ? std::string("specs") : found.string();
}

int command_explain(const std::string& target, const std::string& case_id_option, std::vector<std::string> paths) {
  // The target is a spec file or a case id. A path that exists but is no
  // regular file (a directory, a FIFO — never opened: it would block —, a
  // device, a dangling or looping symlink) is neither: a usage error.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status own = fs::symlink_status(target, ec);
  const fs::file_status st = fs::status(target, ec);
  const bool target_is_file = fs::is_regular_file(st);
  if (!target_is_file && fs::exists(own)) {
    const std::string what = fs::is_directory(st)                    ? "a directory"
                             : fs::is_fifo(st)                       ? "a FIFO"
                             : fs::is_socket(st)                     ? "a socket"
                             : fs::is_character_file(st)             ? "a character device"
                             : fs::is_block_file(st)                 ? "a block device"
                             : st.type() == fs::file_type::not_found ? "a dangling symlink"
                             : fs::is_symlink(own) && ec ? "a symlink that cannot be resolved (" + ec.message() + ")"
                                                         : "not a regular file";
    fmt::print(stderr, "scatterproof: explain: {} is {}: give a spec file (with --case ID) or a case id\n", target,
               what);
    return exit_code::kUsage;
  }
  std::string wanted_id = target_is_file ? case_id_option : target;
  if (target_is_file)
    paths = {target};
  else if (paths.empty())
    paths = {default_specs_dir()};
  // Streamed: only the case asked for (or the file's first) is kept.
  std::optional<Case> found;
  size_t seen = 0;
  std::vector<SpecError> errors;
  stream_specs(
      paths,
      [&](Case&& c) {
        ++seen;
        if (wanted_id.empty() ? !found : c.id == wanted_id) found = std::move(c);
      },
      [&](SpecError&& e) { errors.push_back(std::move(e)); });
  if (target_is_file && wanted_id.empty() && seen != 1) {
    fmt::print(stderr, "scatterproof: {} holds {} cases; choose one with --case ID\n", target, seen);
    print_spec_errors(errors);
    return errors.empty() ? exit_code::kUsage : exit_code::kBadSpecInput;
  }
  if (!found) {
    print_spec_errors(errors);
    fmt::print(stderr, "scatterproof: no case with id '{}' in {}: `scatterproof list {}` lists the ids\n", wanted_id,
               fmt::join(paths, ", "), fmt::join(paths, " "));
    return errors.empty() ? exit_code::kUsage : exit_code::kBadSpecInput;
  }
  const Case& c = *found;
  fmt::print("case {} ({})\n", c.id, c.file);
  fmt::print("source: {}{}{}{}\n", c.source.document, c.source.example.empty() ? "" : ", " + c.source.example,
             c.source.doc_version.empty() ? "" : ", doc version " + c.source.doc_version,
             c.source.kind.empty() ? "" : " [" + c.source.kind + "]");
  if (const OpSpec* op = find_op(c.call.op)) {
    fmt::print("\nop ");
    for (const std::string& line : describe_op(*op, &c.call)) fmt::print("{}\n", line);
    fmt::print("\n");
  }
  Trace trace;
  const Expectation exp = evaluate(c.call, &trace);
  for (const std::string& line : explain_lines(c.call, exp, trace)) fmt::print("{}\n", line);
  if (exp.outputs && !exp.unspecified)
    for (const ExpectedTensor& t : *exp.outputs)
      fmt::print("reference {}{}: {}\n", t.name,
                 t.loose.empty() ? "" : " (loose elements: one allowed member, see resolved)",
                 render_tensor_values(t.exact, 1024));
  if (c.expect.kind == CaseExpect::Kind::Output || c.expect.kind == CaseExpect::Kind::OneOf) {
    fmt::print("\nthe document says ({}{}):\n", c.expect.kind == CaseExpect::Kind::OneOf ? "one of" : "output",
               c.expect.atol > 0 ? fmt::format(", atol {}", c.expect.atol) : "");
    for (size_t i = 0; i < c.expect.outputs.size(); ++i)
      fmt::print("  {}{}\n", i < c.expect.output_names.size() ? c.expect.output_names[i] + ": " : "",
                 render_tensor_values(c.expect.outputs[i], 1024));
  } else {
    fmt::print("\nthe document says: {}\n", document_expectation_summary(c.expect));
  }
  if (c.erratum) fmt::print("erratum ({}): {}\n", c.erratum->document, c.erratum->claim);
  const Verdict v = check_reference_against_document(c, exp);
  fmt::print("reference vs document: {}{}\n", verdict_name(v.kind), v.detail.empty() ? "" : ": " + v.detail);
  return exit_code::kOk;
}

// The op table: what each op takes and gives, for spec and plugin authors.
int command_ops(const std::vector<std::string>& ids) {
  bool first = true;
  for (const std::string& id : ids.empty() ? known_ops() : ids) {
    const OpSpec* op = find_op(id);
    if (!op) {
      fmt::print(stderr, "scatterproof: unknown op '{}' (known: {})\n", id, fmt::join(known_ops(), ", "));
      return exit_code::kUsage;
    }
    if (!first) fmt::print("\n");
    first = false;
    for (const std::string& line : describe_op(*op)) fmt::print("{}\n", line);
  }
  return exit_code::kOk;
}

int command_schema() {
  fmt::print("{}\n", spec_schema_text());
  return exit_code::kOk;
}

// The backends that can be created here (a GPU backend without a GPU, a
// framework that is not installed, a prefix like "process:" are left out).
// A "NAME@cpu" device variant is left out too: it runs what NAME runs, on
// the same device (it is there to be named, e.g. beside NAME@cuda), so a run
// over every usable backend would only run NAME twice.
std::vector<std::string> usable_backend_names() {
  std::vector<std::string> names;
  for (const BackendInfo& b : registered_backends()) {
    std::string why;
    const bool cpu_variant = b.name.size() > 4 && b.name.compare(b.name.size() - 4, 4, "@cpu") == 0;
    if (b.name.back() != ':' && !cpu_variant && make_backend(b.name, BackendOptions{}, &why)) names.push_back(b.name);
  }
  return names;
}

int command_backends(bool names_only) {
  if (names_only) {
    for (const std::string& name : usable_backend_names()) fmt::print("{}\n", name);
    return exit_code::kOk;
  }
  const std::vector<BackendInfo> all = registered_backends();
  size_t width = 0;
  for (const BackendInfo& b : all) width = std::max(width, b.name.size());
  for (const BackendInfo& b : all) fmt::print("{:<{}}  {}\n", b.name, width, b.summary);
  return exit_code::kOk;
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

int command_update_expectations(const std::string& dir, const std::string& out, const std::string& reason) {
  std::vector<ExpectationEntry> add;
  try {
    for_each_result_at(dir + "/results.jsonl", [&](const ResultRecord& r, uint64_t) {
      if (r.check == "load" || !verdict_is_unexpected(r.verdict) || r.verdict == Verdict::Kind::XPass) return;
      ExpectationEntry e;
      e.case_pattern = r.case_id;
      e.backend_pattern = r.backend;
      e.reason = reason.empty() ? std::string(verdict_name(r.verdict)) + ": " + r.detail : reason;
      add.push_back(std::move(e));
    });
    const size_t added = write_expectation_file(out, add);
    fmt::print("{}: {} entries added ({} unexpected results in {})\n", out, added, add.size(), dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "scatterproof: {}\n", e.what());
    return exit_code::kBadSpecInput;
  }
  return exit_code::kOk;
}

int command_report(const std::string& dir, bool xpass_warn) {
  if (!std::filesystem::is_regular_file(dir + "/results.jsonl")) {
    fmt::print(stderr,
               "scatterproof: {}/results.jsonl does not exist (not a report directory): give the --report-dir of a "
               "`scatterproof run`\n",
               dir);
    return exit_code::kUsage;
  }
  std::string why;
  const std::optional<ReportDirLock> lock = ReportDirLock::acquire(dir, &why);
  if (!lock) {
    fmt::print(stderr, "scatterproof: {}\n", why);
    return exit_code::kUsage;
  }
  bool unexpected = false, spec_error = false;
  std::optional<ResultsFileSource> source;
  try {
    source.emplace(dir + "/results.jsonl");
    source->for_each([&](const ResultRecord& r) {
      if (r.check == "load")
        spec_error = true;
      else if (verdict_is_unexpected(r.verdict) && !(xpass_warn && r.verdict == Verdict::Kind::XPass))
        unexpected = true;
    });
    write_reports(*source, dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "scatterproof: {}\n", e.what());
    return exit_code::kUsage;
  }
  const ReportSummary s = summarize(*source);
  fmt::print("{} results: {} (reports in {})\n", s.total, format_counts(s.verdicts), dir);
  return unexpected ? exit_code::kUnexpectedResults : spec_error ? exit_code::kBadSpecInput : exit_code::kOk;
}

// `report --html OUT DIR...`: one page over several runs' results.jsonl,
// each run's backends and versions as its own columns (report_html.h).
int command_report_html(const std::string& out, const std::vector<std::string>& dirs) {
  std::vector<std::unique_ptr<ResultsFileSource>> sources;
  std::vector<HtmlRun> runs;
  try {
    for (const std::string& dir : dirs) {
      if (!std::filesystem::is_regular_file(dir + "/results.jsonl")) {
        fmt::print(stderr, "scatterproof: {}/results.jsonl does not exist (not a report directory)\n", dir);
        return exit_code::kUsage;
      }
      sources.push_back(std::make_unique<ResultsFileSource>(dir + "/results.jsonl"));
      runs.push_back(
          HtmlRun{dirs.size() > 1 ? dir : std::string(), sources.back().get(), read_run_record(dir + "/run.json")});
    }
    write_report_html_file(runs, out);
  } catch (const std::exception& e) {
    fmt::print(stderr, "scatterproof: {}\n", e.what());
    return exit_code::kUsage;
  }
  fmt::print("{} run(s) in {}\n", dirs.size(), out);
  return exit_code::kOk;
}

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

int run_cli(int argc, char** argv) {
  CLI::App app{"scatterproof — conformance tests for gather/scatter ops of PyTorch, MindSpore and PaddlePaddle"};
  app.footer(exit_code::kHelpText);
  app.require_subcommand(1);
  app.set_version_flag("--version", tool_version_line(), "print the version and the git commit it was built from");

  RunOptions run_options;
  std::string run_report_dir = "reports-out";
  std::vector<std::string> run_paths, run_backends;
  CLI::App* run = app.add_subcommand("run", "run spec cases through the reference and backends, write reports");
  run->footer(
      "Without --backend nothing runs: run prints the backends usable here, the cases found in PATHS (default: "
      "./specs, else the installed share/scatterproof/specs) and the exact command that runs them all.");
  run->add_option("--backend", run_backends,
                  "backends to run, comma-separated (see `scatterproof backends`); none: print what would run")
      ->allow_extra_args(false);
  run->add_option("--filter", run_options.filters, "case id glob, or tag:NAME; repeatable (any matches)")
      ->allow_extra_args(false);
  run->add_option("--report-dir", run_report_dir, "where results.jsonl and the reports go")->capture_default_str();
  run->add_option("--threads", run_options.threads, "cases run concurrently")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run->add_flag("-v,--verbose", run_options.verbose, "print every result (default: only unexpected ones)");
  std::vector<std::string> run_layouts;
  run->add_option("--layouts", run_layouts,
                  "also run every case with its operands re-laid out: all, or a comma list of "
                  "transposed,gapped,offset,expanded")
      ->allow_extra_args(false);
  run->add_option("--backend-threads", run_options.backend_options.threads,
                  "threads each backend may use (0: its default, the hardware's)")
      ->check(CLI::Range(0, 1024));
  const std::string timeout_help =
      "seconds a process/plugin backend gets per case, 3x per start (default: SCATTERPROOF_CASE_TIMEOUT_S, else 10)";
  run->add_option("--timeout", run_options.backend_options.timeout_s, timeout_help)->check(CLI::Range(0.001, 1e6));
  run->add_flag("--deterministic", run_options.backend_options.deterministic,
                "ask backends with a deterministic mode to use it");
  std::vector<std::string> expectation_files;
  run->add_option("--expectations", expectation_files, "expectation file of known failures (XFAIL); repeatable")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  std::string xpass_mode = "fail";
  run->add_option("--xpass", xpass_mode, "an unexpected pass of a listed failure: fail (default) or warn")
      ->check(CLI::IsMember({"fail", "warn"}));
  std::vector<std::string> framework_versions;
  run->add_option("--framework-version", framework_versions,
                  "FRAMEWORK=VERSION (torch=2.15, mindspore=2.10, paddle=3.0): the version whose rules the reference "
                  "answers for on backends that run no framework of their own (cpu, cuda, plugins); overrides a "
                  "case's source.doc_version. A framework backend is always answered for its own version. "
                  "Repeatable")
      ->allow_extra_args(false);
  std::string shard;
  run->add_option("--shard", shard,
                  "i/n: run the i-th of n slices of the cases (1-based; default from GTEST_SHARD_INDEX and "
                  "GTEST_TOTAL_SHARDS)");
  run->add_option("paths", run_paths,
                  "spec files or directories (without --backend: default ./specs, else the installed "
                  "<prefix>/share/scatterproof/specs)");

  std::vector<std::string> list_paths, list_filters;
  CLI::App* list = app.add_subcommand("list", "list cases: id, op, source document");
  list->add_option("--filter", list_filters, "case id glob, or tag:NAME; repeatable")->allow_extra_args(false);
  list->add_option("paths", list_paths, "spec files or directories")->required();

  std::vector<std::string> validate_paths;
  CLI::App* validate = app.add_subcommand("validate", "check spec files; print every spec error (exit 3 if any)");
  validate->add_option("paths", validate_paths, "spec files or directories")->required();

  std::string explain_target, explain_case;
  std::vector<std::string> explain_paths;
  CLI::App* explain =
      app.add_subcommand("explain", "show the reference's reasoning for one case: checks, writes, allowed set");
  explain->add_option("case", explain_target, "a case id, or a spec file")->required();
  explain->add_option("--case", explain_case, "the case id when CASE is a file with several cases");
  explain->add_option("paths", explain_paths,
                      "where to look for the case id (default: ./specs, else the installed share/scatterproof/specs)");

  std::vector<std::string> ops_ids;
  CLI::App* ops = app.add_subcommand("ops", "the op table: every op's operands, arguments and output");
  ops->add_option("ids", ops_ids, "only these op ids");

  CLI::App* schema =
      app.add_subcommand("schema", "print the complete JSON Schema of spec files (for editors and validators)");

  CLI::App* backends = app.add_subcommand("backends", "list the backends in this build");
  bool backend_names_only = false;
  backends->add_flag("--names", backend_names_only, "print only the names of backends usable on this machine");

  std::vector<std::string> report_dirs;
  std::string report_html_out;
  CLI::App* report =
      app.add_subcommand("report", "rebuild report.json, junit.xml, report.md and report.html from DIR/results.jsonl");
  report->add_option("dir", report_dirs, "a report directory (with --html: one or more)")->required();
  report->add_option("--html", report_html_out,
                     "write only this HTML page, comparing the runs of every DIR (their backends and versions)");
  std::string report_xpass = "fail";
  report->add_option("--xpass", report_xpass, "fail (default) or warn, as for run")
      ->check(CLI::IsMember({"fail", "warn"}));

  std::string update_dir, update_out, update_reason;
  CLI::App* update = app.add_subcommand(
      "update-expectations", "add an expectation entry for every unexpected result of a run (kept entries stay)");
  update->add_option("dir", update_dir, "a report directory (its results.jsonl)")->required();
  update->add_option("--out", update_out, "the expectation file to write or merge into")->required();
  update->add_option("--reason", update_reason, "reason recorded in each new entry (default: the failure's detail)");

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand("bench", "time fixed gather/scatter workloads side by side on several backends");
  bench->add_option("--threads", bench_options.threads, "threads per backend (default: hardware)");
  bench->add_option("--repeats", bench_options.repeats, "timed runs per workload (the median is reported)");
  bench->add_option("--json", bench_options.json_path, "also write the results as JSON");
  bench
      ->add_option("--backend", bench_options.backends,
                   "comma-separated contenders (default cpu,cpu-fresh,libtorch-current,libtorch; cpu-fresh: cpu "
                   "without output reuse; libtorch-current: timed out of process, bench/bench.h)")
      ->delimiter(',');
  bench->add_option("--workload", bench_options.workloads, "workload names or ids (e.g. 1,4b)")->delimiter(',');
  bench->add_option("--scale", bench_options.scale, "shrink every workload by this factor in (0, 1]");

  fuzz::FuzzOptions fuzz_options;
  CLI::App* fuzz_cmd =
      app.add_subcommand("fuzz", "a fuzz campaign: bucket disagreements, shrink each to a one-file repro spec");
  fuzz_cmd->add_option("--backend", fuzz_options.backend, "the backend under test")->required();
  fuzz_cmd->add_option("--seconds", fuzz_options.seconds, "time budget")->capture_default_str();
  fuzz_cmd->add_option("--seed", fuzz_options.seed, "0: from the clock (printed)");
  fuzz_cmd->add_option("--out", fuzz_options.out_dir, "where repro-*.json and findings.{json,md} go")
      ->capture_default_str();
  fuzz_cmd->add_option("--max-cases", fuzz_options.max_cases, "stop after this many cases");
  fuzz_cmd->add_option("--max-findings", fuzz_options.max_findings, "stop after this many distinct findings (0: none)")
      ->capture_default_str();
  fuzz_cmd->add_option("--shrink-seconds", fuzz_options.shrink_seconds, "shrinking budget per distinct finding")
      ->capture_default_str();
  fuzz_cmd->add_option("--op", fuzz_options.ops, "generate only ops matching this id glob (repeatable)");
  fuzz_cmd->add_option("--timeout", fuzz_options.timeout_s, timeout_help)->check(CLI::Range(0.001, 1e6));
  fuzz_cmd->add_option("--expectations", fuzz_options.expectations,
                       "expectation file whose entries are the backend's known deviations (repeatable)");
  fuzz::ReproOptions repro_options;
  CLI::App* repro_cmd =
      app.add_subcommand("repro", "replay a repro spec on the reference and the named backends, explained");
  repro_cmd->add_option("file", repro_options.file, "a spec file (e.g. a fuzz repro)")->required();
  repro_cmd->add_option("--backend", repro_options.backends, "backends to replay on (repeatable; default: cpu)")
      ->delimiter(',');
  repro_cmd->add_option("--timeout", repro_options.timeout_s, timeout_help)->check(CLI::Range(0.001, 1e6));
  fuzz::MutantsOptions mutants_options;
  CLI::App* mutants_cmd =
      app.add_subcommand("mutants", "is every deliberately wrong backend caught, by the specs and by fuzzing?");
  mutants_cmd->add_option("--seconds-per-mutant", mutants_options.seconds_per_mutant, "fuzzing budget per mutant")
      ->capture_default_str();
  mutants_cmd
      ->add_option("--cases-per-mutant", mutants_options.cases_per_mutant,
                   "stop fuzzing a mutant after this many cases (0: only the time budget); with a fixed seed the "
                   "same cases on every machine, so a kill does not depend on the machine's speed")
      ->capture_default_str();
  mutants_cmd->add_option("--json", mutants_options.json_file, "also write the table as JSON");
  mutants_cmd->add_option("--seed", mutants_options.seed, "fuzzing seed");
  mutants_cmd->add_option(
      "--specs", mutants_options.spec_paths,
      "spec paths (default: the installed share/scatterproof/specs, else the source tree's specs/)");
  mutants_cmd->add_option("--only", mutants_options.only, "only these mutants")->delimiter(',');

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int cli_code = app.exit(e);
    return cli_code == 0 ? exit_code::kOk : exit_code::kUsage;
  }

  if (*run) {
    run_options.backends = split_commas(run_backends);
    const bool plan = run->count("--backend") == 0;
    if (!plan && run_options.backends.empty()) {
      fmt::print(stderr,
                 "scatterproof: --backend needs at least one name: `scatterproof backends --names` lists those "
                 "usable here\n");
      return exit_code::kUsage;
    }
    const bool paths_given = !run_paths.empty();
    if (!paths_given) {
      if (!plan) {
        fmt::print(stderr, "scatterproof: run: give the spec files or directories to run (e.g. {})\n",
                   default_specs_dir());
        return exit_code::kUsage;
      }
      run_paths = {default_specs_dir()};
    }
    for (const std::string& layout : split_commas(run_layouts)) {
      if (layout == "all") {
        run_options.layouts = layout_names();
      } else if (is_layout_name(layout)) {
        run_options.layouts.push_back(layout);
      } else {
        fmt::print(stderr, "scatterproof: unknown layout '{}' (all, transposed, gapped, offset, expanded)\n", layout);
        return exit_code::kUsage;
      }
    }
    for (const std::string& item : split_commas(framework_versions)) {
      const size_t eq = item.find('=');
      const std::string framework = item.substr(0, eq), version = eq == std::string::npos ? "" : item.substr(eq + 1);
      bool known = false;
      for (const ref::FrameworkBaseline& b : ref::framework_baselines()) known = known || framework == b.framework;
      if (!known || version.empty() || !ref::parse_version(version)) {
        fmt::print(stderr,
                   "scatterproof: --framework-version '{}': expected FRAMEWORK=VERSION with FRAMEWORK torch, "
                   "mindspore or paddle and a version like 2.15.0\n",
                   item);
        return exit_code::kUsage;
      }
      run_options.framework_versions[framework] = version;
    }
    run_options.xpass_warn = xpass_mode == "warn";
    try {
      run_options.expectations = load_expectation_files(expectation_files);
    } catch (const SpecError& e) {
      fmt::print(stderr,
                 "scatterproof: {}\n  fix the expectation file (format: docs/cli.md, \"CI gates\") or leave it out\n",
                 e.what());
      return exit_code::kBadSpecInput;
    }
    if (!parse_shard(shard, &run_options)) return exit_code::kUsage;
    if (plan) return command_run_plan(run_paths, paths_given, run_options, std::vector<std::string>(argv, argv + argc));
    return command_run(run_paths, run_options, run_report_dir);
  }
  if (*list) return command_list(list_paths, list_filters);
  if (*validate) return command_validate(validate_paths);
  if (*explain) return command_explain(explain_target, explain_case, explain_paths);
  if (*ops) return command_ops(ops_ids);
  if (*schema) return command_schema();
  if (*backends) return command_backends(backend_names_only);
  if (*report) {
    if (!report_html_out.empty()) return command_report_html(report_html_out, report_dirs);
    if (report_dirs.size() != 1) {
      fmt::print(stderr, "scatterproof: report takes one report directory (several only with --html OUT)\n");
      return exit_code::kUsage;
    }
    return command_report(report_dirs.front(), report_xpass == "warn");
  }
  if (*update) return command_update_expectations(update_dir, update_out, update_reason);
  if (*bench) return run_bench(bench_options);
  if (*fuzz_cmd) return fuzz::fuzz_main(fuzz_options);
  if (*repro_cmd) return fuzz::repro_main(repro_options);
  if (*mutants_cmd) return fuzz::mutants_main(mutants_options);
  return exit_code::kUsage;
}

}  // namespace
}  // namespace sp

int main(int argc, char** argv) {
  try {
    return sp::run_cli(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr,
               "scatterproof: internal error: {}\n  this is a bug in scatterproof: please report it with the "
               "command line and `scatterproof --version`\n",
               e.what());
    return sp::exit_code::kInternalError;
  }
}
