// report_dir.h — a run's report directory (`--report-dir`, default
// reports-out/): the ResultSink behind `scatterproof run`.
//
//   open()   creates DIR, takes its lock (DIR/.scatterproof.lock, flock:
//            a second run into the same DIR fails at once with a usage
//            error naming the pid that holds it; the kernel drops the lock
//            when the holder exits, however it exits), checks that every
//            report file can be written (a path that is a directory, or a
//            read-only DIR, is a usage error naming it), and creates
//            DIR/results.jsonl (truncating an old one)
//   write()  appends the record to results.jsonl and flushes it, so a
//            killed run keeps every result it finished
//   close()  rebuilds report.json, junit.xml, report.md and report-full.md
//            from results.jsonl alone (as `scatterproof report DIR` does),
//            streaming it (ResultsFileSource), then drops the lock
//
// Thread-safety: the runner calls it serialized; one run per instance.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/result_record.h"
#include "harness/runner.h"
#include "reports/result_stream.h"

namespace sp {

// The exclusive lock on a report directory (flock on DIR/.scatterproof.lock),
// held while the object lives. `scatterproof run` and `scatterproof report`
// both take it.
class ReportDirLock {
 public:
  // The lock, or nullopt with `why` set ("DIR is in use by another
  // scatterproof (pid N)", or why the lock file cannot be made).
  static std::optional<ReportDirLock> acquire(const std::string& dir, std::string* why);
  ReportDirLock(ReportDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ReportDirLock& operator=(ReportDirLock&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~ReportDirLock();

 private:
  explicit ReportDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

class ReportDirSink final : public ResultSink {
 public:
  // `also` (may be empty) sees every record after it is on disk: the CLI's
  // progress lines.
  explicit ReportDirSink(std::string dir, std::function<void(const ResultRecord&)> also = {});

  // A directory that cannot be created or written, is locked by another
  // run, or holds a report path that is not a writable file: the run's
  // usage error (the returned message names the path).
  std::string open() override;
  void write(const ResultRecord& r) override;
  void close() override;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::function<void(const ResultRecord&)> also_;
  std::optional<ReportDirLock> lock_;
  std::optional<ResultStream> stream_;
};

// run_cases / run_specs (harness/runner.h) with their records in `report_dir`.
RunSummary run_cases_reported(const std::vector<Case>& cases, const std::vector<SpecError>& spec_errors,
                              const RunOptions& options, const std::string& report_dir,
                              std::function<void(const ResultRecord&)> also = {});
RunSummary run_specs_reported(const std::vector<std::string>& paths, const RunOptions& options,
                              const std::string& report_dir, std::function<void(const ResultRecord&)> also = {});

}  // namespace sp
