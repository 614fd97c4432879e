// scatterproof — the command line: run, list, validate, explain, ops,
// schema, backends, report, update-expectations, bench, fuzz, repro,
// mutants. Exit codes: harness/exit_codes.h (also printed by --help).
//
// The top layer: it wires the harness (loader, runner), the report
// directory (reports/), bench and fuzz together; nothing includes it. One
// function per subcommand adds its options and returns what runs it
// (commands.h); run_cli lists them and dispatches. `run`: cmd_run.cc;
// bench, fuzz, repro, mutants: cmd_tools.cc.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/common/resource_paths.h"
#include "cli/commands.h"
#include "cli/op_text.h"
#include "harness/build_info.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/expectations.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "reference/versions.h"
#include "reports/report_dir.h"
#include "reports/report_html.h"
#include "reports/report_writers.h"
#include "reports/result_stream.h"

namespace sp::cli {

std::string default_specs_dir() {
  std::error_code ec;
  if (std::filesystem::is_directory("specs", ec)) return "specs";
  const std::filesystem::path found = resources::find("specs");
  return found.empty() ? std::string("specs") : found.string();
}

std::vector<std::string> usable_backend_names() {
  std::vector<std::string> names;
  for (const BackendInfo& b : registered_backends()) {
    std::string why;
    const bool cpu_variant = b.name.size() > 4 && b.name.compare(b.name.size() - 4, 4, "@cpu") == 0;
    if (b.name.back() != ':' && !cpu_variant && make_backend(b.name, BackendOptions{}, &why)) names.push_back(b.name);
  }
  return names;
}

namespace {

void print_spec_errors(const std::vector<SpecError>& errors) {
  for (const SpecError& e : errors) fmt::print(stderr, "spec error: {}\n", e.what());
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
  size_t cases = 0, errors = 0, not_built = 0;
  std::set<std::string> files;
  stream_specs(
      paths,
      [&](Case&& c) {
        ++cases;
        not_built += !c.not_run.empty();
        if (files.empty() || *files.rbegin() != c.file) files.insert(c.file);
      },
      [&](SpecError&& e) {
        ++errors;
        print_spec_errors({e});
      });
  fmt::print("{} valid case(s) in {} file(s), {} spec error(s)\n", cases, files.size(), errors);
  if (not_built)
    fmt::print("{} of them tagged huge: checked up to their tensors, which are built only under --allow-huge\n",
               not_built);
  return errors == 0 ? exit_code::kOk : exit_code::kBadSpecInput;
}

// The reference's checks and writes for `c` (a program: one block per step); its answer.
Expectation print_explanation(const Case& c) {
  Expectation exp;
  std::vector<std::string> lines;
  if (c.is_program()) {
    ProgramTrace trace;
    exp = evaluate_program(*c.program, &trace);
    lines = explain_program_lines(*c.program, exp, trace);
  } else {
    Trace trace;
    exp = evaluate(c.call, &trace);
    lines = explain_lines(c.call, exp, trace);
  }
  for (const std::string& line : lines) fmt::print("{}\n", line);
  return exp;
}

// What `target` is when it exists but is no regular file ("a directory",
// "a FIFO", ...), for explain's usage error; empty when it is a regular
// file or does not exist.
std::string not_a_spec_file(const std::string& target) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status own = fs::symlink_status(target, ec);
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_regular_file(st) || !fs::exists(own)) return "";
  return fs::is_directory(st)                    ? "a directory"
         : fs::is_fifo(st)                       ? "a FIFO"
         : fs::is_socket(st)                     ? "a socket"
         : fs::is_character_file(st)             ? "a character device"
         : fs::is_block_file(st)                 ? "a block device"
         : st.type() == fs::file_type::not_found ? "a dangling symlink"
         : fs::is_symlink(own) && ec             ? "a symlink that cannot be resolved (" + ec.message() + ")"
                                                 : "not a regular file";
}

int command_explain(const std::string& target, const std::string& case_id_option, std::vector<std::string> paths) {
  // The target is a spec file or a case id. A path that exists but is no
  // regular file (a directory, a FIFO — never opened: it would block —, a
  // device, a dangling or looping symlink) is neither: a usage error.
  std::error_code ec;
  const bool target_is_file = std::filesystem::is_regular_file(std::filesystem::status(target, ec));
  if (const std::string what = not_a_spec_file(target); !what.empty()) {
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
  if (!c.not_run.empty()) {
    fmt::print(stderr, "scatterproof: case {} ({}): {}\n", c.id, c.file, c.not_run);
    return exit_code::kUsage;
  }
  fmt::print("case {} ({})\n", c.id, c.file);
  fmt::print("source: {}{}{}{}\n", c.source.document, c.source.example.empty() ? "" : ", " + c.source.example,
             c.source.doc_version.empty() ? "" : ", doc version " + c.source.doc_version,
             c.source.kind.empty() ? "" : " [" + c.source.kind + "]");
  if (const OpSpec* op = find_op(c.call)) {
    fmt::print("\nop ");
    for (const std::string& line : describe_op(*op, &c.call)) fmt::print("{}\n", line);
    fmt::print("\n");
  }
  const Expectation exp = print_explanation(c);
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

// Each subcommand of the harness and the reports: its options, and the
// command_* above it runs.

Subcommand add_list(CLI::App& app) {
  struct Args {
    std::vector<std::string> paths, filters;
  };
  auto a = std::make_shared<Args>();
  CLI::App* list = app.add_subcommand("list", "list cases: id, op, source document");
  list->add_option("--filter", a->filters, "case id glob, or tag:NAME; repeatable")->allow_extra_args(false);
  list->add_option("paths", a->paths, "spec files or directories")->required();
  return {list, [a] { return command_list(a->paths, a->filters); }};
}

Subcommand add_validate(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* validate = app.add_subcommand("validate", "check spec files; print every spec error (exit 3 if any)");
  validate->add_option("paths", *paths, "spec files or directories")->required();
  return {validate, [paths] { return command_validate(*paths); }};
}

Subcommand add_explain(CLI::App& app) {
  struct Args {
    std::string target, case_id;
    std::vector<std::string> paths;
  };
  auto a = std::make_shared<Args>();
  CLI::App* explain =
      app.add_subcommand("explain", "show the reference's reasoning for one case: checks, writes, allowed set");
  explain->add_option("case", a->target, "a case id, or a spec file")->required();
  explain->add_option("--case", a->case_id, "the case id when CASE is a file with several cases");
  explain->add_option("paths", a->paths,
                      "where to look for the case id (default: ./specs, else the installed share/scatterproof/specs)");
  return {explain, [a] { return command_explain(a->target, a->case_id, a->paths); }};
}

Subcommand add_ops(CLI::App& app) {
  auto ids = std::make_shared<std::vector<std::string>>();
  CLI::App* ops = app.add_subcommand("ops", "the op table: every op's operands, arguments and output");
  ops->add_option("ids", *ids, "only these op ids");
  return {ops, [ids] { return command_ops(*ids); }};
}

Subcommand add_schema(CLI::App& app) {
  return {app.add_subcommand("schema", "print the complete JSON Schema of spec files (for editors and validators)"),
          [] { return command_schema(); }};
}

Subcommand add_backends(CLI::App& app) {
  auto names_only = std::make_shared<bool>(false);
  CLI::App* backends = app.add_subcommand("backends", "list the backends in this build");
  backends->add_flag("--names", *names_only, "print only the names of backends usable on this machine");
  return {backends, [names_only] { return command_backends(*names_only); }};
}

Subcommand add_report(CLI::App& app) {
  struct Args {
    std::vector<std::string> dirs;
    std::string html_out, xpass = "fail";
  };
  auto a = std::make_shared<Args>();
  CLI::App* report =
      app.add_subcommand("report", "rebuild report.json, junit.xml, report.md and report.html from DIR/results.jsonl");
  report->add_option("dir", a->dirs, "a report directory (with --html: one or more)")->required();
  report->add_option("--html", a->html_out,
                     "write only this HTML page, comparing the runs of every DIR (their backends and versions)");
  report->add_option("--xpass", a->xpass, "fail (default) or warn, as for run")->check(CLI::IsMember({"fail", "warn"}));
  return {report, [a] {
            if (!a->html_out.empty()) return command_report_html(a->html_out, a->dirs);
            if (a->dirs.size() != 1) {
              fmt::print(stderr, "scatterproof: report takes one report directory (several only with --html OUT)\n");
              return exit_code::kUsage;
            }
            return command_report(a->dirs.front(), a->xpass == "warn");
          }};
}

Subcommand add_update_expectations(CLI::App& app) {
  struct Args {
    std::string dir, out, reason;
  };
  auto a = std::make_shared<Args>();
  CLI::App* update = app.add_subcommand(
      "update-expectations", "add an expectation entry for every unexpected result of a run (kept entries stay)");
  update->add_option("dir", a->dir, "a report directory (its results.jsonl)")->required();
  update->add_option("--out", a->out, "the expectation file to write or merge into")->required();
  update->add_option("--reason", a->reason, "reason recorded in each new entry (default: the failure's detail)");
  return {update, [a] { return command_update_expectations(a->dir, a->out, a->reason); }};
}

int run_cli(int argc, char** argv) {
  CLI::App app{"scatterproof — conformance tests for gather/scatter ops of PyTorch, MindSpore and PaddlePaddle"};
  app.footer(exit_code::kHelpText);
  app.require_subcommand(1);
  app.set_version_flag("--version", tool_version_line(), "print the version and the git commit it was built from");

  // In the order --help lists them.
  const std::vector<Subcommand> commands = {
      add_run(app, std::vector<std::string>(argv, argv + argc)),
      add_list(app),
      add_validate(app),
      add_explain(app),
      add_ops(app),
      add_schema(app),
      add_backends(app),
      add_report(app),
      add_update_expectations(app),
      add_bench(app),
      add_fuzz(app),
      add_repro(app),
      add_mutants(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int cli_code = app.exit(e);
    return cli_code == 0 ? exit_code::kOk : exit_code::kUsage;
  }
  for (const Subcommand& command : commands)
    if (*command.app) return command.run();
  return exit_code::kUsage;
}

}  // namespace
}  // namespace sp::cli

int main(int argc, char** argv) {
  try {
    return sp::cli::run_cli(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr,
               "scatterproof: internal error: {}\n  this is a bug in scatterproof: please report it with the "
               "command line and `scatterproof --version`\n",
               e.what());
    return sp::exit_code::kInternalError;
  }
}
