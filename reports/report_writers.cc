// report_writers.cc — the record sources, report.json and junit.xml, and
// every report written into a directory (report_writers.h), from a
// RecordSource in passes: one scan for every count and table (report_scan.h;
// bounded: the tables keep at most a fixed number of rows), then the
// per-result listings column by column. report.md and report-full.md:
// report_markdown.cc.
#include "reports/report_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "reports/report_html.h"
#include "reports/report_scan.h"

namespace sp {

using nlohmann::json;

std::string result_column(const ResultRecord& r) {
  return r.check == "document" ? r.backend + " (document)" : r.backend;
}

void VectorSource::for_each(const std::function<void(const ResultRecord&)>& fn) const {
  for (const ResultRecord& r : records_) fn(r);
}

void VectorSource::for_each_in_column(const std::string& column,
                                      const std::function<void(const ResultRecord&)>& fn) const {
  for (const ResultRecord& r : records_)
    if (result_column(r) == column) fn(r);
}

ResultsFileSource::ResultsFileSource(std::string path) : path_(std::move(path)) {
  for_each_result_at(path_,
                     [&](const ResultRecord& r, uint64_t offset) { offsets_[result_column(r)].push_back(offset); });
}

void ResultsFileSource::for_each(const std::function<void(const ResultRecord&)>& fn) const {
  for_each_result_at(path_, [&](const ResultRecord& r, uint64_t) { fn(r); });
}

void ResultsFileSource::for_each_in_column(const std::string& column,
                                           const std::function<void(const ResultRecord&)>& fn) const {
  auto it = offsets_.find(column);
  if (it == offsets_.end()) return;
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path_));
  std::string line;
  for (uint64_t offset : it->second) {
    in.seekg(static_cast<std::streamoff>(offset));
    if (!std::getline(in, line))
      throw std::runtime_error(fmt::format("{}: changed while the reports were written", path_));
    fn(record_from_json(json::parse(line)));
  }
}

std::string format_counts(const std::map<Verdict::Kind, size_t>& counts) {
  std::string s;
  for (Verdict::Kind k : kAllVerdictKinds) {
    auto it = counts.find(k);
    if (it == counts.end() || it->second == 0) continue;
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", it->second, verdict_name(k));
  }
  return s.empty() ? "no results" : s;
}

namespace {

json counts_json(const std::map<Verdict::Kind, size_t>& counts) {
  json j = json::object();
  for (Verdict::Kind k : kAllVerdictKinds) {
    auto it = counts.find(k);
    j[std::string(verdict_name(k))] = it == counts.end() ? 0 : it->second;
  }
  return j;
}

void write_report_json(const RecordSource& source, const Scan& scan, std::ostream& out) {
  json columns = json::object();
  for (const auto& [name, counts] : scan.summary.columns) columns[name] = counts_json(counts);
  json versions = json::object();
  for (const auto& [backend, version] : scan.versions) versions[backend] = version;
  json frameworks = json::object();
  for (const auto& [backend, framework] : scan.frameworks) frameworks[backend] = framework;
  const json summary = {{"total", scan.summary.total},
                        {"verdicts", counts_json(scan.summary.verdicts)},
                        {"backends", columns},
                        {"backend_versions", versions},
                        {"backend_frameworks", frameworks}};
  out << "{\n  \"format\": \"scatterproof-report/1\",\n";
  if (scan.run) out << "  \"run\": " << scan.run->dump(-1, ' ', false, json::error_handler_t::replace) << ",\n";
  out << "  \"summary\": ";
  std::string text = summary.dump(2, ' ', false, json::error_handler_t::replace);
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 3)) text.insert(at + 1, "  ");
  out << text << ",\n  \"results\": [";
  bool first = true;
  for (const auto& [column, counts] : scan.summary.columns)
    source.for_each_in_column(column, [&](const ResultRecord& r) {
      out << (first ? "\n    " : ",\n    ") << record_to_json(r).dump(-1, ' ', false, json::error_handler_t::replace);
      first = false;
    });
  out << (first ? "]\n}\n" : "\n  ]\n}\n");
}

void write_junit_xml(const RecordSource& source, const Scan& scan, std::ostream& out) {
  using K = Verdict::Kind;
  const ReportSummary& total = scan.summary;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"scatterproof\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                     total.total, count_of(total.verdicts, {K::Fail, K::XPass, K::DeviceAssert}),
                     count_of(total.verdicts, {K::Crash, K::Timeout, K::Error, K::Unclassified}),
                     count_of(total.verdicts, {K::Unsupported, K::XFail, K::NotApplicable}));
  const std::string run_line = run_summary(scan.run);
  if (!run_line.empty()) {
    std::string comment = xml_escape(run_line);  // a comment may not hold "--"
    for (size_t at = comment.find("--"); at != std::string::npos; at = comment.find("--", at))
      comment.replace(at, 2, "- ");
    out << "  <!-- " << comment << " -->\n";
  }
  for (const auto& [name, c] : total.columns) {
    size_t tests = 0;
    for (const auto& [kind, n] : c) tests += n;
    out << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(name), tests, count_of(c, {K::Fail, K::XPass, K::DeviceAssert}),
        count_of(c, {K::Crash, K::Timeout, K::Error, K::Unclassified}),
        count_of(c, {K::Unsupported, K::XFail, K::NotApplicable}), scan.column_seconds.at(name));
    // What the suite's backend ran (the document checks have none).
    if (auto v = scan.versions.find(name); v != scan.versions.end() && !v->second.empty())
      out << fmt::format("    <properties>\n      <property name=\"version\" value=\"{}\"/>\n    </properties>\n",
                         xml_escape(v->second));
    source.for_each_in_column(name, [&](const ResultRecord& r) {
      out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml_escape(op_label(r)),
                         xml_escape(r.case_id), r.duration_ms / 1000.0);
      const std::string message = xml_escape(fmt::format("{}: {}", verdict_name(r.verdict), r.detail));
      const std::string body = xml_escape(fmt::format("{}\nexpected: {}\noutcome: {}\nfile: {}\nrepro: {}", r.detail,
                                                      r.expected, r.outcome, r.file, r.repro));
      switch (r.verdict) {
        case K::Pass:
          out << "/>\n";
          return;
        case K::Fail:
        case K::XPass:
        case K::DeviceAssert:
          out << fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n", message,
                             verdict_name(r.verdict), body);
          break;
        case K::Crash:
        case K::Timeout:
        case K::Error:
        case K::Unclassified:
          out << fmt::format(">\n      <error message=\"{}\" type=\"{}\">{}</error>\n", message,
                             verdict_name(r.verdict), body);
          break;
        case K::Unsupported:
        case K::XFail:
        case K::NotApplicable:
          out << fmt::format(">\n      <skipped message=\"{}\"/>\n", message);
          break;
      }
      out << "    </testcase>\n";
    });
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

// Writes `path` through a temporary file renamed into place.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", temporary));
    write(out);
    out.close();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", temporary));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot write: {}", path, ec.message()));
}

std::string to_text(const std::vector<ResultRecord>& records,
                    void (*write)(const RecordSource&, const Scan&, std::ostream&)) {
  const VectorSource source(records);
  const Scan scan(source);
  std::ostringstream out;
  write(source, scan, out);
  return out.str();
}

}  // namespace

ReportSummary summarize(const RecordSource& source) { return Scan(source).summary; }
ReportSummary summarize(const std::vector<ResultRecord>& records) { return summarize(VectorSource(records)); }

std::string report_json(const std::vector<ResultRecord>& records) { return to_text(records, write_report_json); }
std::string junit_xml(const std::vector<ResultRecord>& records) { return to_text(records, write_junit_xml); }
std::string report_markdown(const std::vector<ResultRecord>& records) {
  return to_text(records, write_report_markdown);
}
std::string report_full_markdown(const std::vector<ResultRecord>& records) {
  return to_text(records, write_report_full_markdown);
}

void write_reports(const RecordSource& source, const std::string& dir) {
  const Scan scan(source, read_run_record(dir + "/run.json"));
  write_file(dir + "/report.json", [&](std::ostream& out) { write_report_json(source, scan, out); });
  write_file(dir + "/junit.xml", [&](std::ostream& out) { write_junit_xml(source, scan, out); });
  write_file(dir + "/report.md", [&](std::ostream& out) { write_report_markdown(source, scan, out); });
  write_file(dir + "/report-full.md", [&](std::ostream& out) { write_report_full_markdown(source, scan, out); });
  write_file(dir + "/report.html", [&](std::ostream& out) {
    write_report_html({HtmlRun{"", &source, scan.run}}, out);
  });
}

void write_reports(const std::vector<ResultRecord>& records, const std::string& dir) {
  write_reports(VectorSource(records), dir);
}

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (c < 0x20)
          out += "\xEF\xBF\xBD";  // not allowed in XML 1.0, even escaped
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace sp
