// scatterproof-reaper — runs one backend program so that nothing it starts
// outlives it (PROTOCOL.md, "Processes"). The supervisor (supervisor.h)
// spawns it in front of every adapter, plugin host or scatterproof-serve:
//
//   scatterproof-reaper LIFELINE_FD PROGRAM ARGS...
//
// It makes itself a child subreaper (PR_SET_CHILD_SUBREAPER: every orphan
// among the program's descendants, a double-forked or setsid() daemon
// included, is reparented to it instead of to init), forks and execs
// PROGRAM (which inherits stdin, stdout and stderr; the reaper keeps none of
// the protocol's pipes open, so the harness sees end of output when the
// program's side is gone), with PR_SET_PDEATHSIG SIGKILL so the program
// cannot outlive the reaper.
//
// It stops -- SIGKILLs every descendant it can find (the process tree under
// it in /proc, repeatedly, until it has no child left) and reaps them all --
// when
//   * the program exits or is killed: then it exits the same way, with the
//     program's exit status, or by raising the program's fatal signal on
//     itself (no core file), so crash reports read as if there were no reaper;
//   * SIGTERM, SIGINT, SIGHUP or SIGQUIT arrives (the supervisor's stop on a
//     timeout, a restart or the end of a run);
//   * LIFELINE_FD, the read end of a pipe whose write end only the harness
//     holds, reports end of file: the harness is gone, however it ended
//     (SIGKILL included). A pipe rather than PR_SET_PDEATHSIG for the reaper
//     itself: the parent-death signal fires when the *thread* that spawned
//     the reaper exits, and the harness may create backends on one thread and
//     use them on another.
//
// Exit codes of its own: 2 bad command line, 127 PROGRAM cannot be started
// (with the reason on stderr), 128+N after a stop by signal N.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace {

constexpr const char* kProgram = "scatterproof-reaper";

// Every live descendant of this process, found through /proc/*/stat (whose
// fourth field is the parent's pid).
std::vector<pid_t> descendants() {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* proc = opendir("/proc")) {
    while (const dirent* entry = readdir(proc)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (pid <= 0 || *end != '\0') continue;
      char path[64];
      std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char text[512];
      const ssize_t n = read(fd, text, sizeof text - 1);
      close(fd);
      if (n <= 0) continue;
      text[n] = '\0';
      // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
      const char* close_paren = std::strrchr(text, ')');
      char state = 0;
      long ppid = 0;
      if (!close_paren || std::sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) continue;
      children.emplace(static_cast<pid_t>(ppid), static_cast<pid_t>(pid));
    }
    closedir(proc);
  }
  std::vector<pid_t> out;
  std::vector<pid_t> frontier{getpid()};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      out.push_back(it->second);
      frontier.push_back(it->second);
    }
  }
  return out;
}

// SIGKILLs every descendant and reaps every child until none is left;
// records the program's wait status if it is reaped here.
void kill_everything(pid_t program, int* program_status, bool* program_reaped) {
  for (;;) {
    for (const pid_t pid : descendants()) kill(pid, SIGKILL);
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      return;  // ECHILD: no child left, so no descendant either
    }
    do {
      if (pid == program) *program_status = status, *program_reaped = true;
    } while ((pid = waitpid(-1, &status, WNOHANG)) > 0);
  }
}

// Ends this process the way the program ended.
[[noreturn]] void exit_like(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    // The program dumped its own core if it was to; the reaper must not.
    prctl(PR_SET_DUMPABLE, 0);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t just;
    sigemptyset(&just);
    sigaddset(&just, sig);
    sigprocmask(SIG_UNBLOCK, &just, nullptr);
    raise(sig);
    _exit(128 + sig);  // a signal whose default action is not to terminate
  }
  _exit(125);
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long lifeline = argc >= 3 ? std::strtol(argv[1], &end, 10) : -1;
  if (argc < 3 || lifeline < 0 || *end != '\0') {
    std::fprintf(stderr, "usage: %s LIFELINE_FD PROGRAM [ARGS...]\n", kProgram);
    return 2;
  }
  const int lifeline_fd = static_cast<int>(lifeline);
  fcntl(lifeline_fd, F_SETFD, FD_CLOEXEC);  // the program must not hold the harness's lifeline
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  sigset_t handled, previous;
  sigemptyset(&handled);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&handled, sig);
  sigprocmask(SIG_BLOCK, &handled, &previous);
  const int signals = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  // stderr may be a pipe whose reader is gone: a write must not kill the reaper.
  signal(SIGPIPE, SIG_IGN);

  const pid_t self = getpid();
  const pid_t program = fork();
  if (program < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", kProgram, std::strerror(errno));
    return 127;
  }
  if (program == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != self) _exit(127);  // the reaper died before the line above
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    execvp(argv[2], argv + 2);
    std::fprintf(stderr, "%s: cannot start '%s': %s\n", kProgram, argv[2], std::strerror(errno));
    _exit(127);
  }
  // The protocol's pipes belong to the program alone.
  if (const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC); null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    close(null_fd);
  }
  if (signals < 0) {
    // Cannot wait for signals: stay only as the program's parent.
    int status = 0;
    while (waitpid(program, &status, 0) < 0 && errno == EINTR) {
    }
    exit_like(status);
  }

  int program_status = 0;
  bool program_reaped = false;
  int stop_signal = 0;
  while (!program_reaped && !stop_signal) {
    pollfd fds[2] = {{signals, POLLIN, 0}, {lifeline_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      stop_signal = SIGTERM;
      break;
    }
    if (fds[1].revents) {  // end of file (or anything else): the harness is gone
      stop_signal = SIGHUP;
      break;
    }
    if (fds[0].revents) {
      signalfd_siginfo info{};
      while (read(signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (info.ssi_signo != SIGCHLD) stop_signal = static_cast<int>(info.ssi_signo);
        int status = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
          if (pid == program) program_status = status, program_reaped = true;
        if (stop_signal || program_reaped) break;
      }
    }
  }
  kill_everything(program, &program_status, &program_reaped);
  if (stop_signal) _exit(128 + stop_signal);
  exit_like(program_status);
}
