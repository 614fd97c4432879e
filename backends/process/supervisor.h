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
// Per request the supervisor turns every misbehaviour into an Outcome:
//   child exits or is killed      -> Crash (exit status or signal, stderr tail)
//   no answer before the deadline -> Timeout (the process group is SIGKILLed and reaped)
//   garbage, wrong id, extra output, a line beyond the size cap
//                                 -> HarnessError (the child broke the protocol)
// and after any of them the child is restarted before the next request.
// No call blocks without a deadline; no zombie is left behind (the child is
// always reaped); SIGPIPE is ignored process-wide so a dead child's pipe
// gives EPIPE instead of killing the harness.
//
// Thread-safety: one thread at a time per Supervisor (like a Backend).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/process/protocol.h"

namespace sp {

struct SupervisorOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH
  // Time for the child to start and answer the handshake (importing a
  // framework such as MindSpore takes seconds).
  std::chrono::milliseconds start_timeout{120'000};
  std::chrono::milliseconds case_timeout{10'000};  // per request
  size_t stderr_tail_bytes = 8 * 1024;
  // After this many consecutive failed starts, requests fail at once with
  // the last start error instead of paying start_timeout for every case.
  int max_consecutive_start_failures = 3;
};

// What the child said in its handshake.
using AdapterInfo = protocol::Hello;

class Supervisor {
 public:
  explicit Supervisor(SupervisorOptions options);
  ~Supervisor();  // asks the child to exit ("bye"), then kills and reaps it
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

  // Children started after the first one (for tests and reports).
  int restarts() const { return spawned_ > 0 ? spawned_ - 1 : 0; }
  pid_t child_pid() const { return pid_; }
  std::string command_line() const;

 private:
  struct Exchange;  // the result of one write-then-read-a-line exchange
  Exchange exchange(const std::string& request_line, std::chrono::milliseconds timeout);
  void spawn();
  void kill_and_reap();
  std::string reap_status(bool wait);  // "exited with status 3" / "killed by signal 11 (...)"
  void append_stderr(const char* data, size_t n);
  std::string stderr_tail() const;
  void close_pipes();

  SupervisorOptions options_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stdout_buffer_;  // bytes read past the last complete line
  std::string stderr_ring_;
  bool trusted_ = false;  // handshake done and no misbehaviour since
  AdapterInfo info_;
  uint64_t next_id_ = 1;
  int spawned_ = 0;
  int consecutive_start_failures_ = 0;
  std::string last_start_error_;
};

}  // namespace sp
