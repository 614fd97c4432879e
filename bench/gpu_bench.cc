// gpu_bench.cc — `scatterproof bench --gpu` (gpu_bench.h): the contenders,
// the device header, the table and the JSON report. The timing of one
// workload on one contender is gpu_timing.cc.
#include "bench/gpu_bench.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/common/resource_paths.h"
#include "bench/bench_core.h"
#include "bench/gpu_timing.h"
#include "bench/host_info.h"
#include "harness/exit_codes.h"
#ifdef SP_BENCH_HAVE_CUDA
#include "backends/cuda/device_probe.h"
#endif

namespace sp {
namespace {

using bench::GpuTiming;
using bench::Workload;
using bench::WorkloadSpec;

constexpr int kWarmups = 2;
constexpr size_t kProbeBytes = size_t{256} << 20;
constexpr const char* kHostTiming = "HOST LAUNCHER TIMING (std::chrono on the CPU), not a GPU number";

// The GPU facts of the header; `error` non-empty when there is no device.
struct Device {
  std::string error;
  nlohmann::json json;  // device_probe.h's fields
  double d2d_gbs = 0;
  std::string summary;
};

Device probe() {
  Device d;
#ifdef SP_BENCH_HAVE_CUDA
  const cuda::DeviceProbe p = cuda::probe_device(kProbeBytes, 5);
  if (!p.error.empty()) {
    d.error = p.error;
    return d;
  }
  d.d2d_gbs = p.d2d_gbs;
  d.json = {{"name", p.name},
            {"compute_capability", fmt::format("{}.{}", p.cc_major, p.cc_minor)},
            {"memory_bytes", p.memory_bytes},
            {"driver_cuda", cuda::cuda_version_text(p.driver_version)},
            {"runtime_cuda", cuda::cuda_version_text(p.runtime_version)},
            {"copy_bytes", p.copy_bytes},
            {"d2d_gbs_read_plus_write", p.d2d_gbs},
            {"h2d_pinned_gbs", p.h2d_pinned_gbs},
            {"d2h_pinned_gbs", p.d2h_pinned_gbs},
            {"h2d_pageable_gbs", p.h2d_pageable_gbs},
            {"d2h_pageable_gbs", p.d2h_pageable_gbs}};
  d.summary = fmt::format(
      "device: {} (sm_{}{}, {:.1f} GiB), driver CUDA {}, runtime CUDA {}\n"
      "copy bandwidth on the device ({} MiB, CUDA events, median of 5 after a warm-up):\n"
      "  device-to-device {:.1f} GB/s (read + write); host-to-device {:.1f} GB/s pinned, {:.1f} pageable;"
      " device-to-host {:.1f} pinned, {:.1f} pageable\n",
      p.name, p.cc_major, p.cc_minor, p.memory_bytes / (1 << 30), cuda::cuda_version_text(p.driver_version),
      cuda::cuda_version_text(p.runtime_version), kProbeBytes >> 20, p.d2d_gbs, p.h2d_pinned_gbs, p.h2d_pageable_gbs,
      p.d2h_pinned_gbs, p.d2h_pageable_gbs);
#else
  d.error = "this scatterproof was built without nvcc (no cuda backend, no CUDA runtime)";
#endif
  return d;
}

bool is_torch(const std::string& name) { return name == "torch-cuda" || name == "torch-cpu"; }
bool needs_gpu(const std::string& name) {
  return name == "cuda" || name == "cuda-deterministic" || name == "torch-cuda";
}
bool is_host_launcher(const std::string& name) { return name.rfind("cuda-host", 0) == 0; }

struct Contender {
  std::string name;
  std::unique_ptr<Backend> backend;           // ours
  std::unique_ptr<bench::TorchWorker> torch;  // torch-*
  std::string version;
  std::string clock;  // what its kernel times are
};

std::string torch_python(const BenchOptions& opts) {
  if (!opts.torch_python.empty()) return opts.torch_python;
  if (const char* env = std::getenv("SP_TORCH_PYTHON"); env && *env) return env;
  const std::filesystem::path venv = resources::venv_dir(".venv-current");
  if (!venv.empty() && std::filesystem::exists(venv / "bin" / "python")) return (venv / "bin" / "python").string();
  return "python3";
}

// Sets up one contender; nullopt and a message on stderr when unavailable.
std::optional<Contender> make_contender(const std::string& name, const BenchOptions& opts,
                                        const std::filesystem::path& scratch) {
  Contender c;
  c.name = name;
  if (is_torch(name)) {
    std::vector<std::string> looked;
    const auto script = resources::find("adapters/bench_torch_worker.py", &looked);
    if (script.empty()) {
      fmt::print(stderr, "bench --gpu: {} is unavailable: no adapters/bench_torch_worker.py (looked in {})\n", name,
                 fmt::join(looked, ", "));
      return std::nullopt;
    }
    const std::string python = torch_python(opts), device = name == "torch-cuda" ? "cuda" : "cpu";
    std::string why;
    bool unavailable = false;
    c.torch = bench::TorchWorker::start(python, script.string(), device, scratch, 300, &why, &unavailable);
    if (!c.torch) {
      fmt::print(stderr,
                 "bench --gpu: {} is unavailable: {} (python: {}; --torch-python or SP_TORCH_PYTHON names another)\n",
                 name, why, python);
      return std::nullopt;
    }
    const nlohmann::json& h = c.torch->hello();
    c.version = fmt::format("torch {} on {} ({}{})", h.value("torch", "?"), h.value("device", "?"),
                            h.value("device_name", "?"), h.contains("cuda") ? ", CUDA " + h.value("cuda", "?") : "");
    c.clock = fmt::format("{} through {} {}", device == "cuda" ? "torch.cuda.Event" : "time.perf_counter on the CPU",
                          python, script.filename().string());
    return c;
  }
  std::string why;
  c.backend = make_backend(name, BackendOptions{}, &why);
  if (!c.backend) {
    fmt::print(stderr, "bench --gpu: {}\n", why);
    return std::nullopt;
  }
  c.version = c.backend->version() + " (" + c.backend->description() + ")";
  c.clock = is_host_launcher(name) ? kHostTiming : "CUDA events around each kernel launch and each copy";
  return c;
}

GpuTiming time_contender(Contender& c, const Workload& w, const BenchOptions& opts, bool int64_index) {
  if (c.backend) return bench::time_cuda_backend(*c.backend, w, kWarmups, opts.repeats, int64_index);
  const OpCall& call = int64_index && w.int64_twin ? *w.int64_twin : w.call;
  GpuTiming t = c.torch->time(call, kWarmups, opts.repeats, opts.worker_timeout_s);
  if (&call != &w.call) t.note = "timed with int64 index";
  return t;
}

struct Row {
  Contender* contender;
  GpuTiming timing;
};

// Checksums against the first row that has an output; an int32 row that
// failed or disagreed is timed on the int64 twin when that agrees.
void reconcile(std::vector<Row>& rows, const Workload& w, const BenchOptions& opts) {
  const Row* reference = nullptr;
  for (Row& r : rows) {
    if (r.timing.failure) continue;
    if (!reference)
      reference = &r;
    else if (r.timing.checksum != reference->timing.checksum)
      r.timing.failure =
          fmt::format("CHECKSUM MISMATCH with {}: output differs, time not reported", reference->contender->name);
  }
  for (Row& r : rows) {
    if (!r.timing.failure || !w.int64_twin || !reference || !r.timing.note.empty()) continue;
    GpuTiming twin = time_contender(*r.contender, w, opts, true);
    if (twin.failure || twin.checksum != reference->timing.checksum) continue;
    const bool wrong = r.timing.failure->starts_with("CHECKSUM MISMATCH");
    twin.note = fmt::format(
        "int32 index: {}; timed with int64 index",
        wrong ? "wrong output (checksum differs from " + reference->contender->name + ")" : *r.timing.failure);
    r.timing = std::move(twin);
  }
}

std::string ms_cell(double s) { return std::isfinite(s) ? fmt::format("{:.3f}", s * 1e3) : "-"; }

void print_header(const BenchOptions& opts, const Device& device, const std::vector<Contender>& contenders,
                  const std::string& baseline) {
  fmt::print("scatterproof bench --gpu: {} repeats (median, after {} warm-ups), scale {}\n", opts.repeats, kWarmups,
             opts.scale);
  fmt::print("host: {}\n", bench::describe(bench::read_host_info()));
  if (device.error.empty())
    fmt::print("{}", device.summary);
  else
    fmt::print("device: none ({}): host contenders only, their times are not GPU numbers\n", device.error);
  for (const Contender& c : contenders) fmt::print("  {} = {}\n      kernel time: {}\n", c.name, c.version, c.clock);
  fmt::print(
      "baseline: {}; kernel ms: the kernels only (median); GB/s: the workload's minimum bytes over that; of d2d: "
      "against the device-to-device copy;\nto dev / to host ms: the copies of the operands / the result, apart (ours: "
      "every call, median; torch: once per workload); call ms: our whole call on the host clock\n\n",
      baseline);
  fmt::print("{:<24} {:<24} {:>10} {:>8} {:>6} {:>9} {:>9} {:>9} {:>9}  {}\n", "workload", "backend", "kernel ms",
             "GB/s", "of d2d", "vs base", "to dev ms", "to host", "call ms", "note");
}

nlohmann::json print_row(const WorkloadSpec& spec, const Workload& w, const Row& r, const Device& device,
                         double baseline_s) {
  const Contender& c = *r.contender;
  const GpuTiming& t = r.timing;
  nlohmann::json j = {{"backend", c.name}, {"version", c.version}, {"clock", c.clock}};
  if (t.failure) {
    fmt::print("{:<24} {:<24} {:>10} {:>8} {:>6} {:>9} {:>9} {:>9} {:>9}  {}\n", spec.name, c.name, "-", "-", "-", "-",
               "-", "-", "-", *t.failure);
    j["failure"] = *t.failure;
    return j;
  }
  const double s = bench::median(t.kernel_s);
  const double gbs = w.min_bytes / s / 1e9;
  const double call = t.call_s.empty() ? NAN : bench::median(t.call_s);
  const std::string of_d2d = device.d2d_gbs > 0 ? fmt::format("{:.0f}%", 100 * gbs / device.d2d_gbs) : "-";
  const double speedup = baseline_s / s;
  std::string note = t.note;
  if (is_host_launcher(c.name)) note += std::string(note.empty() ? "" : "; ") + "host launcher timing";
  fmt::print("{:<24} {:<24} {:>10.3f} {:>8.1f} {:>6} {:>9} {:>9} {:>9} {:>9}  {}\n", spec.name, c.name, s * 1e3, gbs,
             of_d2d, std::isfinite(speedup) ? fmt::format("{:.2f}x", speedup) : "-", ms_cell(t.to_device_s),
             ms_cell(t.to_host_s), ms_cell(call), note);
  const auto number_or_null = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  j.update({{"kernel_s", t.kernel_s},
            {"kernel_median_s", s},
            {"gbs", gbs},
            {"speedup_vs_baseline", number_or_null(speedup)},
            {"to_device_s", number_or_null(t.to_device_s)},
            {"to_device_bytes", t.to_device_bytes},
            {"to_host_s", number_or_null(t.to_host_s)},
            {"to_host_bytes", t.to_host_bytes},
            {"call_median_s", number_or_null(call)},
            {"launches", t.launches},
            {"checksum", fmt::format("{:016x}", t.checksum)}});
  if (device.d2d_gbs > 0) j["of_d2d"] = gbs / device.d2d_gbs;
  if (!note.empty()) j["note"] = note;
  return j;
}

// The options' checks; an exit code when they are bad.
std::optional<int> check_options(const BenchOptions& opts) {
  if (auto bad = check_common_options(opts)) return bad;
  for (const std::string& name : opts.backends) {
    if (!is_torch(name) && name.rfind("cuda", 0) != 0) {
      fmt::print(stderr,
                 "bench --gpu: '{}' is not a GPU contender (cuda, cuda-deterministic, torch-cuda; without a GPU: "
                 "cuda-host, cuda-host-deterministic, torch-cpu)\n",
                 name);
      return exit_code::kUsage;
    }
  }
  return std::nullopt;
}

// Probes the device when a contender needs a GPU; false (and the message on
// stderr) when there is none.
bool gpu_gate(const BenchOptions& opts, Device* device) {
  bool gpu_wanted = false;
  for (const std::string& name : opts.backends) gpu_wanted = gpu_wanted || needs_gpu(name);
  if (!gpu_wanted) {
    device->error = "no GPU contender asked for";
    return true;
  }
  *device = probe();
  if (device->error.empty()) return true;
  fmt::print(stderr,
             "bench --gpu: no GPU: {}. The contenders cuda, cuda-deterministic and torch-cuda need one; without "
             "one, --backend cuda-host,torch-cpu times the same code on the host (host timings, not GPU "
             "numbers)\n",
             device->error);
  return false;
}

}  // namespace

std::vector<std::string> gpu_bench_default_backends() { return {"cuda", "cuda-deterministic", "torch-cuda"}; }

int run_gpu_bench(const BenchOptions& opts) {
  if (auto bad = check_options(opts)) return *bad;
  Device device;
  if (!gpu_gate(opts, &device)) return exit_code::kBackendUnavailable;
  std::string why;
  const std::filesystem::path scratch = bench::make_scratch_dir(&why);
  if (scratch.empty()) {
    fmt::print(stderr, "bench --gpu: {}\n", why);
    return exit_code::kBackendUnavailable;
  }
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{scratch};
  std::vector<Contender> contenders;
  for (const std::string& name : opts.backends) {
    auto c = make_contender(name, opts, scratch);
    if (!c) return exit_code::kBackendUnavailable;
    contenders.push_back(std::move(*c));
  }
  const Contender* base = &contenders.back();
  for (const char* n : {"torch-cpu", "torch-cuda"})
    for (const Contender& c : contenders)
      if (c.name == n) base = &c;
  print_header(opts, device, contenders, base->name);
  std::fflush(stdout);

  nlohmann::json contenders_json = nlohmann::json::array();
  for (const Contender& c : contenders)
    contenders_json.push_back({{"name", c.name}, {"version", c.version}, {"clock", c.clock}});
  nlohmann::json report = {{"gpu", true},
                           {"host", bench::to_json(bench::read_host_info())},
                           {"repeats", opts.repeats},
                           {"warmups", kWarmups},
                           {"scale", opts.scale},
                           {"device", device.error.empty() ? device.json : nlohmann::json()},
                           {"contenders", contenders_json},
                           {"baseline", base->name},
                           {"workloads", nlohmann::json::array()}};
  bool all_good = true;
  for (const WorkloadSpec& spec : bench::workload_specs()) {
    if (!bench::selected(spec.name, opts.workloads)) continue;
    const Workload w = spec.build(opts.scale);
    std::vector<Row> rows;
    for (Contender& c : contenders) rows.push_back({&c, time_contender(c, w, opts, false)});
    reconcile(rows, w, opts);
    double baseline_s = NAN;
    for (const Row& r : rows)
      if (r.contender == base && !r.timing.failure) baseline_s = bench::median(r.timing.kernel_s);
    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : rows) {
      all_good = all_good && !r.timing.failure;
      rows_json.push_back(print_row(spec, w, r, device, baseline_s));
    }
    report["workloads"].push_back(
        {{"name", spec.name}, {"description", spec.description}, {"min_bytes", w.min_bytes}, {"rows", rows_json}});
    std::fflush(stdout);  // a bench stopped at its bound (gpu-check) keeps the rows it printed
  }
  if (!bench::write_json_report(opts.json_path, report)) return exit_code::kUsage;
  return all_good ? exit_code::kOk : exit_code::kUnexpectedResults;
}

}  // namespace sp
