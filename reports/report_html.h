// report_html.h — report.html: one self-contained page (inline CSS and
// script, the data embedded as JSON, no network) for a person to look at a
// run, or to compare several runs:
//
//   * the op x backend matrix of verdict counts, each cell coloured by its
//     worst verdict, the backends' versions and frameworks in the header,
//     one column group per run (`scatterproof report --html OUT DIR...`);
//   * every failure (verdict_is_unexpected; bounded, then how many more)
//     with its case's provenance (file, source document, example, doc
//     version), the reference's answer and cited clauses, the detail and the
//     repro and explain commands, and for a wrong output a picture: a grid
//     per 2-D slice of the output, red where an element is outside the
//     reference's allowed set, each cell's title giving actual vs allowed
//     (ResultRecord::picture; at most kMaxPictures pictures);
//   * the known-deviation (xfail) and document-errata tables;
//   * filters by op, backend and verdict.
//
// Size is bounded whatever the number of results: the tables and lists keep
// a fixed number of rows and say how many they left out.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reports/report_writers.h"

namespace sp {

struct HtmlRun {
  std::string label;  // "" for a single run; else e.g. the report directory
  const RecordSource* source = nullptr;
  std::optional<nlohmann::json> run;  // the run's run.json, when it has one
};

inline constexpr size_t kHtmlMaxFailures = 500;
inline constexpr size_t kHtmlMaxPictures = 200;
inline constexpr size_t kHtmlMaxTableRows = 500;

void write_report_html(const std::vector<HtmlRun>& runs, std::ostream& out);
// One run's records, as a string (tests).
std::string report_html(const std::vector<ResultRecord>& records);
// Writes `path` through a temporary name and a rename; throws
// std::runtime_error naming the file on failure.
void write_report_html_file(const std::vector<HtmlRun>& runs, const std::string& path);

// `json` made safe inside <script type="application/json">: '<', '>' and
// '&' become \u escapes (only strings can hold them), so no "</script>" or
// "<!--" can appear.
std::string script_safe_json(const nlohmann::json& j);

}  // namespace sp
