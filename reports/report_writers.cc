// report_writers.cc — report.json, junit.xml and report.md (report_writers.h),
// written from a RecordSource in passes: one scan for every count and
// table (bounded: the tables keep at most a fixed number of rows), then the
// per-result listings column by column.
#include "reports/report_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

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

// One line of a Markdown table cell. Control characters (a NUL or ESC in a
// backend's message or a spec's provenance) are written as visible escapes,
// never copied raw into the file.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out;
}

std::string md_code(const std::string& s) {
  // A backtick run longer than any inside the text delimits it safely.
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const std::string pad = !s.empty() && (s.front() == '`' || s.back() == '`') ? " " : "";
  return fence + pad + md_cell(s) + pad + fence;
}

std::string op_label(const ResultRecord& r) { return r.op.empty() ? "(spec input)" : r.op; }

// Rows a Markdown table keeps before it says how many it left out.
constexpr size_t kMaxTableRows = 500;

// Everything the reports say that is not a per-result listing, from one
// pass over the records. Memory is bounded by the number of ops, columns
// and documents, and by kMaxTableRows for the tables.
struct Scan {
  ReportSummary summary;
  std::map<std::string, double> column_seconds;
  std::map<std::string, std::map<std::string, std::map<Verdict::Kind, size_t>>> matrix;  // op -> column -> counts
  // What each backend ran and its version, as its results said (the first
  // non-empty one: a process backend learns its version from its hello).
  std::map<std::string, std::string> versions;
  // The framework and version each framework backend runs, by which the
  // reference judged it ("torch 2.15.0"); absent for backends running none.
  std::map<std::string, std::string> frameworks;
  std::map<std::pair<std::string, std::string>, size_t> unclassified;  // (backend, message's first line)
  size_t unclassified_left_out = 0;
  std::map<std::pair<std::string, std::string>, ResultRecord::ErratumNote> errata;  // (document, case)
  size_t errata_left_out = 0;
  std::map<std::string, std::unordered_set<uint64_t>> sources;  // document -> hashes of its case ids

  explicit Scan(const RecordSource& source) {
    source.for_each([&](const ResultRecord& r) { add(r); });
  }

  void add(const ResultRecord& r) {
    const std::string column = result_column(r);
    ++summary.total;
    ++summary.verdicts[r.verdict];
    ++summary.columns[column][r.verdict];
    column_seconds[column] += r.duration_ms / 1000.0;
    ++matrix[op_label(r)][column][r.verdict];
    if (r.check == "differential") {
      std::string& v = versions[r.backend];
      if (v.empty()) v = r.backend_version;
      if (r.framework && !frameworks.count(r.backend))
        frameworks[r.backend] = r.framework->name + " " + r.framework->version;
    }
    if (r.verdict == Verdict::Kind::Unclassified) {
      const std::pair key(r.backend, r.detail.substr(0, std::min(r.detail.find('\n'), size_t{300})));
      if (auto it = unclassified.find(key); it != unclassified.end())
        ++it->second;
      else if (unclassified.size() < kMaxTableRows)
        unclassified.emplace(key, 1);
      else
        ++unclassified_left_out;
    }
    if (r.erratum) {
      const std::pair key(r.erratum->document, r.case_id);
      if (!errata.count(key)) {
        if (errata.size() < kMaxTableRows)
          errata.emplace(key, *r.erratum);
        else
          ++errata_left_out;
      }
    }
    if (r.check != "load")
      sources[r.source.document.empty() ? "(none)" : r.source.document].insert(std::hash<std::string>{}(r.case_id));
  }
};

std::string left_out_line(size_t n) {
  return n == 0 ? std::string() : fmt::format("\n({} more rows left out; results.jsonl has them all)\n", n);
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
  out << "{\n  \"format\": \"scatterproof-report/1\",\n  \"summary\": ";
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

size_t count_of(const std::map<Verdict::Kind, size_t>& m, std::initializer_list<Verdict::Kind> kinds) {
  size_t n = 0;
  for (Verdict::Kind k : kinds)
    if (auto it = m.find(k); it != m.end()) n += it->second;
  return n;
}

void write_junit_xml(const RecordSource& source, const Scan& scan, std::ostream& out) {
  using K = Verdict::Kind;
  const ReportSummary& total = scan.summary;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"scatterproof\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                     total.total, count_of(total.verdicts, {K::Fail, K::XPass}),
                     count_of(total.verdicts, {K::Crash, K::Timeout, K::Error, K::Unclassified}),
                     count_of(total.verdicts, {K::Unsupported, K::XFail, K::NotApplicable}));
  for (const auto& [name, c] : total.columns) {
    size_t tests = 0;
    for (const auto& [kind, n] : c) tests += n;
    out << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(name), tests, count_of(c, {K::Fail, K::XPass}),
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

void write_report_markdown(const RecordSource& source, const Scan& scan, std::ostream& md) {
  const ReportSummary& s = scan.summary;
  md << "# scatterproof report\n\n";
  md << fmt::format("{} results: {}.\n\n", s.total, format_counts(s.verdicts));
  if (!scan.versions.empty()) {
    md << "## Backends\n\n| backend | runs | judged by the rules of |\n|---|---|---|\n";
    for (const auto& [backend, version] : scan.versions) {
      const auto f = scan.frameworks.find(backend);
      md << fmt::format(
          "| {} | {} | {} |\n", md_cell(backend), md_cell(version.empty() ? "(not started)" : version),
          md_cell(f != scan.frameworks.end() ? f->second + " (its own version)"
                                             : "each case's version (source.doc_version, --framework-version)"));
    }
    md << "\n";
  }

  // Matrix: op x column.
  md << "## Matrix\n\n| op |";
  for (const auto& [c, counts] : s.columns) md << " " << md_cell(c) << " |";
  md << "\n|---|";
  for (size_t i = 0; i < s.columns.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& [op, row] : scan.matrix) {
    md << "| " << md_cell(op) << " |";
    for (const auto& [c, counts] : s.columns) {
      auto it = row.find(c);
      md << " " << (it == row.end() ? std::string("–") : format_counts(it->second)) << " |";
    }
    md << "\n";
  }

  md << "\n## Not passing\n\n";
  bool any = false;
  for (const auto& [column, counts] : s.columns)
    source.for_each_in_column(column, [&](const ResultRecord& r) {
      if (r.verdict == Verdict::Kind::Pass || r.verdict == Verdict::Kind::XFail) return;
      any = true;
      md << fmt::format("- **{}** {} `{}` ({}, {}): {}\n  - repro: {}\n", verdict_name(r.verdict), md_cell(column),
                        md_cell(r.case_id), md_cell(op_label(r)), md_cell(r.file), md_cell(r.detail), md_code(r.repro));
    });
  if (!any) md << "Every result passed.\n";

  // A classifier gap per backend and message: each message (its first line)
  // with how many results raised it.
  md << "\n## Unclassified errors\n\n";
  if (scan.unclassified.empty()) {
    md << "None: every error a backend raised was placed in the taxonomy.\n";
  } else {
    md << "| backend | message | results |\n|---|---|---|\n";
    for (const auto& [key, n] : scan.unclassified)
      md << fmt::format("| {} | {} | {} |\n", md_cell(key.first), md_cell(key.second), n);
    md << left_out_line(scan.unclassified_left_out);
  }

  // A product result in its own right: where real implementations do what
  // their own documents do not allow, as listed in expectation files.
  md << "\n## Known deviations (expected failures)\n\n";
  if (count_of(s.verdicts, {Verdict::Kind::XFail}) == 0) {
    md << "None.\n";
  } else {
    md << "| backend | case | what happened, and why it is listed |\n|---|---|---|\n";
    for (const auto& [column, counts] : s.columns)
      if (counts.count(Verdict::Kind::XFail))
        source.for_each_in_column(column, [&](const ResultRecord& r) {
          if (r.verdict == Verdict::Kind::XFail)
            md << fmt::format("| {} | `{}` | {} |\n", md_cell(r.backend), md_cell(r.case_id), md_cell(r.detail));
        });
  }

  md << "\n## Document errata found\n\n";
  if (scan.errata.empty()) {
    md << "None recorded.\n";
  } else {
    md << "| document | case | claim | the reference says instead |\n|---|---|---|---|\n";
    for (const auto& [key, e] : scan.errata)
      md << fmt::format("| {} | `{}` | {} | {} |\n", md_cell(e.document), md_cell(key.second), md_cell(e.claim),
                        md_cell(e.reference_says));
    md << left_out_line(scan.errata_left_out);
  }

  md << "\n## Sources\n\n| document | cases |\n|---|---|\n";
  for (const auto& [doc, ids] : scan.sources) md << fmt::format("| {} | {} |\n", md_cell(doc), ids.size());
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

void write_reports(const RecordSource& source, const std::string& dir) {
  const Scan scan(source);
  write_file(dir + "/report.json", [&](std::ostream& out) { write_report_json(source, scan, out); });
  write_file(dir + "/junit.xml", [&](std::ostream& out) { write_junit_xml(source, scan, out); });
  write_file(dir + "/report.md", [&](std::ostream& out) { write_report_markdown(source, scan, out); });
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
