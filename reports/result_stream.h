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

// Reads results.jsonl a record at a time, with each record's byte offset;
// throws std::runtime_error "PATH:LINE: problem". A truncated last line (a
// run killed mid-write) is skipped.
void for_each_result_at(const std::string& path, const std::function<void(const ResultRecord&, uint64_t)>& fn);
// All of them at once (tests, small callers; the reports stream).
std::vector<ResultRecord> read_results(const std::string& path);

}  // namespace sp
