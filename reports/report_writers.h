// report_writers.h — the human and CI views of a run, built from its
// records (as read back from results.jsonl).
//
//   report.json  summary counts per verdict and per column, every result
//   junit.xml    one <testsuite> per column, one <testcase> per result
//                (classname = op, name = case id); fail/xpass -> <failure>,
//                crash/timeout/error -> <error>, unsupported/xfail -> <skipped>
//   report.md    the summary a person reads in a minute, under 100 KB (a
//                GitHub job summary): backends and versions, the op x
//                column matrix of verdict counts (not_applicable as "n/a"),
//                the failures with their repro commands (a bounded share of
//                each op x column group, then how many more), unclassified
//                errors, expected failures, document errata, unsupported and
//                n/a results grouped by (backend, reason) with counts, the
//                sources
//   report-full.md  every result that did not pass, one by one with its
//                repro, column by column; n/a results grouped by reason
//
// A "column" is a backend, with the reference's document check shown as
// its own column "reference (document)".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "reports/result_stream.h"

namespace sp {

std::string result_column(const ResultRecord& r);

// Where the writers read records from: all of them in run order, or one
// column's in run order. Reports are written from a source in a few passes,
// never from every record held at once: over results.jsonl
// (ResultsFileSource, result_stream.h) memory is a byte offset per record.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual void for_each(const std::function<void(const ResultRecord&)>& fn) const = 0;
  virtual void for_each_in_column(const std::string& column,
                                  const std::function<void(const ResultRecord&)>& fn) const = 0;
};

// Records already in memory (tests, small callers).
class VectorSource final : public RecordSource {
 public:
  explicit VectorSource(const std::vector<ResultRecord>& records) : records_(records) {}
  void for_each(const std::function<void(const ResultRecord&)>& fn) const override;
  void for_each_in_column(const std::string& column, const std::function<void(const ResultRecord&)>& fn) const override;

 private:
  const std::vector<ResultRecord>& records_;
};

// results.jsonl, indexed by one scan: each column's records' byte offsets.
class ResultsFileSource final : public RecordSource {
 public:
  // Throws std::runtime_error "PATH:LINE: problem" (as read_results).
  explicit ResultsFileSource(std::string path);
  void for_each(const std::function<void(const ResultRecord&)>& fn) const override;
  void for_each_in_column(const std::string& column, const std::function<void(const ResultRecord&)>& fn) const override;

 private:
  std::string path_;
  std::map<std::string, std::vector<uint64_t>> offsets_;  // by column
};

struct ReportSummary {
  size_t total = 0;
  std::map<Verdict::Kind, size_t> verdicts;
  std::map<std::string, std::map<Verdict::Kind, size_t>> columns;
};
ReportSummary summarize(const std::vector<ResultRecord>& records);
ReportSummary summarize(const RecordSource& source);
// "12 pass, 1 fail" (zero counts left out; "no results" when empty).
std::string format_counts(const std::map<Verdict::Kind, size_t>& counts);

std::string report_json(const std::vector<ResultRecord>& records);
std::string junit_xml(const std::vector<ResultRecord>& records);
std::string report_markdown(const std::vector<ResultRecord>& records);
std::string report_full_markdown(const std::vector<ResultRecord>& records);

// Writes report.json, junit.xml, report.md, report-full.md and report.html
// (report_html.h) into `dir`
// (which must exist);
// throws std::runtime_error naming the file on failure. Each file is
// written to a temporary name and renamed, so a reader never sees half a
// report.
void write_reports(const std::vector<ResultRecord>& records, const std::string& dir);
void write_reports(const RecordSource& source, const std::string& dir);

// XML text/attribute escaping; characters XML 1.0 cannot hold become U+FFFD.
std::string xml_escape(const std::string& s);

}  // namespace sp
