// Crash isolation: an adapter that aborts, segfaults, exits, hangs, is slow,
// writes garbage, answers the wrong request or talks too much costs exactly
// the case it misbehaves on; it is restarted and the next case passes.
// tests/data/process/misbehaving_adapter.py misbehaves on requests with dim 1.
// Also: what adapters/common.py hands an adapter's run() (args_echo_adapter.py), and
// adapters/manifest.json against the registered backends.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "backends/backend.h"
#include "backends/process/protocol.h"
#include "backends/process/supervisor.h"
#include "tests/test_paths.h"

namespace sp {
namespace {

using namespace std::chrono_literals;

const std::string kAdapter = sp::test::source_dir() + "/tests/data/process/misbehaving_adapter.py";

SupervisorOptions options_for(const std::string& mode, std::chrono::milliseconds case_timeout = 5000ms) {
  SupervisorOptions o;
  o.argv = {"python3", kAdapter, mode};
  o.start_timeout = 20'000ms;
  o.case_timeout = case_timeout;
  return o;
}

// torch.scatter on a 2x2 float32 self; dim 1 is the poisoned case.
OpCall scatter_case(int64_t dim) {
  OpCall call;
  call.op = "torch.scatter";
  call.set_arg("dim", Arg::of_int(dim));
  call.tensors.emplace("self", Tensor::zeros(DType::Float32, {2, 2}));
  call.tensors.emplace("index", Tensor::zeros(DType::Int64, {1, 2}));
  call.tensors.emplace("src", Tensor::zeros(DType::Float32, {1, 2}));
  return call;
}

bool reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == -1 && errno == ECHILD; }

struct Misbehaviour {
  std::string mode;
  Outcome::Kind kind;
  std::string message_part;  // in the outcome's message
};
// Test names and failure messages show the mode, not the struct's bytes.
void PrintTo(const Misbehaviour& m, std::ostream* os) { *os << m.mode; }

class ProcessIsolation : public testing::TestWithParam<Misbehaviour> {};

TEST_P(ProcessIsolation, CostsOneCaseThenTheRestartedChildServesTheNext) {
  const Misbehaviour& m = GetParam();
  Supervisor supervisor(options_for(m.mode, 1000ms));
  ASSERT_EQ(supervisor.start(), "");
  EXPECT_EQ(supervisor.call(scatter_case(0)).kind, Outcome::Kind::Outputs);
  const pid_t first = supervisor.child_pid();

  const Outcome bad = supervisor.call(scatter_case(1));
  EXPECT_EQ(bad.kind, m.kind) << outcome_kind_name(bad.kind) << ": " << bad.message;
  EXPECT_NE(bad.message.find(m.message_part), std::string::npos) << bad.message;

  const Outcome next = supervisor.call(scatter_case(0));
  EXPECT_EQ(next.kind, Outcome::Kind::Outputs) << next.message;
  EXPECT_EQ(supervisor.restarts(), 1);
  EXPECT_NE(supervisor.child_pid(), first);
  EXPECT_TRUE(reaped(first)) << "the misbehaving child " << first << " was left unreaped";
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ProcessIsolation,
    testing::Values(Misbehaviour{"abort", Outcome::Kind::Crash, "killed by signal 6"},
                    Misbehaviour{"segv", Outcome::Kind::Crash, "killed by signal 11"},
                    Misbehaviour{"exit", Outcome::Kind::Crash, "exited with status 3"},
                    Misbehaviour{"hang", Outcome::Kind::Timeout, "no answer within 1000 ms"},
                    Misbehaviour{"garbage", Outcome::Kind::HarnessError, "not JSON: this is not json"},
                    Misbehaviour{"wrong-id", Outcome::Kind::HarnessError, "answers request 1002 but request 2"},
                    // A CUDA kernel's assert (SEMANTICS.md DEV-A1): its own outcome, the kernel's file:line
                    // first, from the stderr the assert went to; the device context is lost, so the
                    // child is replaced (restarts() == 1 below) before the next case.
                    Misbehaviour{"device-assert", Outcome::Kind::DeviceAssert,
                                 "ScatterGatherKernel.cu:163: Assertion `idx_dim >= 0 && idx_dim < index_size && "
                                 "\"index out of bounds\"` failed (operator() block [0,0,0], thread [1,0,0]); "
                                 "RuntimeError: CUDA error: device-side assert triggered"},
                    Misbehaviour{"device-assert-exit", Outcome::Kind::DeviceAssert,
                                 "ScatterGatherKernel.cu:163: Assertion `idx_dim"},
                    // Another CUDA error: the answer as given, the child replaced all the same.
                    Misbehaviour{"cuda-error", Outcome::Kind::Error, "an illegal memory access"}),
    [](const testing::TestParamInfo<Misbehaviour>& info) {
      std::string name = info.param.mode;
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

TEST(ProcessIsolation, CrashReportCarriesTheStderrTail) {
  Supervisor supervisor(options_for("abort"));
  const Outcome bad = supervisor.call(scatter_case(1));
  EXPECT_EQ(bad.kind, Outcome::Kind::Crash);
  EXPECT_NE(bad.message.find("misbehaving adapter: doing abort on request"), std::string::npos) << bad.message;
}

TEST(ProcessIsolation, SlowAnswerWithinTheTimeoutPassesAndBeyondItTimesOut) {
  Supervisor patient(options_for("slow", 5000ms));
  EXPECT_EQ(patient.call(scatter_case(1)).kind, Outcome::Kind::Outputs);
  EXPECT_EQ(patient.restarts(), 0);

  Supervisor hasty(options_for("slow", 100ms));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(hasty.call(scatter_case(1)).kind, Outcome::Kind::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(hasty.call(scatter_case(0)).kind, Outcome::Kind::Outputs);
}

TEST(ProcessIsolation, ExtraOutputKeepsTheAnswerButRestartsTheChild) {
  Supervisor supervisor(options_for("extra"));
  EXPECT_EQ(supervisor.call(scatter_case(1)).kind, Outcome::Kind::Outputs);
  // The stray line is seen either before the next request goes out (the
  // child is restarted, the case is answered) or, when it arrives late, as
  // the answer to that request (an error for that case). Either way the
  // child is replaced and the case after it is served.
  const Outcome::Kind next = supervisor.call(scatter_case(0)).kind;
  EXPECT_TRUE(next == Outcome::Kind::Outputs || next == Outcome::Kind::HarnessError) << outcome_kind_name(next);
  EXPECT_EQ(supervisor.call(scatter_case(0)).kind, Outcome::Kind::Outputs);
  EXPECT_GE(supervisor.restarts(), 1);
}

TEST(ProcessIsolation, UnlistedOpIsUnsupportedWithoutAsking) {
  Supervisor supervisor(options_for("abort"));
  OpCall call = scatter_case(1);
  call.op = "torch.gather";
  const Outcome out = supervisor.call(call);
  EXPECT_EQ(out.kind, Outcome::Kind::Unsupported);
  EXPECT_NE(out.message.find("does not implement torch.gather"), std::string::npos) << out.message;
  EXPECT_EQ(supervisor.restarts(), 0);
}

TEST(ProcessIsolation, HandshakeFailuresExplainThemselves) {
  EXPECT_NE(Supervisor(options_for("bad-hello"))
                .start()
                .find("speaks protocol 99, the harness speaks " + std::to_string(protocol::kVersion)),
            std::string::npos);
  EXPECT_NE(Supervisor(options_for("unavailable")).start().find("unavailable: fakeframework is not installed"),
            std::string::npos);
  SupervisorOptions missing;
  missing.argv = {"/nonexistent/adapter"};
  EXPECT_NE(Supervisor(missing).start().find("cannot start '/nonexistent/adapter'"), std::string::npos);
}

TEST(ProcessIsolation, GivesUpAfterRepeatedStartFailures) {
  SupervisorOptions o = options_for("unavailable");
  o.max_consecutive_start_failures = 2;
  Supervisor supervisor(o);
  for (int i = 0; i < 3; ++i) {
    const Outcome out = supervisor.call(scatter_case(0));
    EXPECT_EQ(out.kind, Outcome::Kind::Crash);
    EXPECT_NE(out.message.find("fakeframework is not installed"), std::string::npos) << out.message;
  }
  EXPECT_EQ(supervisor.restarts(), 1);  // two starts, then no more
}

// adapters/common.py hands run() the args as Python values, whatever their
// names, and declines an argument an adapter did not declare for the op.
TEST(ProcessAdapters, CommonPassesEveryArgAsAPythonValueAndDeclinesUndeclaredOnes) {
  // common.py needs numpy: the adapters' venv (scripts/setup-python.sh), as
  // the real adapters run.
  const std::string venv_python = sp::test::source_dir() + "/.venv/bin/python";
  SupervisorOptions o;
  o.argv = {std::filesystem::exists(venv_python) ? venv_python : "python3",
            sp::test::source_dir() + "/tests/data/process/args_echo_adapter.py"};
  o.start_timeout = 20'000ms;
  o.case_timeout = 5000ms;
  Supervisor supervisor(o);
  ASSERT_EQ(supervisor.start(), "");

  OpCall scatter;
  scatter.op = "torch.scatter_";
  scatter.set_arg("dim", Arg::of_int(-1));
  scatter.set_arg("reduce", Arg::of_string("add"));
  scatter.set_arg("include_self", Arg::of_bool(false));  // not a scatter_ argument: common.py stays generic
  scatter.tensors.emplace("self", Tensor::zeros(DType::Float32, {2}));
  for (const auto& [value, shown] :
       {std::pair{Scalar::of_bool(true), "True"}, std::pair{Scalar::of_int(2), "2"},
        std::pair{Scalar::of_float(2.0), "2.0"}, std::pair{Scalar::of_float(NAN), "nan"}}) {
    scatter.set_arg("value", Arg::of_scalar(value));
    const Outcome out = supervisor.call(scatter);
    EXPECT_EQ(out.kind, Outcome::Kind::Unsupported);
    EXPECT_EQ(
        out.message,
        std::string("torch.scatter_ got {'dim': -1, 'include_self': False, 'reduce': 'add', 'value': ") + shown + "}");
  }

  OpCall gather;
  gather.op = "torch.gather";
  gather.set_arg("dim", Arg::of_int(0));
  EXPECT_EQ(supervisor.call(gather).message, "torch.gather got {'dim': 0}");
  gather.set_arg("sparse_grad", Arg::of_bool(true));
  const Outcome declined = supervisor.call(gather);
  EXPECT_EQ(declined.kind, Outcome::Kind::Unsupported);
  EXPECT_EQ(declined.message, "this adapter does not implement argument sparse_grad of torch.gather");
}

// adapters/manifest.json is the one list of adapters: each entry is a
// registered backend whose script exists, its summary naming its venv.
TEST(ProcessAdapters, EveryManifestEntryIsARegisteredBackendWithItsScript) {
  const std::string source = sp::test::source_dir();
  std::ifstream in(source + "/adapters/manifest.json");
  ASSERT_TRUE(in);
  const nlohmann::json manifest = nlohmann::json::parse(in);
  const std::vector<BackendInfo> registered = registered_backends();
  ASSERT_FALSE(manifest.at("adapters").empty());
  for (const nlohmann::json& entry : manifest.at("adapters")) {
    const std::string backend = entry.at("backend").get<std::string>();
    const std::string script = entry.at("script").get<std::string>();
    EXPECT_TRUE(std::filesystem::exists(source + "/adapters/" + script)) << script;
    auto it =
        std::find_if(registered.begin(), registered.end(), [&](const BackendInfo& b) { return b.name == backend; });
    ASSERT_NE(it, registered.end()) << backend << " is in the manifest but not registered";
    EXPECT_FALSE(it->in_process) << backend;
    EXPECT_NE(it->summary.find(entry.at("description").get<std::string>()), std::string::npos) << it->summary;
    // The script's "args" follow it, as the adapter is run (torch-compile-current-dynamic: --dynamic).
    std::string call = "adapters/" + script;
    for (const nlohmann::json& arg : entry.value("args", nlohmann::json::array())) call += " " + arg.get<std::string>();
    EXPECT_NE(it->summary.find(call + " ("), std::string::npos) << it->summary;
    // The venv whose interpreter runs it ("venv", default .venv) is named too.
    EXPECT_NE(it->summary.find("(" + entry.value("venv", std::string(".venv")) + ")"), std::string::npos)
        << it->summary;
  }
}

}  // namespace
}  // namespace sp
