// result_stream.h — results.jsonl, the record of a run.
//
// One JSON object per line, one line per result, written and flushed as
// each result is known, so a killed run keeps everything it finished.
// Every report (report.json, junit.xml, report.md) is rebuilt from this
// file alone (`scatterproof report DIR`). The record itself
// (ResultRecord) is the harness's (harness/result_record.h).
//
// Thread-safety: ResultStream::write may be called from several threads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/result_record.h"

namespace sp {

nlohmann::json record_to_json(const ResultRecord& r);
// The parts of a record's JSON the HTML report embeds as they are.
nlohmann::json provenance_to_json(const Provenance& p);
nlohmann::json picture_to_json(const OutputPicture& p);
// Throws std::runtime_error naming the missing/ill-typed field.
ResultRecord record_from_json(const nlohmann::json& j);

class ResultStream {
 public:
  // Creates/truncates `path`; throws std::runtime_error when it cannot.
  explicit ResultStream(const std::string& path);
  ~ResultStream();
  ResultStream(const ResultStream&) = delete;
  ResultStream& operator=(const ResultStream&) = delete;

  void write(const ResultRecord& r);

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string path_;
};

// The run record, DIR/run.json beside results.jsonl (written when a run
// opens its report directory; `scatterproof report DIR` leaves it as it is):
//   {"format": "scatterproof-run/1", "tool_version": "0.1.0",
//    "commit": "f5a7ff6-dirty" | "unknown commit", "started_at": "2026-11-26T04:55:30Z",
//    "machine": {"hostname": ..., "os": "Linux 6.1.0-28-amd64 x86_64",
//                "distribution": "Debian GNU/Linux 12 (bookworm)", "cpu_count": 16}}
// tool_version and commit are harness/build_info.h's; the backends'
// framework versions are in each result (backend_version, framework).
nlohmann::json run_record_json();
// Written under a temporary name and renamed into place; throws
// std::runtime_error naming the path when it cannot.
void write_run_record(const std::string& path, const nlohmann::json& record);
// The record at `path`, or nullopt when it is missing or not a JSON object
// (a report directory from an older scatterproof).
std::optional<nlohmann::json> read_run_record(const std::string& path);

// Reads results.jsonl a record at a time, with each record's byte offset;
// throws std::runtime_error "PATH:LINE: problem". A truncated last line (a
// run killed mid-write) is skipped.
void for_each_result_at(const std::string& path, const std::function<void(const ResultRecord&, uint64_t)>& fn);
// All of them at once (tests, small callers; the reports stream).
std::vector<ResultRecord> read_results(const std::string& path);

}  // namespace sp
