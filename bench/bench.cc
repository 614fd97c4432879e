// bench.cc — `scatterproof bench` (bench.h): the contenders, the
// out-of-process timing of libtorch-current through
// scatterproof-bench-worker, the table and the JSON report. The workloads
// and the timing loop are bench_core.cc, shared with the worker.
#include "bench/bench.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "backends/backend.h"
#include "backends/common/resource_paths.h"
#include "backends/cpu/tuning.h"
#include "bench/bench_core.h"
#include "bench/host_info.h"
#include "bench/program.h"
#include "bench/traffic.h"
#include "harness/exit_codes.h"

namespace sp {
namespace {

using bench::describe_exit;
using bench::ProgramResult;
using bench::run_program;
using bench::Timing;
using bench::Workload;
using bench::WorkloadSpec;
using Clock = std::chrono::steady_clock;

constexpr const char* kCurrent = "libtorch-current";
constexpr const char* kOld = "libtorch";
constexpr const char* kFresh = "cpu-fresh";
constexpr const char* kOutOfProcessNote = "out of process (scatterproof-bench-worker, same timing)";

// One column of the table: a backend in this process, or libtorch-current
// through its worker.
struct Contender {
  std::string name;          // as listed: "cpu", "cpu-fresh", "libtorch-current", ...
  std::string backend_name;  // the registry's name ("cpu" for cpu-fresh); the worker's BACKEND
  BackendOptions options;
  std::unique_ptr<Backend> backend;  // in process; null for a worker
  std::string worker;                // out of process: the worker's path
  std::string version;
  std::string method;  // how it runs, for the header
};

std::string default_worker_path() {
  const std::filesystem::path source = resources::source_fallback_dir();
  if (source.empty()) return {};
  return (source / "build-libtorch-current" / "scatterproof-bench-worker").string();
}

std::vector<std::string> worker_args(const Contender& c, const std::string& workload, double scale, int repeats,
                                     int threads, bool int64_index) {
  std::vector<std::string> args = {c.worker,     c.backend_name,
                                   "--workload", workload,
                                   "--scale",    fmt::format("{:.17g}", scale),
                                   "--repeats",  std::to_string(repeats),
                                   "--threads",  std::to_string(threads)};
  if (!c.options.reuse_outputs) args.push_back("--fresh");
  if (int64_index) args.push_back("--int64-index");
  return args;
}

// The worker's one line, or why there is none.
std::optional<bench::WorkerReport> worker_report(const ProgramResult& r, double timeout_s, std::string* why) {
  const std::string stderr_tail = r.err.empty() ? "" : ": " + r.err.substr(0, r.err.find_last_not_of('\n') + 1);
  if (!r.start_error.empty() || r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    *why = "scatterproof-bench-worker " + describe_exit(r, timeout_s) + stderr_tail;
    return std::nullopt;
  }
  // Its last non-empty line (a library may print before it).
  std::string line = r.out.substr(0, r.out.find_last_not_of('\n') + 1);
  line = line.substr(line.find_last_of('\n') + 1);
  std::string bad;
  auto report = bench::parse_worker_json_line(line, &bad);
  if (!report) *why = "scatterproof-bench-worker printed no report (" + bad + "): '" + line.substr(0, 200) + "'";
  return report;
}

// Times `w` on `c` at `threads` threads: in this process, or through its worker.
Timing time_contender(Contender& c, const WorkloadSpec& spec, const Workload& w, const BenchOptions& opts, int threads,
                      bool int64_index = false) {
  if (c.worker.empty()) {
    if (threads == c.options.threads) return bench::time_backend(*c.backend, w, opts.repeats, int64_index);
    BackendOptions o = c.options;
    o.threads = threads;
    std::string why;
    auto other = make_backend(c.backend_name, o, &why);
    if (!other) {
      Timing t;
      t.failure = why;
      return t;
    }
    return bench::time_backend(*other, w, opts.repeats, int64_index);
  }
  const ProgramResult r =
      run_program(worker_args(c, spec.name, opts.scale, opts.repeats, threads, int64_index), opts.worker_timeout_s);
  std::string why;
  auto report = worker_report(r, opts.worker_timeout_s, &why);
  if (!report) {
    Timing t;
    t.failure = why;
    t.peak_unavailable = "the worker did not report";
    return t;
  }
  return report->timing;
}

// Sets up the contenders; an unavailable one ends the run (its message on stderr).
std::optional<std::vector<Contender>> make_contenders(const BenchOptions& opts, int threads) {
  std::vector<Contender> contenders;
  for (const std::string& name : opts.backends) {
    Contender c;
    c.name = name;
    c.backend_name = name == kFresh ? "cpu" : name == kCurrent ? kOld : name;
    c.options.threads = threads;
    c.options.reuse_outputs = name != kFresh;
    if (name == kCurrent) {
      c.worker = opts.libtorch_current_worker.empty() ? default_worker_path() : opts.libtorch_current_worker;
      if (c.worker.empty() || !std::filesystem::exists(c.worker)) {
        fmt::print(stderr,
                   "bench: backend '{}' is unavailable: no {} (run scripts/setup-libtorch-current.sh to build it "
                   "against the PyTorch wheel in .venv-current)\n",
                   kCurrent, c.worker.empty() ? "build-libtorch-current/scatterproof-bench-worker" : c.worker);
        return std::nullopt;
      }
      const ProgramResult r = run_program({c.worker, c.backend_name, "--version"}, 120);
      const bool exited_0 = r.start_error.empty() && !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
      const nlohmann::json hello = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
      if (!exited_0 || !hello.is_object() || !hello.contains("version") || !hello["version"].is_string()) {
        fmt::print(stderr, "bench: backend '{}' is unavailable: {} --version: {}{}\n", kCurrent, c.worker,
                   exited_0 ? "no version in its output" : describe_exit(r, 120), r.err.empty() ? "" : ": " + r.err);
        return std::nullopt;
      }
      c.version = hello["version"];
      c.method = "out of process: build-libtorch-current/scatterproof-bench-worker, same timing";
    } else {
      std::string why;
      c.backend = make_backend(c.backend_name, c.options, &why);
      if (!c.backend) {
        fmt::print(stderr, "bench: {}\n", why);
        return std::nullopt;
      }
      c.version = c.backend->version();
      if (name == "cpu") c.method = "with output reuse, backends/cpu/output_pool.h";
      if (name == kFresh) c.method = "the cpu backend allocating every output anew: reuse_outputs = false";
    }
    contenders.push_back(std::move(c));
  }
  return contenders;
}

struct Row {
  Contender* contender;
  Timing timing;
};

std::string format_ratio(double r) { return std::isfinite(r) ? fmt::format("{:.2f}x", r) : "-"; }

std::string join_notes(std::vector<std::string> notes) {
  notes.erase(std::remove(notes.begin(), notes.end(), std::string()), notes.end());
  return fmt::format("{}", fmt::join(notes, "; "));
}

}  // namespace

std::vector<std::string> bench_workload_names() {
  std::vector<std::string> names;
  for (const auto& s : bench::workload_specs()) names.push_back(s.name);
  return names;
}

namespace {

// The table's header: the run's settings, the host (named so that two runs
// are compared honestly, host_info.h), the contenders and the columns'
// meaning. Returns the host's JSON record.
nlohmann::json print_header(const BenchOptions& opts, int threads, const std::vector<Contender>& contenders,
                            const std::string& baseline, bench::CopyMeter& copy_meter) {
  const bench::HostInfo host = bench::read_host_info();
  const double copy_at_start = copy_meter.measure(3);
  fmt::print("scatterproof bench: {} threads, {} repeats x {} rounds (median of all, after a warm-up), scale {}\n",
             threads, opts.repeats, opts.rounds, opts.scale);
  fmt::print("host: {}; memcpy {:.1f} GB/s on {} threads at start\n", bench::describe(host), copy_at_start / 1e9,
             threads);
  for (const Contender& c : contenders)
    fmt::print("  {} = {}{}\n", c.name, c.version, c.method.empty() ? "" : " (" + c.method + ")");
  fmt::print("baseline: {}; peak MiB: memory the backend added over the warm-up and repeats (VmHWM)\n", baseline);
  fmt::print("of copy: against a memcpy of 256 MiB on {} threads (read + write), measured before each workload\n",
             threads);
  fmt::print("MB moved per call: LLC misses x 64 B (perf) where counted, else * = modelled (bench/traffic.h)\n");
  nlohmann::json j = bench::to_json(host);
  j["memcpy_gbps_at_start"] = copy_at_start / 1e9;
  const cpu::Tuning& tune = cpu::tuning();  // what the cpu kernels derived from these caches
  fmt::print("cpu tuning ({}): prefetch {} KiB ahead, streaming stores from {} MiB, cached 1-D targets {} KiB\n\n",
             tune.source, tune.prefetch_ahead_bytes >> 10, tune.stream_output_bytes >> 20,
             tune.cached_target_bytes >> 10);
  j["cpu_tuning"] = {{"source", tune.source},
                     {"prefetch_ahead_bytes", tune.prefetch_ahead_bytes},
                     {"stream_output_bytes", tune.stream_output_bytes},
                     {"cached_target_bytes", tune.cached_target_bytes}};
  return j;
}

}  // namespace

std::optional<int> check_common_options(const BenchOptions& opts) {
  if (opts.repeats < 1 || opts.rounds < 1 || !(opts.scale > 0 && opts.scale <= 1) || opts.backends.empty()) {
    fmt::print(stderr,
               "bench: --repeats and --rounds must be >= 1, --scale in (0, 1], and --backend name one at least\n");
    return exit_code::kUsage;
  }
  for (const std::string& f : opts.workloads) {
    if (!bench::find_workload(f)) {
      fmt::print(stderr, "bench: unknown workload '{}' (known: {})\n", f, fmt::join(bench_workload_names(), ", "));
      return exit_code::kUsage;
    }
  }
  return std::nullopt;
}

// Every contender timed in opts.rounds rounds, the order reversed every
// other round (BenchOptions::rounds), each row's rounds merged.
std::vector<Row> time_rounds(std::vector<Contender>& contenders, const WorkloadSpec& spec, const Workload& w,
                             const BenchOptions& opts, int threads) {
  std::vector<Row> rows;
  for (Contender& c : contenders) rows.push_back({&c, {}});
  for (int round = 0; round < opts.rounds; ++round) {
    for (size_t i = 0; i < rows.size(); ++i) {
      Row& r = rows[round % 2 == 0 ? i : rows.size() - 1 - i];
      Timing t = time_contender(*r.contender, spec, w, opts, threads);
      if (round == 0)
        r.timing = std::move(t);
      else
        bench::merge_round(r.timing, t, round);
    }
  }
  return rows;
}

// The 1-D scatter_add_ again at 1 thread for each row that ran, against its
// N-thread time; false when a 1-thread run fails or disagrees.
bool print_scaling(const WorkloadSpec& spec, const Workload& w, const BenchOptions& opts, int threads,
                   const std::vector<Row>& rows, nlohmann::json& report) {
  bool good = true;
  for (const Row& r : rows) {
    if (r.timing.failure) continue;
    Contender& c = *r.contender;
    const Timing one = time_contender(c, spec, w, opts, 1);
    if (one.failure || one.checksum != r.timing.checksum) {
      good = false;
      fmt::print("{:<24} {:<16} 1 thread: {}\n", "5-scaling", c.name, one.failure.value_or("CHECKSUM MISMATCH"));
      continue;
    }
    const double t1 = bench::median(one.seconds), tn = bench::median(r.timing.seconds);
    fmt::print("{:<24} {:<16} {:>10.3f} ms at 1 thread, {:.3f} ms at {}: scaling {}\n", "5-scaling", c.name, t1 * 1e3,
               tn * 1e3, threads, format_ratio(t1 / tn));
    report["scaling"].push_back({{"workload", spec.name},
                                 {"backend", c.name},
                                 {"one_thread_s", t1},
                                 {"threads", threads},
                                 {"n_threads_s", tn},
                                 {"scaling", t1 / tn}});
  }
  return good;
}

int run_bench(const BenchOptions& opts) {
  const int threads =
      opts.threads > 0 ? opts.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (auto bad = check_common_options(opts)) return *bad;
  auto made = make_contenders(opts, threads);
  if (!made) return exit_code::kBackendUnavailable;
  std::vector<Contender>& contenders = *made;
  const auto find = [&](const std::string& n) -> const Contender* {
    for (const Contender& c : contenders)
      if (c.name == n) return &c;
    return nullptr;
  };
  // Ratio columns: the current LibTorch and LibTorch 1.13 where present;
  // else the last contender. The first of them is the baseline.
  std::vector<const Contender*> versus;
  for (const char* n : {kCurrent, kOld})
    if (const Contender* c = find(n)) versus.push_back(c);
  if (versus.empty()) versus.push_back(&contenders.back());
  const std::string baseline = versus.front()->name;

  bench::CopyMeter copy_meter(threads);
  double copy_min = INFINITY, copy_max = 0;
  const nlohmann::json host_json = print_header(opts, threads, contenders, baseline, copy_meter);
  std::vector<std::string> ratio_headers;
  for (const Contender* c : versus) ratio_headers.push_back(fmt::format("vs {}", c->version));
  const auto ratio_cells = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t i = 0; i < cells.size(); ++i)
      s += fmt::format(" {:>{}}", cells[i], std::max<size_t>(8, ratio_headers[i].size()));
    return s;
  };
  fmt::print("{:<24} {:<16} {:>10} {:>7} {:>7}{} {:>9} {:>8}  {}\n", "workload", "backend", "median ms", "GB/s",
             "of copy", ratio_cells(ratio_headers), "peak MiB", "MB moved", "note");

  nlohmann::json contenders_json = nlohmann::json::array();
  for (const Contender& c : contenders) {
    nlohmann::json j = {{"name", c.name}, {"version", c.version}, {"in_process", c.worker.empty()}};
    if (!c.method.empty()) j["method"] = c.method;
    contenders_json.push_back(std::move(j));
  }
  nlohmann::json report = {{"host", host_json},
                           {"threads", threads},
                           {"repeats", opts.repeats},
                           {"rounds", opts.rounds},
                           {"scale", opts.scale},
                           {"contenders", contenders_json},
                           {"baseline", baseline},
                           {"workloads", nlohmann::json::array()},
                           {"scaling", nlohmann::json::array()}};
  bool all_good = true;

  for (const WorkloadSpec& spec : bench::workload_specs()) {
    if (!bench::selected(spec.name, opts.workloads)) continue;
    const Workload w = spec.build(opts.scale);
    const double copy_bps = copy_meter.measure(opts.repeats);
    copy_min = std::min(copy_min, copy_bps);
    copy_max = std::max(copy_max, copy_bps);
    std::vector<Row> rows = time_rounds(contenders, spec, w, opts, threads);

    // Every backend that produced an output must agree with the first one.
    const Row* reference_row = nullptr;
    for (Row& r : rows) {
      if (r.timing.failure) continue;
      if (!reference_row) {
        reference_row = &r;
      } else if (r.timing.checksum != reference_row->timing.checksum) {
        r.timing.failure =
            fmt::format("CHECKSUM MISMATCH with {}: output differs, time not reported", reference_row->contender->name);
      }
    }
    // A wrong answer or an error (not index_dtype, which time_backend
    // handles) on an int32 workload: the same call with the int64 index is
    // timed instead when it agrees, and the note keeps what int32 did (the
    // deviation itself is the conformance suite's to judge).
    for (Row& r : rows) {
      if (!r.timing.failure || !w.int64_twin || !reference_row || !r.timing.note.empty()) continue;
      Timing twin = time_contender(*r.contender, spec, w, opts, threads, true);
      if (twin.failure || twin.checksum != reference_row->timing.checksum) continue;
      const bool wrong = r.timing.failure->starts_with("CHECKSUM MISMATCH");
      twin.note = fmt::format(
          "int32 index: {}; timed with int64 index",
          wrong ? "wrong output (checksum differs from " + reference_row->contender->name + ")" : *r.timing.failure);
      r.timing = std::move(twin);
    }
    for (const Row& r : rows) all_good = all_good && !r.timing.failure;
    const auto median_of = [&](const Contender* c) {
      for (const Row& r : rows)
        if (r.contender == c && !r.timing.failure) return bench::median(r.timing.seconds);
      return static_cast<double>(NAN);
    };

    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : rows) {
      const Contender& c = *r.contender;
      nlohmann::json j = {{"backend", c.name}, {"version", c.version}};
      if (!c.worker.empty()) j["out_of_process"] = "scatterproof-bench-worker, same timing";
      const std::string peak_cell =
          r.timing.peak_bytes ? fmt::format("{:.1f}", static_cast<double>(*r.timing.peak_bytes) / (1 << 20)) : "n/a";
      if (r.timing.peak_bytes)
        j["peak_bytes"] = *r.timing.peak_bytes;
      else
        j["peak_unavailable"] = r.timing.peak_unavailable;
      const std::string peak_note = r.timing.peak_bytes ? "" : "peak n/a (" + r.timing.peak_unavailable + ")";
      const std::string method_note = c.worker.empty() ? "" : kOutOfProcessNote;
      const auto algorithm = c.backend_name == "cpu" ? std::optional(bench::Algorithm::Ours)
                             : c.name == kCurrent    ? std::optional(bench::Algorithm::ATen2)
                                                     : std::nullopt;
      const bench::TrafficCell moved =
          bench::traffic_cell(r.timing.measured_bytes, r.timing.measured_unavailable, w.call, algorithm, threads);
      j["bytes_moved"] = moved.json;
      if (r.timing.failure) {
        fmt::print("{:<24} {:<16} {:>10} {:>7} {:>7}{} {:>9} {:>8}  {}\n", spec.name, c.name, "-", "-", "-",
                   ratio_cells(std::vector<std::string>(versus.size(), "-")), peak_cell, "-",
                   join_notes({*r.timing.failure, method_note}));
        j["failure"] = *r.timing.failure;
      } else {
        const double s = bench::median(r.timing.seconds);
        const double bps = w.min_bytes / s;
        std::vector<std::string> ratios;
        nlohmann::json speedups = nlohmann::json::object();
        for (const Contender* v : versus) {
          const double ratio = median_of(v) / s;
          ratios.push_back(format_ratio(ratio));
          if (std::isfinite(ratio)) speedups[v->name] = ratio;
        }
        fmt::print("{:<24} {:<16} {:>10.3f} {:>7.2f} {:>6.0f}%{} {:>9} {:>8}  {}\n", spec.name, c.name, s * 1e3,
                   bps / 1e9, 100 * bps / copy_bps, ratio_cells(ratios), peak_cell, moved.text,
                   join_notes({r.timing.note, method_note, peak_note}));
        j.update({{"median_s", s},
                  {"times_s", r.timing.seconds},
                  {"gbs", bps / 1e9},
                  {"of_copy", bps / copy_bps},
                  {"checksum", fmt::format("{:016x}", r.timing.checksum)},
                  {"speedup_vs", speedups}});
        if (speedups.contains(baseline)) j["speedup_vs_baseline"] = speedups[baseline];
        if (!r.timing.note.empty()) j["note"] = r.timing.note;
      }
      rows_json.push_back(std::move(j));
    }
    report["workloads"].push_back({{"name", spec.name},
                                   {"description", spec.description},
                                   {"min_bytes", w.min_bytes},
                                   {"copy_gbs", copy_bps / 1e9},
                                   {"rows", rows_json}});

    // Scaling: the 1-D scatter_add_ again at 1 thread, against the N-thread time.
    if (spec.name == "5-scatter-add-1d") all_good = print_scaling(spec, w, opts, threads, rows, report) && all_good;
  }

  if (copy_max > 0) {
    fmt::print("\nmemcpy 256 MiB, {} threads, before each workload: {:.1f} to {:.1f} GB/s (read + write)\n", threads,
               copy_min / 1e9, copy_max / 1e9);
    report["copy_gbs_range"] = {copy_min / 1e9, copy_max / 1e9};
  }
  if (!bench::write_json_report(opts.json_path, report)) return exit_code::kUsage;
  return all_good ? exit_code::kOk : exit_code::kUnexpectedResults;
}

}  // namespace sp
