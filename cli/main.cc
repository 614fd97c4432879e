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
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bench/bench.h"
#include "cli/op_text.h"
#include "fuzz/fuzz_cli.h"
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

int command_run(const std::vector<std::string>& paths, RunOptions options, const std::string& report_dir) {
  auto progress = [verbose = options.verbose](const ResultRecord& r) {
    // Without -v only what needs a look is printed: unexpected results.
    if (!verbose && !verdict_is_unexpected(r.verdict)) return;
    fmt::print("{:<11} {:<24} {}: {}\n", verdict_name(r.verdict), result_column(r), r.case_id, r.detail);
    if (r.verdict != Verdict::Kind::Pass) fmt::print("            repro: {}\n", r.repro);
    std::fflush(stdout);
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
  if (!s.message.empty()) {
    fmt::print(stderr, "scatterproof: {}\n", s.message);
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
    paths = {"specs"};
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
    fmt::print(stderr, "scatterproof: no case with id '{}' in {}\n", wanted_id, fmt::join(paths, ", "));
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

int command_backends(bool names_only) {
  const std::vector<BackendInfo> all = registered_backends();
  if (names_only) {
    // Only backends that can be created here (a GPU backend without a GPU is left out).
    for (const BackendInfo& b : all) {
      std::string why;
      if (b.name.back() != ':' && make_backend(b.name, BackendOptions{}, &why)) fmt::print("{}\n", b.name);
    }
    return exit_code::kOk;
  }
  size_t width = 0;
  for (const BackendInfo& b : all) width = std::max(width, b.name.size());
  for (const BackendInfo& b : all) fmt::print("{:<{}}  {}\n", b.name, width, b.summary);
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
      fmt::print(stderr, "scatterproof: bad GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX\n");
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
    fmt::print(stderr, "scatterproof: {}/results.jsonl does not exist (not a report directory)\n", dir);
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

  RunOptions run_options;
  std::string run_report_dir = "reports-out";
  std::vector<std::string> run_paths, run_backends{"reference"};
  CLI::App* run = app.add_subcommand("run", "run spec cases through the reference and backends, write reports");
  run->add_option("--backend", run_backends, "backends to run, comma-separated (see `scatterproof backends`)")
      ->capture_default_str()
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
  run->add_option("paths", run_paths, "spec files or directories")->required();

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
  explain->add_option("paths", explain_paths, "where to look for the case id (default: specs)");

  std::vector<std::string> ops_ids;
  CLI::App* ops = app.add_subcommand("ops", "the op table: every op's operands, arguments and output");
  ops->add_option("ids", ops_ids, "only these op ids");

  CLI::App* schema =
      app.add_subcommand("schema", "print the complete JSON Schema of spec files (for editors and validators)");

  CLI::App* backends = app.add_subcommand("backends", "list the backends in this build");
  bool backend_names_only = false;
  backends->add_flag("--names", backend_names_only, "print only the names of backends usable on this machine");

  std::string report_dir;
  CLI::App* report =
      app.add_subcommand("report", "rebuild report.json, junit.xml and report.md from DIR/results.jsonl");
  report->add_option("dir", report_dir, "a report directory")->required();
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
  bench->add_option("--backend", bench_options.backends, "comma-separated backends")->delimiter(',');
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
  mutants_cmd->add_option("--json", mutants_options.json_file, "also write the table as JSON");
  mutants_cmd->add_option("--seed", mutants_options.seed, "fuzzing seed");
  mutants_cmd->add_option("--specs", mutants_options.spec_paths, "spec paths (default: the source tree's specs/)");
  mutants_cmd->add_option("--only", mutants_options.only, "only these mutants")->delimiter(',');

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int cli_code = app.exit(e);
    return cli_code == 0 ? exit_code::kOk : exit_code::kUsage;
  }

  if (*run) {
    run_options.backends = split_commas(run_backends);
    if (run_options.backends.empty()) {
      fmt::print(stderr, "scatterproof: --backend needs at least one name\n");
      return exit_code::kUsage;
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
      fmt::print(stderr, "scatterproof: {}\n", e.what());
      return exit_code::kBadSpecInput;
    }
    if (!parse_shard(shard, &run_options)) return exit_code::kUsage;
    return command_run(run_paths, run_options, run_report_dir);
  }
  if (*list) return command_list(list_paths, list_filters);
  if (*validate) return command_validate(validate_paths);
  if (*explain) return command_explain(explain_target, explain_case, explain_paths);
  if (*ops) return command_ops(ops_ids);
  if (*schema) return command_schema();
  if (*backends) return command_backends(backend_names_only);
  if (*report) return command_report(report_dir, report_xpass == "warn");
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
    fmt::print(stderr, "scatterproof: internal error: {}\n", e.what());
    return sp::exit_code::kInternalError;
  }
}
