// supervisor.h — runs an untrusted backend in a child process and keeps the
// harness alive whatever the child does.
//
// The child is started with posix_spawn (never a bare fork: the harness may
// have CUDA loaded, which does not survive fork), in its own process group,
// with three pipes: stdin/stdout carry the line protocol of protocol.h,
// stderr is drained into a bounded tail kept for crash reports. One thread
// drives everything through poll(), so a child that blocks on a full stderr
// pipe while the harness writes a large request cannot deadlock the two.
//
// The child is scatterproof-reaper (reaper_main.cc) running the command: a
// child subreaper that kills and reaps every descendant of the command
// (setsid() and double-forked ones included) when the command ends, when the
// supervisor stops it, or when the harness dies however it dies (a lifeline
// pipe only the harness holds). It relays the command's exit status or
// signal, so reports read the same. Without the reaper binary (neither
// beside the running executable nor in this build tree) the command runs
// directly, protected by its process group only, and a warning says so.
//
// Per request the supervisor turns every misbehaviour into an Outcome:
//   child exits or is killed      -> Crash (exit status or signal, stderr tail)
//   no answer before the deadline -> Timeout (every descendant is killed and reaped)
//   garbage, wrong id, extra output, a line beyond the size cap or deeper
//   than the nesting limit (protocol.h, "Limits")
//                                 -> HarnessError (the child broke the protocol)
//   an error whose text says "device-side assert triggered", or an exit
//   with a kernel's assert text ("File.cu:163: ... Assertion `...` failed.")
//   on stderr                     -> DeviceAssert (the kernel's file:line first)
// and after any of them the child is restarted before the next request (an
// error naming any other "CUDA error: " too: the device context is gone).
// No call blocks without a deadline; every wait is bounded by the one
// timeout setting (case_timeout_setting below; PROTOCOL.md, "Timeouts");
// no zombie is left behind (the child is always reaped); SIGPIPE is ignored
// process-wide so a dead child's pipe gives EPIPE instead of killing the
// harness. A line is read in linear time and never buffered past the cap.
//
// Thread-safety: one thread at a time per Supervisor (like a Backend).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/process/protocol.h"

namespace sp {

// The handshake's budget is this many times the case timeout (importing a
// framework such as MindSpore takes seconds).
inline constexpr int kStartTimeoutFactor = 3;

struct SupervisorOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH
  // Time for the child to start and answer the handshake
  // (kStartTimeoutFactor x case_timeout under supervisor_options()).
  std::chrono::milliseconds start_timeout{30'000};
  std::chrono::milliseconds case_timeout{10'000};  // per request
  size_t stderr_tail_bytes = 8 * 1024;
  // After this many consecutive failed starts, requests fail at once with
  // the last start error instead of paying start_timeout for every case: a
  // backend that hangs on every start costs at most this many start_timeouts.
  int max_consecutive_start_failures = 2;
  // A response line longer than this is refused unread (protocol.h).
  size_t max_line_bytes = protocol::kMaxLineBytes;
  // When set and non-zero, a wait is abandoned within 100 ms (the child
  // killed): BackendOptions::stop.
  const std::atomic<int>* stop = nullptr;
};

// The one timeout setting of out-of-process backends (PROTOCOL.md,
// "Timeouts"): `seconds` when > 0 (BackendOptions::timeout_s, the CLI's
// --timeout), else the environment's SCATTERPROOF_CASE_TIMEOUT_S (ignored,
// with a warning on stderr, unless a positive number), else 10 s. At most
// kMaxTimeoutSeconds.
inline constexpr double kMaxTimeoutSeconds = 1e6;
std::chrono::milliseconds case_timeout_setting(double seconds);
// Options for running `argv` under that setting: case_timeout = it,
// start_timeout = kStartTimeoutFactor x it.
SupervisorOptions supervisor_options(std::vector<std::string> argv, std::chrono::milliseconds case_timeout);

// The scatterproof-reaper this process uses: beside the running executable
// (an installed tree), else the one of this build tree; empty if neither.
std::string reaper_path();

// What the child said in its handshake.
using AdapterInfo = protocol::Hello;

class Supervisor {
 public:
  explicit Supervisor(SupervisorOptions options);
  // Asks the child to exit ("bye", up to 1 s), then stops it: every
  // descendant killed and reaped, in about 1 s more at worst.
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts the child (if not running) and performs the handshake. Returns
  // an empty string on success, else why the backend is unavailable (the
  // child could not be spawned, answered "unavailable", spoke another
  // protocol version, crashed or timed out).
  std::string start();
  // The handshake of the running (or last started) child.
  const AdapterInfo& info() const { return info_; }

  // Sends one request and waits for its answer (restarting the child first
  // if a previous request left it dead or untrusted).
  Outcome call(const OpCall& call);
  // Sends one "program" request (PROTOCOL.md "Programs": a child whose hello
  // says "programs": true) and waits up to `timeout` for its answer: the
  // compared tensors, in order.
  Outcome call_program(const Program& program, std::chrono::milliseconds timeout);

  // Spawns a child now (stopping any running one) without the handshake:
  // its framework imports while nothing waits for it, and the next start()
  // only performs the handshake. What a warm standby is (ProcessBackend):
  // a lost child costs a handshake instead of a framework import.
  void prespawn();
  // Whether the next call restarts the child (it died, was killed or
  // broke the protocol, or its device context is lost).
  bool needs_restart() const { return pid_ <= 0 || !trusted_; }

  // Children started after the first one (for tests and reports).
  int restarts() const { return spawned_ > 0 ? spawned_ - 1 : 0; }
  // The child: the reaper running the command (or the command without one).
  pid_t child_pid() const { return pid_; }
  std::string command_line() const;

 private:
  // The result of one write-then-read-a-line exchange.
  struct Exchange {
    enum class Kind { Line, Died, TimedOut, Overflow, Interrupted } kind;
    std::string line;  // Kind::Line
  };
  // How long a child that closed its stdout gets to finish exiting before it
  // is killed, and how long its last stderr words are waited for.
  static constexpr std::chrono::milliseconds kExitGrace{2000};
  static constexpr std::chrono::milliseconds kStderrGrace{200};
  Exchange exchange(const std::string& request_line, std::chrono::milliseconds timeout);
  Outcome take_answer(std::string line, const OpCall& call, uint64_t id);
  // The child ready for a request (restarted if untrusted), else the outcome that says why not.
  std::optional<Outcome> ready();
  // Sends `request` and waits; `take` turns the answer line into the outcome.
  Outcome request(const nlohmann::json& request, uint64_t id, std::chrono::milliseconds timeout,
                  const std::function<Outcome(std::string)>& take);
  void spawn();
  void kill_and_reap();  // stops the child and every descendant, bounded
  // "exited with status 3" / "killed by signal 11 (...)"; "" if the child
  // is still running after `grace`.
  std::string reap_status(std::chrono::milliseconds grace);
  void append_stderr(const char* data, size_t n);
  std::string stderr_tail() const;
  void drain_stderr(std::chrono::milliseconds grace);  // reads what the child wrote to stderr, bounded
  void close_pipes();

  SupervisorOptions options_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int lifeline_fd_ = -1;           // write end of the reaper's lifeline; closing it stops the reaper
  bool reaped_by_reaper_ = false;  // the child is scatterproof-reaper
  std::string stdout_buffer_;      // bytes read past the last complete line
  size_t stdout_scanned_ = 0;      // bytes of stdout_buffer_ known to hold no '\n'
  std::string stderr_ring_;
  bool trusted_ = false;  // handshake done and no misbehaviour since
  AdapterInfo info_;
  uint64_t next_id_ = 1;
  int spawned_ = 0;
  bool prespawned_ = false;  // pid_ is a child spawned by prespawn(), not yet greeted
  int consecutive_start_failures_ = 0;
  std::string last_start_error_;
};

}  // namespace sp
