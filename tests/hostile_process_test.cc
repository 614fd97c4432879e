// hostile_process_test.cc — out-of-process backends that attack the harness
// (issue 15, items 4 and 5): protocol lines nested 16 MiB deep or longer
// than the cap, a correct answer at the storage cap (read in linear time),
// an adapter that hangs at every restart, and descendants that try to
// outlive their case (setsid(), a double fork, an adapter that ignores
// "bye" and SIGTERM). The adapters are Python scripts written by each test
// into a temporary directory. The end-to-end checks (the harness itself
// SIGKILLed or SIGTERMed mid-run) are in tests/hostile/check_process.py.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "backends/process/protocol.h"
#include "backends/process/supervisor.h"
#include "harness/spec_loader.h"

namespace sp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The common part of every hostile adapter: the handshake, "bye", and
// run_request(message) defined by each test's script body.
constexpr const char* kAdapterHead = R"PY(import base64, json, os, subprocess, sys, time
ARG = sys.argv[1] if len(sys.argv) > 1 else ""
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
def write_pids(*pids):
    with open(ARG + ".tmp", "w") as f:
        f.write(" ".join(str(p) for p in pids))
    os.rename(ARG + ".tmp", ARG)
)PY";
constexpr const char* kAdapterLoop = R"PY(
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        hello()
        send({"type": "hello", "protocol": 2, "name": "hostile", "version": "1", "ops": ["torch.scatter"]})
    elif message["type"] == "bye":
        break
    else:
        run_request(message)
)PY";

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "sp-hostile-process-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  // A Python adapter: `body` defines hello() and run_request(message).
  std::string adapter(const std::string& name, const std::string& body) const {
    const fs::path file = path_ / name;
    std::ofstream(file) << kAdapterHead << body << kAdapterLoop;
    return file.string();
  }

 private:
  fs::path path_;
};

OpCall scatter_case() {
  OpCall call;
  call.op = "torch.scatter";
  call.set_arg("dim", Arg::of_int(0));
  call.tensors.emplace("self", Tensor::zeros(DType::Float32, {2, 2}));
  call.tensors.emplace("index", Tensor::zeros(DType::Int64, {1, 2}));
  call.tensors.emplace("src", Tensor::zeros(DType::Float32, {1, 2}));
  return call;
}

SupervisorOptions options_for(const std::string& script, const std::string& arg, std::chrono::milliseconds timeout) {
  return supervisor_options({"python3", script, arg}, timeout);
}

// The pids a script wrote with write_pids(), waiting for the file.
std::vector<pid_t> read_pids(const fs::path& file, std::chrono::milliseconds within = 10s) {
  const auto deadline = Clock::now() + within;
  while (!fs::exists(file) && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  std::vector<pid_t> pids;
  std::ifstream in(file);
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// Whether `pid` has ended (no such process, or a zombie its new parent
// will reap), waiting up to `within`.
bool gone(pid_t pid, std::chrono::milliseconds within = 3s) {
  const auto deadline = Clock::now() + within;
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (text.empty() || (paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z')) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

// Leaves nothing running if a test fails half-way.
void kill_all(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids)
    if (pid > 0) ::kill(pid, SIGKILL);
}

// "VmHWM:" or "VmRSS:" of this process, in bytes.
size_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(field.size())) * 1024;
  return 0;
}

// Resets the peak-RSS mark (Linux >= 4.0); false where it cannot.
bool reset_peak_rss() { return static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5" << std::flush); }

// One call, and how far this process's peak RSS rose above its RSS before
// it (nullopt where the peak mark cannot be reset).
struct MeasuredCall {
  Outcome out;
  std::optional<size_t> growth;
};
MeasuredCall measured_call(Supervisor& supervisor) {
  const bool can_measure = reset_peak_rss();
  const size_t rss_before = status_bytes("VmRSS:");
  MeasuredCall result{supervisor.call(scatter_case()), std::nullopt};
  const size_t peak = status_bytes("VmHWM:");
  if (can_measure) result.growth = peak - std::min(peak, rss_before);
  return result;
}

// --- Item 5: no descendant outlives its case -------------------------------

TEST(HostileProcess, ASetsidGrandchildDiesWithItsTimedOutCase) {
  TempDir dir;
  const fs::path pids_file = dir.path() / "pids";
  const std::string script = dir.adapter("setsid.py", R"PY(
def hello(): pass
def run_request(message):
    child = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    write_pids(os.getpid(), child.pid)
    time.sleep(1000)
)PY");
  Supervisor supervisor(options_for(script, pids_file.string(), 1000ms));
  const Outcome out = supervisor.call(scatter_case());
  const std::vector<pid_t> pids = read_pids(pids_file);
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_EQ(out.kind, Outcome::Kind::Timeout) << out.message;
  EXPECT_TRUE(gone(pids[0])) << "the adapter " << pids[0] << " outlived its timeout";
  EXPECT_TRUE(gone(pids[1])) << "its setsid() grandchild " << pids[1] << " outlived the timeout";
  kill_all(pids);
}

TEST(HostileProcess, ADoubleForkedDaemonHoldingStdoutDiesWhenItsAdapterCrashes) {
  TempDir dir;
  const fs::path pids_file = dir.path() / "pids";
  // The daemon keeps the protocol's stdout open: without the reaper the
  // harness would see no end of output and report a timeout, not the crash.
  const std::string script = dir.adapter("daemon.py", R"PY(
def hello(): pass
def run_request(message):
    if os.fork() == 0:
        os.setsid()
        if os.fork() > 0:
            os._exit(0)
        write_pids(os.getpid())
        time.sleep(1000)
        os._exit(0)
    os.wait()
    while not os.path.exists(ARG):
        time.sleep(0.01)
    print("hostile adapter: exiting with a daemon behind", file=sys.stderr, flush=True)
    sys.exit(3)
)PY");
  Supervisor supervisor(options_for(script, pids_file.string(), 5000ms));
  const auto began = Clock::now();
  const Outcome out = supervisor.call(scatter_case());
  const std::vector<pid_t> pids = read_pids(pids_file);
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_EQ(out.kind, Outcome::Kind::Crash) << out.message;
  // The exit status and stderr come through the reaper as they were.
  EXPECT_NE(out.message.find("exited with status 3"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("exiting with a daemon behind"), std::string::npos) << out.message;
  EXPECT_LT(Clock::now() - began, 4s);
  EXPECT_TRUE(gone(pids[0])) << "the double-forked daemon " << pids[0] << " outlived its adapter";
  kill_all(pids);
}

TEST(HostileProcess, DestroyingTheSupervisorKillsEveryDescendantQuickly) {
  TempDir dir;
  const fs::path pids_file = dir.path() / "pids";
  // Ignores SIGTERM and "bye", with a setsid() grandchild that does too.
  const std::string script = dir.adapter("stubborn.py", R"PY(
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def hello():
    child = subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)"],
        start_new_session=True)
    write_pids(os.getpid(), child.pid)
def run_request(message):
    send({"type": "result", "id": message["id"], "outputs": [message["tensors"]["self"]]})
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        hello()
        send({"type": "hello", "protocol": 2, "name": "stubborn", "version": "1", "ops": []})
time.sleep(1000)
)PY");
  std::vector<pid_t> pids;
  Clock::time_point began;
  {
    Supervisor supervisor(options_for(script, pids_file.string(), 5000ms));
    ASSERT_EQ(supervisor.start(), "");
    pids = read_pids(pids_file);
    began = Clock::now();
  }
  EXPECT_LT(Clock::now() - began, 3s) << "destroying the supervisor took too long";
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_TRUE(gone(pids[0], 1s)) << "the adapter " << pids[0] << " outlived its supervisor";
  EXPECT_TRUE(gone(pids[1], 1s)) << "its setsid() grandchild " << pids[1] << " outlived the supervisor";
  kill_all(pids);
}

// --- Item 4: the peer's lines are bounded in depth, size and time ----------

TEST(HostileProcess, ALineNested16MiBDeepIsAProtocolViolationThatCostsOnlyItsBytes) {
  TempDir dir;
  const std::string script = dir.adapter("deep.py", R"PY(
def hello(): pass
def run_request(message):
    sys.stdout.write("[" * (16 << 20) + "\n")
    sys.stdout.flush()
)PY");
  Supervisor supervisor(options_for(script, "", 20'000ms));
  ASSERT_EQ(supervisor.start(), "");
  const auto [out, growth] = measured_call(supervisor);
  EXPECT_EQ(out.kind, Outcome::Kind::HarnessError) << out.message;
  EXPECT_NE(out.message.find("nests deeper than 64 levels"), std::string::npos) << out.message;
  // Parsed, the line would be 16 million nested arrays (over a gigabyte).
  if (growth) {
    EXPECT_LT(*growth, size_t{96} << 20) << "peak RSS grew too much";
  }
}

TEST(HostileProcess, ALineOverTheCapIsRefusedWithoutBufferingIt) {
  TempDir dir;
  // 256 MiB without a newline, against a cap of 1 MiB.
  const std::string script = dir.adapter("long.py", R"PY(
def hello(): pass
def run_request(message):
    chunk = "x" * (1 << 20)
    try:
        for _ in range(256):
            sys.stdout.write(chunk)
        sys.stdout.flush()
    except BrokenPipeError:
        os._exit(0)
    time.sleep(1000)
)PY");
  SupervisorOptions options = options_for(script, "", 20'000ms);
  options.max_line_bytes = size_t{1} << 20;
  Supervisor supervisor(options);
  ASSERT_EQ(supervisor.start(), "");
  const auto [out, growth] = measured_call(supervisor);
  EXPECT_EQ(out.kind, Outcome::Kind::HarnessError) << out.message;
  EXPECT_NE(out.message.find("response line over 1048576 bytes"), std::string::npos) << out.message;
  if (growth) {
    EXPECT_LT(*growth, size_t{16} << 20) << "peak RSS grew too much";
  }
}

TEST(HostileProcess, ACorrectAnswerAtTheStorageCapFits) {
  TempDir dir;
  // The answer is made before the handshake, so the call times the harness.
  const std::string script = dir.adapter("large.py", R"PY(
N = int(ARG)
STORAGE = base64.b64encode(bytes(N))
def hello(): pass
def run_request(message):
    sys.stdout.buffer.write(b'{"type":"result","id":%d,"outputs":[{"dtype":"uint8","shape":[%d],"strides":[1],'
                            b'"offset":0,"storage":"' % (message["id"], N) + STORAGE + b'"}]}\n')
    sys.stdout.flush()
)PY");
  Supervisor supervisor(options_for(script, std::to_string(protocol::kMaxStorageBytes), 10'000ms));
  ASSERT_EQ(supervisor.start(), "");
  const Outcome out = supervisor.call(scatter_case());
  ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << out.message.substr(0, 500);
  ASSERT_EQ(out.outputs.size(), 1u);
  EXPECT_EQ(out.outputs[0].storage()->size(), protocol::kMaxStorageBytes);
}

TEST(HostileProcess, ALineIsReadInLinearTime) {
  TempDir dir;
  // 256 MiB then a newline (not JSON), under a cap raised to let it in.
  const std::string script = dir.adapter("long_line.py", R"PY(
LINE = b"x" * (256 << 20) + b"\n"
def hello(): pass
def run_request(message):
    sys.stdout.buffer.write(LINE)
    sys.stdout.flush()
)PY");
  SupervisorOptions options = options_for(script, "", 30'000ms);
  options.max_line_bytes = size_t{512} << 20;
  Supervisor supervisor(options);
  ASSERT_EQ(supervisor.start(), "");
  const auto began = Clock::now();
  const Outcome out = supervisor.call(scatter_case());
  const auto took = Clock::now() - began;
  EXPECT_EQ(out.kind, Outcome::Kind::HarnessError) << out.message.substr(0, 500);
  EXPECT_NE(out.message.find("is not JSON: xxx"), std::string::npos) << out.message.substr(0, 500);
  // Searching the whole buffer for '\n' after every read took about 14 s.
  EXPECT_LT(took, 5s) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

// The protocol's caps follow the spec files' limits (protocol.h says why).
TEST(HostileProtocol, TheLineCapFitsEveryCorrectAnswerInsideTheSpecLimits) {
  EXPECT_EQ(protocol::kMaxJsonDepth, kMaxJsonDepth);
  EXPECT_GE(protocol::kMaxStorageBytes, 2 * static_cast<size_t>(kMaxCaseStorageBytes));
  EXPECT_GE(protocol::kMaxStorageBytes, 8 * static_cast<size_t>(kMaxCaseElements));
  // An answer also returns every operand's storage ("operands"): at most the case's.
  EXPECT_GE(protocol::kMaxOperandStorageBytes, static_cast<size_t>(kMaxCaseStorageBytes));
  EXPECT_GE(protocol::kMaxLineBytes,
            (protocol::kMaxStorageBytes + protocol::kMaxOperandStorageBytes + 2) / 3 * 4 + (size_t{1} << 20));
  EXPECT_EQ(protocol::kMaxLineBytes, 68'157'440u);  // as PROTOCOL.md "Limits" quotes it
}

// A huge case (specs/FORMAT.md "Huge cases") past the protocol's limits is
// unsupported with the reason before anything is sent: an adapter that
// would hang on any request is never asked.
TEST(HostileProtocol, ACallPastTheProtocolsLimitsIsDeclinedUnsent) {
  TempDir dir;
  const std::string script = dir.adapter("hangs.py", R"PY(
def hello(): pass
def run_request(message):
    time.sleep(1000)
)PY");
  BackendOptions options;
  options.timeout_s = 30;
  std::string why;
  std::unique_ptr<Backend> backend = make_backend("process:python3 " + script, options, &why);
  ASSERT_TRUE(backend) << why;
  OpCall big = scatter_case();
  big.tensors["self"] = Tensor::zeros(DType::Float32, {int64_t(protocol::kMaxOperandStorageBytes / 4), 2});
  const auto began = Clock::now();
  const Outcome out = backend->run(big);
  EXPECT_LT(Clock::now() - began, 5s);
  EXPECT_EQ(out.kind, Outcome::Kind::Unsupported) << out.message;
  EXPECT_NE(out.message.find("past the process protocol's 16777216"), std::string::npos) << out.message;
}

// --- Item 4: every wait under the one timeout setting ----------------------

TEST(HostileProcess, AnAdapterThatHangsAtEveryRestartCostsABoundedTime) {
  TempDir dir;
  const fs::path marker = dir.path() / "started";
  // Starts once; every later start hangs in the handshake; every case hangs.
  const std::string script = dir.adapter("restart_hang.py", R"PY(
def hello():
    if os.path.exists(ARG):
        time.sleep(1000)
    open(ARG, "w").close()
def run_request(message):
    time.sleep(1000)
)PY");
  BackendOptions options;
  options.timeout_s = 0.3;
  std::string why;
  const auto began = Clock::now();
  std::unique_ptr<Backend> backend = make_backend("process:python3 " + script + " " + marker.string(), options, &why);
  ASSERT_TRUE(backend) << why;
  std::vector<Outcome> outcomes;
  for (int i = 0; i < 6; ++i) outcomes.push_back(backend->run(scatter_case()));
  const auto took = Clock::now() - began;
  EXPECT_EQ(outcomes[0].kind, Outcome::Kind::Timeout) << outcomes[0].message;
  EXPECT_NE(outcomes[0].message.find("no answer within 300 ms"), std::string::npos) << outcomes[0].message;
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(outcomes[i].kind, Outcome::Kind::Crash) << outcomes[i].message;
    EXPECT_NE(outcomes[i].message.find("no handshake within 900 ms"), std::string::npos) << outcomes[i].message;
  }
  for (int i = 3; i < 6; ++i) {
    EXPECT_EQ(outcomes[i].kind, Outcome::Kind::Crash) << outcomes[i].message;
    EXPECT_NE(outcomes[i].message.find("gave up restarting after 2 failed starts"), std::string::npos)
        << outcomes[i].message;
  }
  // One case timeout and two start timeouts (0.3 + 2 x 0.9 s), plus the
  // Python starts; the later cases fail at once.
  EXPECT_LT(took, 6s) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

TEST(HostileProcess, TheTimeoutSettingIsTheOptionElseTheEnvironmentElseTenSeconds) {
  const char* saved = std::getenv("SCATTERPROOF_CASE_TIMEOUT_S");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("SCATTERPROOF_CASE_TIMEOUT_S");
  EXPECT_EQ(case_timeout_setting(0), 10'000ms);
  EXPECT_EQ(case_timeout_setting(2.5), 2'500ms);
  ::setenv("SCATTERPROOF_CASE_TIMEOUT_S", "4", 1);
  EXPECT_EQ(case_timeout_setting(0), 4'000ms);
  EXPECT_EQ(case_timeout_setting(0.25), 250ms);  // the option wins
  ::setenv("SCATTERPROOF_CASE_TIMEOUT_S", "soon", 1);
  EXPECT_EQ(case_timeout_setting(0), 10'000ms);
  EXPECT_EQ(case_timeout_setting(1e300), std::chrono::milliseconds{static_cast<int64_t>(kMaxTimeoutSeconds * 1000)});
  const SupervisorOptions o = supervisor_options({"x"}, 2'000ms);
  EXPECT_EQ(o.case_timeout, 2'000ms);
  EXPECT_EQ(o.start_timeout, 6'000ms);
  if (saved)
    ::setenv("SCATTERPROOF_CASE_TIMEOUT_S", saved_value.c_str(), 1);
  else
    ::unsetenv("SCATTERPROOF_CASE_TIMEOUT_S");
}

// --- The nesting limit on the raw text ---------------------------------------

TEST(HostileProtocol, NestingIsCountedOnTheRawTextOutsideStrings) {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_EQ(protocol::nesting_problem(nested(64)), "");
  EXPECT_EQ(protocol::nesting_problem(nested(65)), "nests deeper than 64 levels (at byte 64)");
  EXPECT_EQ(protocol::nesting_problem("{\"a\":" + nested(63) + "}"), "");
  // Brackets inside strings, escaped quotes and backslashes included, do not count.
  const std::string in_string = "\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\\\\\"";
  EXPECT_EQ(protocol::nesting_problem("[" + in_string + "]"), "");
  EXPECT_EQ(protocol::nesting_problem("[\"\\\\\"" + nested(64) + "]"), "nests deeper than 64 levels (at byte 68)");
  EXPECT_NO_THROW(protocol::parse_line("{\"type\":\"bye\"}"));
  EXPECT_THROW(protocol::parse_line(std::string(40 << 20, '[')), protocol::ProtocolError);
  try {
    protocol::parse_line("this is not json");
    ADD_FAILURE() << "no error";
  } catch (const protocol::ProtocolError& e) {
    EXPECT_STREQ(e.what(), "is not JSON: this is not json");
  }
}

}  // namespace
}  // namespace sp
