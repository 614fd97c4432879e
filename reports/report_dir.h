// report_dir.h — a run's report directory (`--report-dir`, default
// reports-out/): the ResultSink behind `scatterproof run`.
//
//   open()   creates DIR and DIR/results.jsonl (truncating an old one)
//   write()  appends the record to results.jsonl and flushes it, so a
//            killed run keeps every result it finished
//   close()  rebuilds report.json, junit.xml and report.md from
//            results.jsonl alone (as `scatterproof report DIR` does)
//
// Thread-safety: the runner calls it serialized; one run per instance.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/result_record.h"
#include "harness/runner.h"
#include "reports/result_stream.h"

namespace sp {

class ReportDirSink final : public ResultSink {
 public:
  // `also` (may be empty) sees every record after it is on disk: the CLI's
  // progress lines.
  explicit ReportDirSink(std::string dir, std::function<void(const ResultRecord&)> also = {});

  // A directory that cannot be created is the run's usage error; a
  // results.jsonl that cannot be created throws std::runtime_error.
  std::string open() override;
  void write(const ResultRecord& r) override;
  void close() override;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::function<void(const ResultRecord&)> also_;
  std::optional<ResultStream> stream_;
};

// run_cases / run_specs (harness/runner.h) with their records in `report_dir`.
RunSummary run_cases_reported(const std::vector<Case>& cases, const std::vector<SpecError>& spec_errors,
                              const RunOptions& options, const std::string& report_dir,
                              std::function<void(const ResultRecord&)> also = {});
RunSummary run_specs_reported(const std::vector<std::string>& paths, const RunOptions& options,
                              const std::string& report_dir, std::function<void(const ResultRecord&)> also = {});

}  // namespace sp
