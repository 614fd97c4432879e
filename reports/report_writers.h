// report_writers.h — the human and CI views of a run, built from its
// records (as read back from results.jsonl).
//
//   report.json  summary counts per verdict and per column, every result
//   junit.xml    one <testsuite> per column, one <testcase> per result
//                (classname = op, name = case id); fail/xpass -> <failure>,
//                crash/timeout/error -> <error>, unsupported/xfail -> <skipped>
//   report.md    op x column matrix of verdict counts, every non-pass with
//                its repro command, the document errata found, the sources
//
// A "column" is a backend, with the reference's document check shown as
// its own column "reference (document)".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/result_stream.h"

namespace sp {

std::string result_column(const ResultRecord& r);

struct ReportSummary {
  size_t total = 0;
  std::map<Verdict::Kind, size_t> verdicts;
  std::map<std::string, std::map<Verdict::Kind, size_t>> columns;
};
ReportSummary summarize(const std::vector<ResultRecord>& records);
// "12 pass, 1 fail" (zero counts left out; "no results" when empty).
std::string format_counts(const std::map<Verdict::Kind, size_t>& counts);

std::string report_json(const std::vector<ResultRecord>& records);
std::string junit_xml(const std::vector<ResultRecord>& records);
std::string report_markdown(const std::vector<ResultRecord>& records);

// Writes report.json, junit.xml and report.md into `dir` (which must exist);
// throws std::runtime_error naming the file on failure.
void write_reports(const std::vector<ResultRecord>& records, const std::string& dir);

// XML text/attribute escaping; characters XML 1.0 cannot hold become U+FFFD.
std::string xml_escape(const std::string& s);

}  // namespace sp
