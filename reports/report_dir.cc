// report_dir.cc — the report directory sink (report_dir.h).
#include "reports/report_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "reports/report_writers.h"

namespace sp {

ReportDirSink::ReportDirSink(std::string dir, std::function<void(const ResultRecord&)> also)
    : dir_(std::move(dir)), also_(std::move(also)) {}

std::optional<ReportDirLock> ReportDirLock::acquire(const std::string& dir, std::string* why) {
  const std::string path = dir + "/.scatterproof.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    *why = fmt::format("{}: cannot create the report directory's lock: {}; choose another --report-dir", path,
                       std::strerror(errno));
    return std::nullopt;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    std::string holder(pid, n > 0 ? static_cast<size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    *why = fmt::format("{} is in use by another scatterproof run{}; wait for it or choose another --report-dir", dir,
                       holder.empty() ? "" : " (pid " + holder + ")");
    ::close(fd);
    return std::nullopt;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The pid is only for the message another run prints: the lock holds without it.
  }
  return ReportDirLock(fd);
}

ReportDirLock::~ReportDirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

namespace {

// Why `path` cannot be a report file (a directory, a read-only place), or
// empty. An existing file is opened for appending, so nothing is lost.
std::string unwritable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fmt::format("{} is a directory, not a file; remove it or choose another --report-dir", path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("{}: cannot write: {}; choose another --report-dir", path, std::strerror(errno));
  ::close(fd);
  return {};
}

}  // namespace

std::string ReportDirSink::open() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return fmt::format("{}: cannot create report directory: {}; choose another --report-dir", dir_, ec.message());
  if (!std::filesystem::is_directory(dir_, ec))
    return fmt::format("{}: not a directory; choose another --report-dir", dir_);
  std::string why;
  lock_ = ReportDirLock::acquire(dir_, &why);
  if (!lock_) return why;
  for (const char* name : {"results.jsonl", "run.json", "report.json", "junit.xml", "report.md", "report-full.md"})
    if (std::string problem = unwritable(dir_ + "/" + name); !problem.empty()) {
      lock_.reset();
      return problem;
    }
  try {
    // Which scatterproof, from which commit, on which machine (result_stream.h).
    write_run_record(dir_ + "/run.json", run_record_json());
    stream_.emplace(dir_ + "/results.jsonl");
  } catch (const std::exception& e) {
    lock_.reset();
    return e.what();
  }
  return {};
}

void ReportDirSink::write(const ResultRecord& r) {
  stream_->write(r);
  if (also_) also_(r);
}

void ReportDirSink::close() {
  stream_.reset();
  write_reports(ResultsFileSource(dir_ + "/results.jsonl"), dir_);
  lock_.reset();
}

RunSummary run_cases_reported(const std::vector<Case>& cases, const std::vector<SpecError>& spec_errors,
                              const RunOptions& options, const std::string& report_dir,
                              std::function<void(const ResultRecord&)> also) {
  ReportDirSink sink(report_dir, std::move(also));
  return run_cases(cases, spec_errors, options, sink);
}

RunSummary run_specs_reported(const std::vector<std::string>& paths, const RunOptions& options,
                              const std::string& report_dir, std::function<void(const ResultRecord&)> also) {
  ReportDirSink sink(report_dir, std::move(also));
  return run_specs(paths, options, sink);
}

}  // namespace sp
