// report_dir.cc — the report directory sink (report_dir.h).
#include "reports/report_dir.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "reports/report_writers.h"

namespace sp {

ReportDirSink::ReportDirSink(std::string dir, std::function<void(const ResultRecord&)> also)
    : dir_(std::move(dir)), also_(std::move(also)) {}

std::string ReportDirSink::open() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return fmt::format("{}: cannot create report directory: {}", dir_, ec.message());
  stream_.emplace(dir_ + "/results.jsonl");
  return {};
}

void ReportDirSink::write(const ResultRecord& r) {
  stream_->write(r);
  if (also_) also_(r);
}

void ReportDirSink::close() {
  stream_.reset();
  write_reports(read_results(dir_ + "/results.jsonl"), dir_);
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
