// Tests of `scatterproof bench` (bench/): tiny-scale runs agree across
// backends and write the JSON record; a backend with a wrong answer is
// caught by the checksum instead of being timed; bad options are refused;
// the out-of-process contender is timed through scatterproof-bench-worker
// (this build's, wrapped by a script standing in for
// build-libtorch-current's) and its checksum checked like any row's; the
// worker's report line, the /proc status parsing and the peak window; the
// cpu backend's output reuse switched off.
#include "bench/bench.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "bench/bench_core.h"
#include "bench/host_info.h"
#include "harness/exit_codes.h"

namespace sp {
namespace {

std::string temp_json(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("sp_bench_test_" + name + ".json")).string();
}

BenchOptions tiny(std::vector<std::string> backends, const std::string& json) {
  BenchOptions o;
  o.threads = 1;
  o.repeats = 1;
  o.scale = 0.0005;
  o.backends = std::move(backends);
  o.json_path = json;
  return o;
}

TEST(Bench, TinyRunAgreesAcrossBackendsAndWritesJson) {
  std::vector<std::string> backends = {"reference", "cpu", "cpu-fresh"};
#ifdef SP_HAVE_LIBTORCH
  backends.push_back("libtorch");
#endif
  const std::string json = temp_json("tiny");
  ASSERT_EQ(run_bench(tiny(backends, json)), exit_code::kOk);
  nlohmann::json report;
  std::ifstream(json) >> report;
  ASSERT_EQ(report["workloads"].size(), bench_workload_names().size());
  for (const auto& w : report["workloads"]) {
    ASSERT_EQ(w["rows"].size(), backends.size()) << w["name"];
    for (const auto& r : w["rows"]) {
      EXPECT_FALSE(r.contains("failure")) << w["name"] << " " << r["backend"];
      EXPECT_EQ(r["checksum"], w["rows"][0]["checksum"]) << w["name"];
      EXPECT_GT(r["median_s"].get<double>(), 0.0);
      EXPECT_TRUE(r.contains("peak_bytes")) << w["name"] << " " << r["backend"] << " " << r.dump();
      EXPECT_TRUE(r["version"].is_string());
    }
    EXPECT_GT(w["copy_gbs"].get<double>(), 0.0) << w["name"];
  }
  EXPECT_EQ(report["scaling"].size(), backends.size());
  ASSERT_EQ(report["copy_gbs_range"].size(), 2u);
  EXPECT_LE(report["copy_gbs_range"][0].get<double>(), report["copy_gbs_range"][1].get<double>());
  // The host is named (issue 37): this machine's CPUs, caches and THP mode.
  EXPECT_GE(report["host"]["cpus"].get<int>(), 1);
  EXPECT_FALSE(report["host"]["caches"].empty());
  EXPECT_GT(report["host"]["memcpy_gbps_at_start"].get<double>(), 0);
  std::filesystem::remove(json);
}

// Rounds (BenchOptions::rounds): every round's runs are in the row's times,
// and a round whose output differs from the first makes the row a failure.
TEST(Bench, RoundsJoinTheirTimesAndMustAgree) {
  const std::string json = temp_json("rounds");
  BenchOptions o = tiny({"cpu", "reference"}, json);
  o.repeats = 2;
  o.rounds = 3;
  o.workloads = {"4"};
  ASSERT_EQ(run_bench(o), exit_code::kOk);
  nlohmann::json report;
  std::ifstream(json) >> report;
  EXPECT_EQ(report["rounds"], 3);
  for (const auto& r : report["workloads"][0]["rows"]) EXPECT_EQ(r["times_s"].size(), 6u) << r["backend"];
  std::filesystem::remove(json);
  bench::Timing first, later;
  first.seconds = {1.0};
  first.checksum = 7;
  later.seconds = {2.0};
  later.checksum = 7;
  later.peak_bytes = 10;
  bench::merge_round(first, later, 1);
  EXPECT_FALSE(first.failure);
  EXPECT_EQ(first.seconds.size(), 2u);
  EXPECT_EQ(first.peak_bytes, 10);
  later.checksum = 8;
  bench::merge_round(first, later, 2);
  ASSERT_TRUE(first.failure);
  EXPECT_NE(first.failure->find("round 3: output differs"), std::string::npos) << *first.failure;
}

// The bench's JSON report at `json`: the first workload's second row is a
// CHECKSUM MISMATCH with the first, and its time is not reported.
void expect_second_row_mismatch(const std::string& json) {
  nlohmann::json report;
  std::ifstream(json) >> report;
  const auto& rows = report["workloads"][0]["rows"];
  EXPECT_FALSE(rows[0].contains("failure"));
  ASSERT_TRUE(rows[1].contains("failure"));
  EXPECT_NE(rows[1]["failure"].get<std::string>().find("CHECKSUM MISMATCH"), std::string::npos);
  EXPECT_FALSE(rows[1].contains("median_s"));
}

// Answers every gather with zeros: a fast, wrong backend.
class ZerosBackend final : public Backend {
 public:
  std::string name() const override { return "bench-test-zeros"; }
  std::string description() const override { return "test double: gather answers zeros"; }
  bool implements(std::string_view op) const override { return op == "torch.gather"; }
  Outcome run(const OpCall& call) override {
    const Tensor& input = *call.tensor("input");
    return Outcome::of_outputs({Tensor::zeros(input.dtype(), call.tensor("index")->shape())});
  }
};

TEST(Bench, WrongAnswerIsReportedNotTimed) {
  // Registered as out of process: the in-process properties
  // (fuzz_properties_test.cc), which hold every in-process backend of the
  // build to the reference, must not meet this deliberately wrong double
  // when both run in one test binary.
  register_backend(
      "bench-test-zeros", "test double",
      [](const std::string&, const BackendOptions&) { return std::make_unique<ZerosBackend>(); },
      /*in_process=*/false);
  const std::string json = temp_json("wrong");
  BenchOptions o = tiny({"reference", "bench-test-zeros"}, json);
  o.workloads = {"1"};
  EXPECT_EQ(run_bench(o), exit_code::kUnexpectedResults);
  expect_second_row_mismatch(json);
  std::filesystem::remove(json);
}

TEST(Bench, RefusesBadOptions) {
  BenchOptions o = tiny({"reference"}, "");
  o.workloads = {"no-such-workload"};
  EXPECT_EQ(run_bench(o), exit_code::kUsage);
  o = tiny({"no-such-backend"}, "");
  EXPECT_EQ(run_bench(o), exit_code::kBackendUnavailable);
  o = tiny({"reference"}, "");
  o.scale = 2;
  EXPECT_EQ(run_bench(o), exit_code::kUsage);
}

TEST(Bench, ListsAndSelectsTheNewWorkloads) {
  const auto names = bench_workload_names();
  for (const char* n : {"8s-scatter-reduce-sum", "9-index-add-gnn", "9b-index-add-gnn-bf16", "10-index-select-rows",
                        "7c-scatter-add-int32", "7d-index-add-gnn-int32", "7e-index-select-int32"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& [id, name] : std::vector<std::pair<std::string, std::string>>{{"8s", "8s-scatter-reduce-sum"},
                                                                                 {"9", "9-index-add-gnn"},
                                                                                 {"9b", "9b-index-add-gnn-bf16"},
                                                                                 {"10", "10-index-select-rows"},
                                                                                 {"7e", "7e-index-select-int32"}}) {
    const bench::WorkloadSpec* spec = bench::find_workload(id);
    ASSERT_NE(spec, nullptr) << id;
    EXPECT_EQ(spec->name, name);
  }
  // The GNN shapes, scaled; the int32 twin follows the current torch's rules.
  const bench::Workload gnn = bench::find_workload("9b")->build(0.01);
  EXPECT_EQ(gnn.call.op, "torch.index_add_");
  EXPECT_EQ(gnn.call.tensors.at("source").shape(), (Shape{20'000, 64}));
  EXPECT_EQ(gnn.call.tensors.at("self").shape(), (Shape{1'000, 64}));
  EXPECT_EQ(gnn.call.tensors.at("self").dtype(), DType::BFloat16);
  const bench::Workload i32 = bench::find_workload("7d")->build(0.01);
  EXPECT_EQ(i32.call.tensors.at("index").dtype(), DType::Int32);
  EXPECT_EQ(i32.call.framework_version, "2.15.0");
  ASSERT_TRUE(i32.int64_twin.has_value());
  EXPECT_EQ(i32.int64_twin->tensors.at("index").dtype(), DType::Int64);

  // Run on two backends at a tiny scale: they agree, int32 accepted by cpu.
  const std::string json = temp_json("new");
  BenchOptions o = tiny({"reference", "cpu"}, json);
  o.workloads = {"8s", "9", "9b", "10", "7c", "7d", "7e"};
  ASSERT_EQ(run_bench(o), exit_code::kOk);
  nlohmann::json report;
  std::ifstream(json) >> report;
  ASSERT_EQ(report["workloads"].size(), 7u);
  for (const auto& w : report["workloads"]) EXPECT_FALSE(w["rows"][1].contains("note")) << w["name"];
  std::filesystem::remove(json);
}

TEST(Bench, ParsesProcStatusFields) {
  const std::string status =
      "Name:\tsp_tests\nVmPeak:\t  100 kB\nVmHWM:\t    2048 kB\nVmRSSx:\t 1 kB\nVmRSS:\t    1536 kB\n"
      "Threads:\t4\nVmBad:\t 12 MB\nVmJunk:\t 12 kB extra\n";
  EXPECT_EQ(bench::status_field_bytes(status, "VmHWM"), 2048 * 1024);
  EXPECT_EQ(bench::status_field_bytes(status, "VmRSS"), 1536 * 1024);
  EXPECT_EQ(bench::status_field_bytes(status, "VmSwap"), std::nullopt);
  EXPECT_EQ(bench::status_field_bytes(status, "Threads"), std::nullopt);  // no unit
  EXPECT_EQ(bench::status_field_bytes(status, "VmBad"), std::nullopt);
  EXPECT_EQ(bench::status_field_bytes(status, "VmJunk"), std::nullopt);
  EXPECT_EQ(bench::status_field_bytes(status, "Vm"), std::nullopt);
}

TEST(Bench, PeakWindowSeesMemoryTouchedInsideIt) {
  bench::PeakWindow window;
  window.begin();
  {
    std::vector<char> block(size_t{64} << 20, 1);  // 64 MiB, every page touched
    ASSERT_EQ(block[block.size() - 1], 1);
  }
  window.end();
  ASSERT_TRUE(window.bytes().has_value()) << window.why();
  EXPECT_GE(*window.bytes(), int64_t{60} << 20);

  // A window with nothing allocated in it stays small.
  window.begin();
  window.end();
  ASSERT_TRUE(window.bytes().has_value()) << window.why();
  EXPECT_LT(*window.bytes(), int64_t{16} << 20);
}

TEST(Bench, WorkerReportLineRoundTrips) {
  bench::WorkerReport r{"libtorch", "LibTorch 2.15.0", {}};
  r.timing.seconds = {0.5, 0.25, 0.75};
  r.timing.checksum = 0x00f969728a373abbull;
  r.timing.peak_bytes = 123456;
  r.timing.note = "rejects int32 index";
  std::string why;
  auto back = bench::parse_worker_json_line(bench::worker_json_line(r), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->backend, "libtorch");
  EXPECT_EQ(back->version, "LibTorch 2.15.0");
  EXPECT_EQ(back->timing.seconds, r.timing.seconds);
  EXPECT_EQ(back->timing.checksum, r.timing.checksum);
  EXPECT_EQ(back->timing.peak_bytes, 123456);
  EXPECT_EQ(back->timing.note, r.timing.note);
  EXPECT_FALSE(back->timing.failure);

  bench::WorkerReport failed{"libtorch", "LibTorch 2.15.0", {}};
  failed.timing.failure = "error: boom";
  failed.timing.peak_unavailable = "cannot reset the peak";
  back = bench::parse_worker_json_line(bench::worker_json_line(failed), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->timing.failure, "error: boom");
  EXPECT_EQ(back->timing.peak_bytes, std::nullopt);
  EXPECT_EQ(back->timing.peak_unavailable, "cannot reset the peak");

  for (const char* bad :
       {"", "not json", "[]", R"({"backend":"x","version":"v","peak_bytes":1})",
        R"({"backend":"x","version":"v","peak_bytes":1,"times_s":[1],"checksum":"12"})",
        R"({"backend":"x","version":"v","times_s":[1],"checksum":"00f969728a373abb"})",
        R"({"backend":"x","version":"v","peak_bytes":1,"times_s":["a"],"checksum":"00f969728a373abb"})"})
    EXPECT_FALSE(bench::parse_worker_json_line(bad, &why)) << bad;
}

// This build's scatterproof-bench-worker (beside sp_tests).
std::string this_builds_worker() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "scatterproof-bench-worker").string();
}

// A script standing in for build-libtorch-current's worker: it runs this
// build's worker on the cpu backend instead of the bench's "libtorch",
// with `extra` arguments after the bench's (a later one wins).
std::string worker_script(const std::string& name, const std::string& extra) {
  const std::string path = (std::filesystem::temp_directory_path() / ("sp_bench_worker_" + name + ".sh")).string();
  std::ofstream(path) << "#!/bin/sh\nshift\nexec '" << this_builds_worker() << "' cpu \"$@\" " << extra << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST(Bench, OutOfProcessContenderIsTimedByTheWorkerAndChecked) {
  ASSERT_TRUE(std::filesystem::exists(this_builds_worker())) << this_builds_worker();
  const std::string json = temp_json("worker");
  BenchOptions o = tiny({"cpu", "libtorch-current"}, json);
  o.workloads = {"4", "7d"};
  o.libtorch_current_worker = worker_script("same", "");
  ASSERT_EQ(run_bench(o), exit_code::kOk);
  nlohmann::json report;
  std::ifstream(json) >> report;
  EXPECT_EQ(report["baseline"], "libtorch-current");
  EXPECT_EQ(report["contenders"][1]["in_process"], false);
  for (const auto& w : report["workloads"]) {
    const auto& rows = w["rows"];
    ASSERT_EQ(rows.size(), 2u);
    ASSERT_FALSE(rows[1].contains("failure")) << rows[1].dump();
    EXPECT_EQ(rows[1]["out_of_process"], "scatterproof-bench-worker, same timing");
    EXPECT_EQ(rows[1]["checksum"], rows[0]["checksum"]);
    EXPECT_EQ(rows[1]["times_s"].size(), 2u);  // 1 repeat in each of the default 2 rounds
    EXPECT_TRUE(rows[1].contains("peak_bytes"));
    EXPECT_TRUE(rows[0]["speedup_vs"].contains("libtorch-current"));
  }
  std::filesystem::remove(json);

  // The worker built a different workload (another scale): caught by the
  // checksum, not timed.
  o.libtorch_current_worker = worker_script("other-scale", "--scale 0.001");
  ASSERT_EQ(run_bench(o), exit_code::kUnexpectedResults);
  expect_second_row_mismatch(json);
  std::filesystem::remove(json);

  // A worker that fails (here: an argument it refuses) shows why in the row.
  o.libtorch_current_worker = worker_script("refuses", "--repeats 0");
  ASSERT_EQ(run_bench(o), exit_code::kUnexpectedResults);
  std::ifstream(json) >> report;
  const std::string failure = report["workloads"][0]["rows"][1]["failure"];
  EXPECT_NE(failure.find("exit 2"), std::string::npos) << failure;
  EXPECT_NE(failure.find("--repeats must be"), std::string::npos) << failure;
  std::filesystem::remove(json);
}

TEST(Bench, HungWorkerIsKilledAtTheDeadline) {
  // Answers --version, then hangs on the workload.
  const std::string path = (std::filesystem::temp_directory_path() / "sp_bench_worker_hang.sh").string();
  std::ofstream(path) << "#!/bin/sh\nif [ \"$2\" = --version ]; then exec '" << this_builds_worker()
                      << "' cpu --version; fi\nexec sleep 300\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  const std::string json = temp_json("hang");
  BenchOptions o = tiny({"cpu", "libtorch-current"}, json);
  o.workloads = {"1"};
  o.libtorch_current_worker = path;
  o.worker_timeout_s = 1;
  ASSERT_EQ(run_bench(o), exit_code::kUnexpectedResults);
  nlohmann::json report;
  std::ifstream(json) >> report;
  const std::string failure = report["workloads"][0]["rows"][1]["failure"];
  EXPECT_NE(failure.find("killed after"), std::string::npos) << failure;
  std::filesystem::remove(json);
}

TEST(Bench, MissingWorkerIsUnavailable) {
  BenchOptions o = tiny({"cpu", "libtorch-current"}, "");
  o.libtorch_current_worker = "/nonexistent/scatterproof-bench-worker";
  EXPECT_EQ(run_bench(o), exit_code::kBackendUnavailable);
}

// reuse_outputs: with it the cpu backend's pool keeps a reference to every
// large output (to reuse once released); without it the caller holds the
// only one, a fresh allocation.
TEST(Bench, CpuBackendReusesOutputsOnlyWhenAsked) {
  OpCall call;
  call.op = "torch.gather";
  call.set_arg("dim", Arg::of_int(0));
  call.tensors = {{"input", Tensor::zeros(DType::Float32, {1024, 1024})},
                  {"index", Tensor::zeros(DType::Int64, {1024, 1024})}};
  for (const bool reuse : {true, false}) {
    BackendOptions options;
    options.threads = 1;
    options.reuse_outputs = reuse;
    auto cpu = make_backend("cpu", options, nullptr);
    ASSERT_TRUE(cpu);
    const Outcome out = run_backend(*cpu, call);
    ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << out.message;
    EXPECT_EQ(out.outputs[0].storage().use_count(), reuse ? 2 : 1) << "reuse " << reuse;
  }
}

// The host facts from a fake /proc and sysfs tree: the model, the online
// CPUs, every data/unified cache level (instruction caches left out) with
// its size and sharing, memory, and the THP mode in brackets.
TEST(BenchHost, ReadsTheFactsFromProcAndSysfs) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("sp_bench_host_" + std::to_string(::getpid()));
  const auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text << "\n";
  };
  write("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9000\nprocessor\t: 1\nmodel name\t: Test CPU 9000");
  write("proc/meminfo", "MemTotal:       24576000 kB\nMemFree:        1 kB");
  write("sys/devices/system/cpu/online", "0-1");
  const std::string cache = "sys/devices/system/cpu/cpu0/cache/";
  const std::vector<std::array<std::string, 4>> levels = {{"1", "Data", "48K", "0"},
                                                          {"1", "Instruction", "32K", "0"},
                                                          {"2", "Unified", "2048K", "0"},
                                                          {"3", "Unified", "105M", "0-1"}};
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string dir = cache + "index" + std::to_string(i) + "/";
    write(dir + "level", levels[i][0]);
    write(dir + "type", levels[i][1]);
    write(dir + "size", levels[i][2]);
    write(dir + "shared_cpu_list", levels[i][3]);
  }
  write("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never");
  const bench::HostInfo h = bench::read_host_info(root.string());
  EXPECT_EQ(h.cpu_model, "Test CPU 9000");
  EXPECT_EQ(h.cpus, 2);
  ASSERT_EQ(h.caches.size(), 3u);  // L1d, L2, L3
  EXPECT_EQ(h.caches[0].bytes, 48 << 10);
  EXPECT_EQ(h.caches[2].bytes, int64_t{105} << 20);
  EXPECT_EQ(h.caches[2].shared_by, 2);
  EXPECT_EQ(h.mem_total_bytes, int64_t{24576000} * 1024);
  EXPECT_EQ(h.thp, "madvise");
  EXPECT_EQ(bench::describe(h),
            "Test CPU 9000 (2 CPUs), L1d 48 KiB, L2 2 MiB, L3 105 MiB (shared by 2), 23.4 GiB, THP madvise");
  EXPECT_EQ(bench::parse_cache_size("12x"), 0);
  fs::remove_all(root);
  // Nothing there: unknowns say so rather than guess.
  const bench::HostInfo none = bench::read_host_info("/nonexistent-root");
  EXPECT_EQ(none.cpu_model, "?");
  EXPECT_EQ(none.thp, "?");
  EXPECT_TRUE(none.caches.empty());
}

}  // namespace
}  // namespace sp
