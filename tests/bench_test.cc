// Tests of `scatterproof bench` (bench/): tiny-scale runs agree across
// backends and write the JSON record; a backend with a wrong answer is
// caught by the checksum instead of being timed; bad options are refused.
#include "bench/bench.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
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
  std::vector<std::string> backends = {"reference"};
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
    }
  }
  EXPECT_EQ(report["scaling"].size(), backends.size());
  EXPECT_GT(report["copy_gbs"].get<double>(), 0.0);
  std::filesystem::remove(json);
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
  nlohmann::json report;
  std::ifstream(json) >> report;
  const auto& rows = report["workloads"][0]["rows"];
  EXPECT_FALSE(rows[0].contains("failure"));
  ASSERT_TRUE(rows[1].contains("failure"));
  EXPECT_NE(rows[1]["failure"].get<std::string>().find("CHECKSUM MISMATCH"), std::string::npos);
  EXPECT_FALSE(rows[1].contains("median_s"));
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

}  // namespace
}  // namespace sp
