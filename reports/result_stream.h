// result_stream.h — results.jsonl, the record of a run.
//
// One JSON object per line, one line per result, written and flushed as
// each result is known, so a killed run keeps everything it finished.
// Every report (report.json, junit.xml, report.md) is rebuilt from this
// file alone (`scatterproof report DIR`).
//
// Thread-safety: ResultStream::write may be called from several threads.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/case.h"
#include "harness/verdict.h"

namespace sp {

struct ResultRecord {
  std::string case_id;
  std::string file;
  std::string op;
  std::string backend;
  // "document": the reference against the case's documented expectation;
  // "differential": a backend against the reference; "load": the spec
  // input itself could not be loaded (backend "loader").
  std::string check;
  Verdict::Kind verdict = Verdict::Kind::Error;
  std::string detail;
  std::string expected;  // the reference's answer, summarized
  std::string outcome;   // what the backend (or document) said, summarized
  Provenance source;
  struct ErratumNote {
    std::string document;
    std::string claim;
    std::string reference_says;  // what the reference allows instead
  };
  std::optional<ErratumNote> erratum;
  std::vector<std::string> tags;
  double duration_ms = 0.0;
  std::string repro;  // a command line that reruns just this result
};

nlohmann::json record_to_json(const ResultRecord& r);
// Throws std::runtime_error naming the missing/ill-typed field.
ResultRecord record_from_json(const nlohmann::json& j);

// `scatterproof run --backend B --filter 'ID' FILE`, shell-quoted.
std::string repro_command(const std::string& backend, const std::string& case_id, const std::string& file);
std::string shell_quote(const std::string& s);

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

// Reads results.jsonl; throws std::runtime_error "PATH:LINE: problem". A
// truncated last line (a run killed mid-write) is skipped.
std::vector<ResultRecord> read_results(const std::string& path);

}  // namespace sp
