#include "backends/process/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "backends/common/resource_paths.h"
#include "backends/process/protocol.h"
#include "reference/op_table.h"

extern char** environ;

namespace sp {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a child asked to leave ("bye" at the end of a run) gets, and how
// long the reaper gets to kill and reap the command's descendants before it
// is SIGKILLed (kExitGrace and kStderrGrace: supervisor.h).
constexpr milliseconds kByeGrace{1000};
constexpr milliseconds kStopGrace{1000};
constexpr milliseconds kDefaultCaseTimeout{10'000};
constexpr const char* kReaperName = "scatterproof-reaper";
// The reaper's end of the lifeline pipe.
constexpr int kLifelineFd = 3;

// Whether `pid` (our child) has exited, waiting up to `grace`; leaves it
// unreaped (a zombie's pid and process group cannot be reused, so killing
// them afterwards cannot hit a stranger).
bool exited_within(pid_t pid, milliseconds grace) {
  const auto deadline = Clock::now() + grace;
  useconds_t pause = 1000;
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      return true;
    if (Clock::now() >= deadline) return false;
    ::usleep(pause);
    pause = std::min<useconds_t>(pause * 2, 10'000);
  }
}

// Where argv[0] would be found, as execvp would look it up; "" and errno
// set when nowhere.
std::string resolve_program(const std::string& name) {
  const auto runnable = [](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    if (S_ISDIR(st.st_mode)) {
      errno = EACCES;
      return false;
    }
    return ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return runnable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/bin:/usr/bin";
  int first_error = ENOENT;
  for (size_t start = 0; start <= dirs.size();) {
    const size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = colon > start ? dirs.substr(start, colon - start) : ".";
    if (runnable(dir + "/" + name)) return dir + "/" + name;
    if (errno != ENOENT && errno != ENOTDIR && first_error == ENOENT) first_error = errno;
    start = colon + 1;
  }
  errno = first_error;
  return {};
}

void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
  });
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

int poll_timeout_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
  }
  return "stopped with wait status " + std::to_string(status);
}

std::string shorten(const std::string& s, size_t limit) {
  return s.size() <= limit ? s : s.substr(0, limit) + "... (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace

std::chrono::milliseconds case_timeout_setting(double seconds) {
  const auto of = [](double s) {
    return milliseconds{std::max<int64_t>(1, static_cast<int64_t>(std::min(s, kMaxTimeoutSeconds) * 1000))};
  };
  if (seconds > 0) return of(seconds);
  const char* text = std::getenv("SCATTERPROOF_CASE_TIMEOUT_S");
  if (!text || !*text) return kDefaultCaseTimeout;
  char* end = nullptr;
  const double from_env = std::strtod(text, &end);
  if (*end != '\0' || !(from_env > 0)) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      std::fprintf(stderr, "scatterproof: ignoring SCATTERPROOF_CASE_TIMEOUT_S='%s' (not a positive number)\n", text);
    });
    return kDefaultCaseTimeout;
  }
  return of(from_env);
}

SupervisorOptions supervisor_options(std::vector<std::string> argv, std::chrono::milliseconds case_timeout) {
  SupervisorOptions options;
  options.argv = std::move(argv);
  options.case_timeout = case_timeout;
  options.start_timeout = case_timeout * kStartTimeoutFactor;
  return options;
}

std::string reaper_path() {
  // Beside the running executable (an installed tree), else this build's.
  return resources::helper_program(kReaperName, SP_REAPER_BUILD_PATH);
}

Supervisor::Supervisor(SupervisorOptions options) : options_(std::move(options)) {
  if (options_.argv.empty()) throw std::invalid_argument("supervisor needs a command line");
  ignore_sigpipe_once();
}

Supervisor::~Supervisor() {
  if (pid_ <= 0) return;
  if (trusted_ && stdin_fd_ >= 0) {
    static constexpr char kBye[] = "{\"type\":\"bye\"}\n";
    // Best effort: the pipe is empty between requests, so this never blocks.
    [[maybe_unused]] const ssize_t n = ::write(stdin_fd_, kBye, sizeof kBye - 1);
    ::close(stdin_fd_);
    stdin_fd_ = -1;
    reap_status(kByeGrace);
  }
  kill_and_reap();
}

std::string Supervisor::command_line() const {
  std::string out;
  for (const std::string& a : options_.argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

void Supervisor::spawn() {
  // An unknown command fails here, at once, as posix_spawnp would have.
  if (resolve_program(options_.argv.front()).empty())
    throw std::runtime_error("cannot start '" + command_line() + "': " + std::strerror(errno));
  static const std::string reaper = [] {
    std::string path = reaper_path();
    if (path.empty())
      std::fprintf(stderr,
                   "scatterproof: warning: no %s beside this program or in its build tree; a process backend's "
                   "descendants that leave its process group may outlive it\n",
                   kReaperName);
    return path;
  }();

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, life[2] = {-1, -1};
  const auto close_all = [&] {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], life[0], life[1]})
      if (fd >= 0) ::close(fd);
  };
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      (!reaper.empty() && pipe2(life, O_CLOEXEC) != 0)) {
    const std::string why = errno_text("pipe");
    close_all();
    throw std::runtime_error(why);
  }
  // The lifeline's read end goes to fd 3 last, after 0-2 are in place; if
  // it already is fd 3, move it (dup2 onto itself would keep close-on-exec).
  if (life[0] == kLifelineFd) {
    const int moved = fcntl(life[0], F_DUPFD_CLOEXEC, kLifelineFd + 1);
    ::close(life[0]);
    life[0] = moved;
    if (moved < 0) {
      const std::string why = errno_text("fcntl");
      close_all();
      throw std::runtime_error(why);
    }
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  if (life[0] >= 0) posix_spawn_file_actions_adddup2(&actions, life[0], kLifelineFd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills whatever the adapter started
  // too; default signal dispositions and an empty mask, so the harness's
  // ignored SIGPIPE does not leak into the child.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> words;
  if (!reaper.empty()) words = {reaper, std::to_string(kLifelineFd)};
  words.insert(words.end(), options_.argv.begin(), options_.argv.end());
  std::vector<char*> argv;
  for (std::string& a : words) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int* fd : {&in[0], &out[1], &err[1], &life[0]}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  if (rc != 0) {
    close_all();
    pid_ = -1;
    throw std::runtime_error("cannot start '" + command_line() + "'" + (reaper.empty() ? "" : " under " + reaper) +
                             ": " + std::strerror(rc));
  }
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  lifeline_fd_ = life[1];
  reaped_by_reaper_ = !reaper.empty();
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string().swap(stdout_buffer_);
  stdout_scanned_ = 0;
  stderr_ring_.clear();
  ++spawned_;
}

void Supervisor::close_pipes() {
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_, &lifeline_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

std::string Supervisor::reap_status(milliseconds grace) {
  if (pid_ <= 0) return "not running";
  if (!exited_within(pid_, grace)) return "";  // still running
  // The reaper killed and reaped every descendant before it exited; the
  // process group is killed too, for a command run without one.
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  close_pipes();
  trusted_ = false;
  return describe_wait_status(status);
}

void Supervisor::kill_and_reap() {
  if (pid_ <= 0) return;
  if (reaped_by_reaper_) {
    // Closing the lifeline and SIGTERM both tell the reaper to stop: it
    // SIGKILLs every descendant, reaps them and exits. Only if it has not
    // within the grace is it SIGKILLed itself.
    if (lifeline_fd_ >= 0) ::close(lifeline_fd_);
    lifeline_fd_ = -1;
    ::kill(pid_, SIGTERM);
    exited_within(pid_, kStopGrace);
  }
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  close_pipes();
  trusted_ = false;
}

void Supervisor::append_stderr(const char* data, size_t n) {
  stderr_ring_.append(data, n);
  if (stderr_ring_.size() > options_.stderr_tail_bytes)
    stderr_ring_.erase(0, stderr_ring_.size() - options_.stderr_tail_bytes);
}

std::string Supervisor::stderr_tail() const {
  return stderr_ring_.empty() ? std::string(" (stderr empty)") : "; stderr tail:\n" + stderr_ring_;
}

Supervisor::Exchange Supervisor::exchange(const std::string& request_line, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  size_t written = 0;
  char chunk[65536];
  for (;;) {
    // Only the bytes not looked at yet are searched: reading a line is
    // linear in its length.
    const size_t newline = stdout_buffer_.find('\n', stdout_scanned_);
    if (newline != std::string::npos && newline <= options_.max_line_bytes) {
      Exchange ex{Exchange::Kind::Line, {}};
      if (newline + 1 == stdout_buffer_.size()) {  // the usual case: take the buffer, copy nothing
        ex.line = std::move(stdout_buffer_);
        ex.line.pop_back();
        stdout_buffer_.clear();
      } else {
        ex.line = stdout_buffer_.substr(0, newline);
        stdout_buffer_.erase(0, newline + 1);
      }
      stdout_scanned_ = 0;
      return ex;
    }
    stdout_scanned_ = stdout_buffer_.size();
    if (stdout_buffer_.size() > options_.max_line_bytes) {
      std::string().swap(stdout_buffer_);
      stdout_scanned_ = 0;
      return {Exchange::Kind::Overflow, {}};
    }
    if (Clock::now() >= deadline) return {Exchange::Kind::TimedOut, {}};
    if (options_.stop && options_.stop->load() != 0) return {Exchange::Kind::Interrupted, {}};

    pollfd fds[3];
    nfds_t n = 0;
    const nfds_t out_slot = n;
    fds[n++] = {stdout_fd_, POLLIN, 0};
    const nfds_t err_slot = stderr_fd_ >= 0 ? n : 3;
    if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
    const bool writing = stdin_fd_ >= 0 && written < request_line.size();
    const nfds_t in_slot = writing ? n : 3;
    if (writing) fds[n++] = {stdin_fd_, POLLOUT, 0};
    const int wait_ms = options_.stop ? std::min(poll_timeout_ms(deadline), 100) : poll_timeout_ms(deadline);
    const int ready = ::poll(fds, n, wait_ms);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(errno_text("poll"));
    if (ready <= 0) continue;

    if (in_slot < n && fds[in_slot].revents) {
      const ssize_t w = ::write(stdin_fd_, request_line.data() + written, request_line.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      // EPIPE: the child is gone; its stdout EOF reports that below.
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        ::close(stdin_fd_);
        stdin_fd_ = -1;
      }
    }
    if (err_slot < n && fds[err_slot].revents) {
      const ssize_t r = ::read(stderr_fd_, chunk, sizeof chunk);
      if (r > 0) append_stderr(chunk, static_cast<size_t>(r));
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        ::close(stderr_fd_);
        stderr_fd_ = -1;
      }
    }
    if (fds[out_slot].revents) {
      const ssize_t r = ::read(stdout_fd_, chunk, sizeof chunk);
      if (r > 0) {
        // Geometric growth, but never past what the cap can need.
        const size_t need = stdout_buffer_.size() + static_cast<size_t>(r);
        if (need > stdout_buffer_.capacity())
          stdout_buffer_.reserve(
              std::max(need, std::min(2 * stdout_buffer_.capacity(), options_.max_line_bytes + sizeof chunk)));
        stdout_buffer_.append(chunk, static_cast<size_t>(r));
      }
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        // The child's last stderr lines usually say why it died.
        const auto until = Clock::now() + kStderrGrace;
        while (stderr_fd_ >= 0) {
          pollfd e{stderr_fd_, POLLIN, 0};
          if (::poll(&e, 1, poll_timeout_ms(until)) <= 0) break;
          const ssize_t er = ::read(stderr_fd_, chunk, sizeof chunk);
          if (er <= 0) break;
          append_stderr(chunk, static_cast<size_t>(er));
        }
        return {Exchange::Kind::Died, {}};
      }
    }
  }
}

void Supervisor::prespawn() {
  kill_and_reap();
  prespawned_ = false;
  try {
    spawn();
    prespawned_ = true;
  } catch (const std::exception&) {
    // start() spawns again and reports why it cannot.
  }
}

void Supervisor::drain_stderr(milliseconds grace) {
  const auto until = Clock::now() + grace;
  char chunk[65536];
  while (stderr_fd_ >= 0) {
    pollfd e{stderr_fd_, POLLIN, 0};
    if (::poll(&e, 1, poll_timeout_ms(until)) <= 0) break;
    const ssize_t r = ::read(stderr_fd_, chunk, sizeof chunk);
    if (r <= 0) break;
    append_stderr(chunk, static_cast<size_t>(r));
  }
}

std::string Supervisor::start() {
  if (pid_ > 0 && trusted_) return "";
  if (!(pid_ > 0 && prespawned_)) {  // a prespawned child only needs its handshake
    kill_and_reap();
    try {
      spawn();
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  prespawned_ = false;
  // "operands": the harness asks for every operand's storage after each call
  // (PROTOCOL.md "Operands after the call"); a program may decline.
  const std::string hello =
      nlohmann::json{{"type", "hello"}, {"protocol", protocol::kVersion}, {"operands", true}}.dump() + "\n";
  const Exchange ex = exchange(hello, options_.start_timeout);
  std::string failure;
  switch (ex.kind) {
    case Exchange::Kind::TimedOut:
      failure = "no handshake within " + std::to_string(options_.start_timeout.count()) + " ms";
      break;
    case Exchange::Kind::Died: {
      std::string status = reap_status(kExitGrace);
      failure = "exited during the handshake: " + (status.empty() ? "closed its stdout" : status);
      break;
    }
    case Exchange::Kind::Overflow:
      failure = "handshake line exceeds the size limit";
      break;
    case Exchange::Kind::Interrupted:
      failure = "interrupted: the run was asked to stop";
      break;
    case Exchange::Kind::Line: {
      nlohmann::json j;
      try {
        j = protocol::parse_line(ex.line);
      } catch (const protocol::ProtocolError& e) {
        failure = std::string("answered the handshake with a line that ") + e.what();
        break;
      }
      if (j.is_object() && j.value("type", "") == "unavailable" && j.contains("reason") && j["reason"].is_string()) {
        failure = "unavailable: " + j["reason"].get<std::string>();
      } else if (!j.is_object() || j.value("type", "") != "hello") {
        failure = "answered the handshake with something else than hello: " + shorten(ex.line, 200);
      } else if (!j.contains("protocol") || j["protocol"] != protocol::kVersion) {
        failure = "speaks protocol " + (j.contains("protocol") ? j["protocol"].dump() : std::string("(none)")) +
                  ", the harness speaks " + std::to_string(protocol::kVersion);
      } else {
        try {
          info_ = protocol::decode_hello(j);
        } catch (const protocol::ProtocolError& e) {
          failure = std::string("answered the handshake with a malformed hello: ") + e.what();
          break;
        }
        trusted_ = true;
        consecutive_start_failures_ = 0;
        return "";
      }
      break;
    }
  }
  kill_and_reap();
  last_start_error_ =
      "'" + command_line() + "' " + failure + (failure.rfind("unavailable", 0) == 0 ? "" : stderr_tail());
  ++consecutive_start_failures_;
  return last_start_error_;
}

}  // namespace sp
