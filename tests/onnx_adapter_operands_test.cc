// onnx_adapter_operands_test.cc — the ONNX adapters (adapters/onnxruntime_adapter.py,
// adapters/onnx_reference_adapter.py, through their registered backends
// onnxruntime and onnx-reference) return every operand's storage after each
// call, result or error (PROTOCOL.md "Operands after the call"), so their
// verdicts check side effects instead of saying "side effects not
// observable". And what they return is the arrays the runtime was fed
// (adapters/onnx_model.py tracks them), not copies of the request: over a
// runtime that writes into its input after running
// (tests/data/process/onnx_writing_adapter.py) the verdict is "input
// modified", on a result and on an error alike.
//
// The adapters run in .venv-current (onnx, onnxruntime). Where that
// environment is missing or its framework cannot be imported, the tests
// fail with the adapter's own reason, as the adapter suites do (scripts/test
// sets .venv-current up; adapters/adapter_tests.cmake: never skipped).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "backends/process/supervisor.h"
#include "harness/comparator.h"
#include "harness/run_judge.h"
#include "reference/reference.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using namespace sp::test;  // NOLINT(google-build-using-namespace)

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kPython = sp::test::source_dir() + "/.venv-current/bin/python";

std::string adapter_script(const std::string& backend) {
  return sp::test::source_dir() + "/adapters/" +
         (backend == "onnxruntime" ? "onnxruntime_adapter.py" : "onnx_reference_adapter.py");
}
const std::string kWritingAdapter = sp::test::source_dir() + "/tests/data/process/onnx_writing_adapter.py";

// Why a program cannot serve here, when the reason is its framework's
// absence (the tests are then skipped); "" when it starts. Any other
// failure to start is a test failure.
std::string missing_framework(const std::vector<std::string>& argv) {
  if (!std::filesystem::exists(kPython)) return "no Python environment at " + kPython + " (scripts/setup-python.sh)";
  SupervisorOptions options;
  options.argv = argv;
  options.start_timeout = std::chrono::milliseconds(60'000);
  const std::string why = Supervisor(options).start();
  if (why.empty()) return "";
  EXPECT_TRUE(contains(why, "cannot be imported")) << why;
  return why;
}

std::unique_ptr<Backend> backend_named(const std::string& name) {
  std::string why;
  BackendOptions options;
  options.timeout_s = 60;
  auto backend = make_backend(name, options, &why);
  EXPECT_TRUE(backend) << why;
  return backend;
}

// data.ScatterElements(indices, updates) on axis 0 of a 2x3 float32 data.
OpCall scatter_elements(Tensor indices) {
  return call_of(
      "onnx.ScatterElements",
      {{"data", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"indices", std::move(indices)}, {"updates", f32({1, 3}, {7, 8, 9})}},
      {{"axis", Arg::of_int(0)}});
}
OpCall valid_scatter() { return scatter_elements(i64({1, 3}, {1, 0, 1})); }
// Breaks only the bounds rule: the runtime raises its own error.
OpCall bounds_error_scatter() { return scatter_elements(i64({1, 3}, {1, 9, 1})); }
OpCall valid_gather() {
  return call_of("onnx.GatherElements",
                 {{"data", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"indices", i64({1, 3}, {1, 0, 1})}},
                 {{"axis", Arg::of_int(0)}});
}

Verdict through(Backend& backend, const OpCall& call) { return run_and_judge(backend, call, evaluate(call)).verdict; }

void every_verdict_checks_side_effects(Backend& backend) {
  for (const OpCall& call : {valid_scatter(), bounds_error_scatter(), valid_gather()}) {
    SCOPED_TRACE(call.op);
    const Verdict v = through(backend, call);
    EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
    EXPECT_FALSE(contains(v.detail, "not observable")) << v.detail;
  }
}

void a_write_into_a_fed_array_is_input_modified(Backend& backend) {
  const Verdict v = through(backend, valid_scatter());
  EXPECT_EQ(v.kind, Verdict::Kind::Fail) << v.detail;
  EXPECT_EQ(v.failure, Verdict::Failure::InputModified) << v.detail;
  EXPECT_TRUE(contains(v.detail, "input modified: operand updates was modified: element [0][0]")) << v.detail;
  // After the runtime's own error the fed arrays come back too.
  const Verdict e = through(backend, bounds_error_scatter());
  EXPECT_EQ(e.kind, Verdict::Kind::Fail) << e.detail;
  EXPECT_EQ(e.failure, Verdict::Failure::InputModified) << e.detail;
  // GatherElements has no updates: the write goes into data.
  const Verdict g = through(backend, valid_gather());
  EXPECT_EQ(g.failure, Verdict::Failure::InputModified) << g.detail;
  EXPECT_TRUE(contains(g.detail, "operand data was modified: element [0][0]")) << g.detail;
}

TEST(OnnxAdapterOperands, OnnxruntimeReturnsItsOperands) {
  if (const std::string why = missing_framework({kPython, adapter_script("onnxruntime")}); !why.empty()) FAIL() << why;
  auto backend = backend_named("onnxruntime");
  ASSERT_TRUE(backend);
  every_verdict_checks_side_effects(*backend);
}

TEST(OnnxAdapterOperands, OnnxReferenceReturnsItsOperands) {
  if (const std::string why = missing_framework({kPython, adapter_script("onnx-reference")}); !why.empty())
    FAIL() << why;
  auto backend = backend_named("onnx-reference");
  ASSERT_TRUE(backend);
  every_verdict_checks_side_effects(*backend);
}

TEST(OnnxAdapterOperands, OnnxruntimeWritingIntoItsInputIsSeen) {
  if (const std::string why = missing_framework({kPython, kWritingAdapter, "onnxruntime"}); !why.empty()) FAIL() << why;
  auto backend = backend_named("process:" + kPython + " " + kWritingAdapter + " onnxruntime");
  ASSERT_TRUE(backend);
  a_write_into_a_fed_array_is_input_modified(*backend);
}

TEST(OnnxAdapterOperands, OnnxReferenceWritingIntoItsInputIsSeen) {
  if (const std::string why = missing_framework({kPython, kWritingAdapter, "onnx-reference"}); !why.empty())
    FAIL() << why;
  auto backend = backend_named("process:" + kPython + " " + kWritingAdapter + " onnx-reference");
  ASSERT_TRUE(backend);
  a_write_into_a_fed_array_is_input_modified(*backend);
}

}  // namespace
}  // namespace sp
