// The runner end to end with tiny in-test backends: exit codes, records,
// filters, exceptions contained, spec errors reported. Runs go through the
// report directory sink (reports/report_dir.h), as `scatterproof run` does.
#include "harness/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "reference/reference.h"
#include "reports/report_dir.h"
#include "reports/result_stream.h"
#include "tests/test_support.h"

namespace sp {
namespace {

// Answers like the reference, then applies `tamper` to the output.
class ScriptedBackend final : public Backend {
 public:
  enum class Mode { FlipLastBit, Throw, Unsupported, WriteIndex, GatherOnly };
  ScriptedBackend(std::string name, Mode mode) : name_(std::move(name)), mode_(mode) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "runner_test backend"; }
  bool implements(std::string_view op) const override { return mode_ != Mode::GatherOnly || op == "torch.gather"; }
  Outcome run(const OpCall& call) override {
    if (mode_ == Mode::GatherOnly) throw std::logic_error("run() called for an op this backend does not implement");
    if (mode_ == Mode::Throw) throw std::runtime_error("kernel exploded");
    if (mode_ == Mode::Unsupported) return Outcome::unsupported("not today");
    const Expectation e = evaluate(call);
    if (!e.outputs) return Outcome::of_error(e.errors.front(), e.error_message);
    Tensor out = e.outputs->front().exact.clone_storage();
    if (mode_ == Mode::FlipLastBit) {
      const int64_t last = out.numel() - 1;
      store_bits(out.dtype(), out.element_ptr(last), load_bits(out.dtype(), out.element_ptr(last)) ^ 1);
    } else {
      call.tensor("index")->set_bits_at({0}, 1);
    }
    return Outcome::of_outputs({out});
  }

 private:
  std::string name_;
  Mode mode_;
};

void register_test_backends() {
  auto add = [](const std::string& name, ScriptedBackend::Mode mode) {
    register_backend(name, "runner_test", [mode](const std::string& n, const BackendOptions&) {
      return std::make_unique<ScriptedBackend>(n, mode);
    });
  };
  add("test-wrong", ScriptedBackend::Mode::FlipLastBit);
  add("test-throws", ScriptedBackend::Mode::Throw);
  add("test-unsupported", ScriptedBackend::Mode::Unsupported);
  add("test-writes-index", ScriptedBackend::Mode::WriteIndex);
  add("test-gather-only", ScriptedBackend::Mode::GatherOnly);
}

Tensor f32(const std::vector<float>& values) {
  return test::f32({static_cast<int64_t>(values.size())}, std::vector<double>(values.begin(), values.end()));
}

Case scatter_case(const std::string& id, std::vector<std::string> tags = {}) {
  Case c;
  c.id = id;
  c.file = "mem.json";
  c.call.op = "torch.scatter_";
  c.call.set_arg("dim", Arg::of_int(0));
  c.call.tensors["self"] = f32({0, 0, 0});
  Tensor index = Tensor::zeros(DType::Int64, {2});
  store_bits(DType::Int64, index.element_ptr(1), 2);
  c.call.tensors["index"] = index;
  c.call.tensors["src"] = f32({10, 20});
  c.source.document = "002_9301e372f38f2ff8.txt";
  c.expect.outputs = {f32({10, 0, 20})};
  c.tags = std::move(tags);
  return c;
}

std::string fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("sp_runner_test_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

// RunOptions plus the report directory the run writes.
struct TestRunOptions : RunOptions {
  std::string report_dir;
};

TestRunOptions options_for(const std::string& dir, std::vector<std::string> backends) {
  TestRunOptions o;
  o.report_dir = fresh_dir(dir);
  o.backends = std::move(backends);
  return o;
}

RunSummary run_cases(const std::vector<Case>& cases, const std::vector<SpecError>& errors, const TestRunOptions& o) {
  return run_cases_reported(cases, errors, o, o.report_dir);
}

RunSummary run_specs(const std::vector<std::string>& paths, const TestRunOptions& o) {
  return run_specs_reported(paths, o, o.report_dir);
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { register_test_backends(); }
};

TEST_F(RunnerTest, AllPassingGivesExitZeroAndWritesEveryReport) {
  const TestRunOptions o = options_for("ok", {"reference"});
  const RunSummary s = run_cases({scatter_case("t/a"), scatter_case("t/b")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kOk) << s.message;
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Pass), 4u);  // document + differential, twice
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].backend, "reference");
  EXPECT_EQ(records[0].check, "document");
  EXPECT_EQ(records[1].check, "differential");
  EXPECT_EQ(records[1].repro, "scatterproof run --backend reference --filter 't/a' mem.json");
  for (const char* f : {"report.json", "junit.xml", "report.md"})
    EXPECT_TRUE(std::filesystem::exists(o.report_dir + "/" + f)) << f;
}

// An op the backend does not implement at all is not applicable (nothing
// runs, no finding); a call of an op it implements but declines stays
// unsupported.
TEST_F(RunnerTest, AnOpTheBackendDoesNotImplementIsNotApplicableNotUnsupported) {
  const TestRunOptions o = options_for("n/a", {"test-gather-only", "test-unsupported"});
  const RunSummary s = run_cases({scatter_case("t/a")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kOk) << s.message;
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_EQ(records.size(), 3u);  // the document check, then each backend
  EXPECT_EQ(records[1].backend, "test-gather-only");
  EXPECT_EQ(records[1].verdict, Verdict::Kind::NotApplicable) << records[1].detail;
  EXPECT_EQ(records[1].detail, not_implemented_detail("test-gather-only"));
  EXPECT_FALSE(records[1].backend_version.empty());  // what it would have run, as for any result
  EXPECT_EQ(records[2].backend, "test-unsupported");
  EXPECT_EQ(records[2].verdict, Verdict::Kind::Unsupported);
  EXPECT_EQ(records[2].detail, "not today");
}

TEST_F(RunnerTest, WrongOutputGivesExitOne) {
  const RunSummary s = run_cases({scatter_case("t/a")}, {}, options_for("wrong", {"reference", "test-wrong"}));
  EXPECT_EQ(s.exit_code, exit_code::kUnexpectedResults);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Fail), 1u);
}

TEST_F(RunnerTest, ThrowingBackendIsAnErrorResultAndTheRunGoesOn) {
  const TestRunOptions o = options_for("throws", {"test-throws", "reference"});
  const RunSummary s = run_cases({scatter_case("t/a"), scatter_case("t/b")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kUnexpectedResults);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Error), 2u);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Pass), 4u);
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_EQ(records.size(), 6u);
  EXPECT_NE(records[1].detail.find("kernel exploded"), std::string::npos) << records[1].detail;
}

TEST_F(RunnerTest, UnsupportedIsNotAFailure) {
  const RunSummary s = run_cases({scatter_case("t/a")}, {}, options_for("unsupported", {"test-unsupported"}));
  EXPECT_EQ(s.exit_code, exit_code::kOk);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Unsupported), 1u);
}

TEST_F(RunnerTest, BackendWritingItsInputFails) {
  const TestRunOptions o = options_for("writes-index", {"test-writes-index"});
  const RunSummary s = run_cases({scatter_case("t/a")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kUnexpectedResults);
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_NE(records[1].detail.find("operand index was modified"), std::string::npos) << records[1].detail;
}

TEST_F(RunnerTest, UnknownBackendGivesExitFour) {
  const RunSummary s = run_cases({scatter_case("t/a")}, {}, options_for("unknown", {"no-such-backend"}));
  EXPECT_EQ(s.exit_code, exit_code::kBackendUnavailable);
  EXPECT_NE(s.message.find("no-such-backend"), std::string::npos);
}

// Records in memory: the runner itself writes no files.
class MemorySink final : public ResultSink {
 public:
  std::string open() override {
    opened = true;
    return open_error;
  }
  void write(const ResultRecord& r) override { records.push_back(r); }
  void close() override { closed = true; }

  std::string open_error;
  bool opened = false, closed = false;
  std::vector<ResultRecord> records;
};

TEST_F(RunnerTest, RecordsGoToTheSinkOpenedOnlyOnceTheBackendsExist) {
  RunOptions o;
  o.backends = {"reference"};
  MemorySink sink;
  EXPECT_EQ(sp::run_cases({scatter_case("t/a")}, {}, o, sink).exit_code, exit_code::kOk);
  EXPECT_TRUE(sink.opened && sink.closed);
  EXPECT_EQ(sink.records.size(), 2u);

  MemorySink untouched;
  o.backends = {"no-such-backend"};
  EXPECT_EQ(sp::run_cases({scatter_case("t/a")}, {}, o, untouched).exit_code, exit_code::kBackendUnavailable);
  EXPECT_FALSE(untouched.opened);

  MemorySink refusing;
  refusing.open_error = "no room for reports";
  o.backends = {"reference"};
  const RunSummary s = sp::run_cases({scatter_case("t/a")}, {}, o, refusing);
  EXPECT_EQ(s.exit_code, exit_code::kUsage);
  EXPECT_EQ(s.message, "no room for reports");
  EXPECT_TRUE(refusing.records.empty());
  EXPECT_FALSE(refusing.closed);
}

TEST_F(RunnerTest, SpecErrorsGiveExitThreeUnlessSomethingElseFailed) {
  const std::vector<SpecError> errors = {
      SpecError("bad.json", "t/broken", "inputs.index.dtype", "unknown dtype 'int7'")};
  const TestRunOptions o = options_for("spec", {"reference"});
  EXPECT_EQ(run_cases({scatter_case("t/a")}, errors, o).exit_code, exit_code::kBadSpecInput);
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].check, "load");
  EXPECT_EQ(records[0].verdict, Verdict::Kind::Error);
  EXPECT_NE(records[0].detail.find("bad.json"), std::string::npos);
  EXPECT_NE(records[0].detail.find("inputs.index.dtype"), std::string::npos);
  EXPECT_EQ(run_cases({scatter_case("t/a")}, errors, options_for("spec-and-fail", {"test-wrong"})).exit_code,
            exit_code::kUnexpectedResults);
}

TEST_F(RunnerTest, DocumentDisagreementIsAFailure) {
  Case c = scatter_case("t/a");
  c.expect.outputs = {f32({10, 0, 21})};
  const TestRunOptions o = options_for("document", {"reference"});
  EXPECT_EQ(run_cases({c}, {}, o).exit_code, exit_code::kUnexpectedResults);
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  EXPECT_EQ(records[0].verdict, Verdict::Kind::Fail);
  EXPECT_NE(records[0].detail.find("self[2]"), std::string::npos) << records[0].detail;
}

TEST_F(RunnerTest, ErratumIsRecordedWithWhatTheReferenceSays) {
  Case c = scatter_case("t/blog");
  c.erratum = Erratum{"001_bd549c940236546d.txt", "self[1] is written too", f32({10, 5, 20})};
  const TestRunOptions o = options_for("erratum", {"reference"});
  EXPECT_EQ(run_cases({c}, {}, o).exit_code, exit_code::kOk);
  const std::vector<ResultRecord> records = read_results(o.report_dir + "/results.jsonl");
  ASSERT_TRUE(records[0].erratum);
  EXPECT_EQ(records[0].erratum->reference_says, render_tensor_values(f32({10, 0, 20})));
}

TEST_F(RunnerTest, FiltersMatchIdGlobsAndTags) {
  EXPECT_TRUE(case_matches(scatter_case("torch/scatter/a"), {}));
  EXPECT_TRUE(case_matches(scatter_case("torch/scatter/a"), {"torch/*"}));
  EXPECT_FALSE(case_matches(scatter_case("torch/scatter/a"), {"paddle/*"}));
  EXPECT_TRUE(case_matches(scatter_case("x", {"erratum"}), {"paddle/*", "tag:erratum"}));
  EXPECT_FALSE(case_matches(scatter_case("x", {"example"}), {"tag:erratum"}));
  TestRunOptions o = options_for("filter", {"reference"});
  o.filters = {"b/*"};
  const RunSummary s = run_cases({scatter_case("a/1"), scatter_case("b/1")}, {}, o);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Pass), 2u);
}

TEST_F(RunnerTest, ThreadsRunEveryCaseOnce) {
  std::vector<Case> cases;
  for (int i = 0; i < 40; ++i) cases.push_back(scatter_case("t/" + std::to_string(i)));
  TestRunOptions o = options_for("threads", {"reference", "test-wrong"});
  o.threads = 4;
  const RunSummary s = run_cases(cases, {}, o);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Pass), 80u);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Fail), 40u);
  EXPECT_EQ(read_results(o.report_dir + "/results.jsonl").size(), 120u);
}

TEST_F(RunnerTest, SpecFilesLoadLenientlyAndIdsAreUniqueAcrossFiles) {
  const std::string dir = fresh_dir("files");
  std::filesystem::create_directories(dir + "/specs");
  const std::string good_case =
      R"({"id": "f/ok", "op": "torch.gather", "source": {"document": "000.txt", "kind": "edge"},
      "args": {"dim": 0}, "inputs": {"input": {"dtype": "int64", "data": [1, 2]}, "index": {"dtype": "int64", "data": [1]}},
      "expect": {"output": {"data": [2]}}})";
  const std::string broken_case =
      R"({"id": "f/broken", "op": "torch.gather", "source": {"document": "000.txt", "kind": "edge"},
      "args": {"dim": 0}, "inputs": {"input": {"dtype": "int7", "data": [1, 2]}, "index": {"dtype": "int64", "data": [1]}},
      "expect": {"output": {"data": [2]}}})";
  std::ofstream(dir + "/specs/a.json") << R"({"format": "scatterproof-spec/1", "cases": [)" << good_case << ","
                                       << broken_case << "]}";
  std::ofstream(dir + "/specs/b.json") << R"({"format": "scatterproof-spec/1", "cases": [)" << good_case << "]}";
  const LoadedSpecs specs = load_specs({dir + "/specs"});
  ASSERT_EQ(specs.cases.size(), 1u);
  ASSERT_EQ(specs.errors.size(), 2u);
  EXPECT_EQ(specs.errors[0].case_id(), "f/broken");
  EXPECT_EQ(specs.errors[1].case_id(), "f/ok");
  EXPECT_NE(std::string(specs.errors[1].what()).find("duplicate case id; first defined in"), std::string::npos);

  TestRunOptions o = options_for("files-run", {"reference"});
  const RunSummary s = run_specs({dir + "/specs"}, o);
  EXPECT_EQ(s.exit_code, exit_code::kBadSpecInput);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Pass), 2u);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::Error), 2u);
}

}  // namespace
}  // namespace sp

namespace sp {
namespace {

ExpectationEntry listed(const std::string& case_pattern, const std::string& backend) {
  return ExpectationEntry{case_pattern, backend, "known bug", "", "gate.json"};
}

TEST_F(RunnerTest, ListedFailureIsXFailAndExitZero) {
  TestRunOptions o = options_for("xfail", {"test-wrong"});
  o.expectations = {listed("s/*", "test-*")};
  const RunSummary s = run_cases({scatter_case("s/one")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kOk);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::XFail), 1u);
}

TEST_F(RunnerTest, ListedPassIsXPassAndFailsTheGateUnlessWarned) {
  TestRunOptions o = options_for("xpass", {"reference"});
  o.expectations = {listed("s/one", "reference")};
  RunSummary s = run_cases({scatter_case("s/one")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kUnexpectedResults);
  EXPECT_EQ(s.verdicts.at(Verdict::Kind::XPass), 2u);  // the document check and the differential run
  o.xpass_warn = true;
  o.report_dir = fresh_dir("xpass-warn");
  s = run_cases({scatter_case("s/one")}, {}, o);
  EXPECT_EQ(s.exit_code, exit_code::kOk);
}

TEST_F(RunnerTest, UnlistedBackendIsNotCoveredByAnEntry) {
  TestRunOptions o = options_for("unlisted", {"test-wrong"});
  o.expectations = {listed("s/one", "cpu")};
  EXPECT_EQ(run_cases({scatter_case("s/one")}, {}, o).exit_code, exit_code::kUnexpectedResults);
}

TEST_F(RunnerTest, ShardsPartitionTheCases) {
  std::vector<Case> cases;
  for (int i = 0; i < 7; ++i) cases.push_back(scatter_case("s/" + std::to_string(i)));
  size_t total = 0;
  for (int shard = 0; shard < 3; ++shard) {
    TestRunOptions o = options_for("shard" + std::to_string(shard), {"reference"});
    o.shard_index = shard;
    o.shard_count = 3;
    const RunSummary s = run_cases(cases, {}, o);
    const size_t n = s.verdicts.at(Verdict::Kind::Pass) / 2;  // document + differential per case
    EXPECT_EQ(n, shard == 0 ? 3u : 2u);
    total += n;
  }
  EXPECT_EQ(total, cases.size());
}

// RunOptions::on_case_done (the CLI's progress line) is called once per
// case the run selects, when it has finished, on one thread or several.
TEST_F(RunnerTest, EachSelectedCaseIsReportedDoneOnce) {
  std::vector<Case> cases;
  for (int i = 0; i < 7; ++i) cases.push_back(scatter_case("d/" + std::to_string(i)));
  for (int threads : {1, 3}) {
    TestRunOptions o = options_for("done" + std::to_string(threads), {"reference"});
    o.threads = threads;
    o.layouts = {"transposed"};
    o.shard_index = 1;
    o.shard_count = 2;  // cases 1, 3, 5
    std::atomic<size_t> done{0};
    o.on_case_done = [&done] { ++done; };
    run_cases(cases, {}, o);
    EXPECT_EQ(done.load(), 3u) << threads << " thread(s)";
  }
}

}  // namespace
}  // namespace sp
