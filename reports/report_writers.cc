#include "reports/report_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

namespace sp {

using nlohmann::json;

std::string result_column(const ResultRecord& r) {
  return r.check == "document" ? r.backend + " (document)" : r.backend;
}

ReportSummary summarize(const std::vector<ResultRecord>& records) {
  ReportSummary s;
  s.total = records.size();
  for (const ResultRecord& r : records) {
    ++s.verdicts[r.verdict];
    ++s.columns[result_column(r)][r.verdict];
  }
  return s;
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

// Results in a stable order whatever order the threads finished in.
std::vector<const ResultRecord*> sorted(const std::vector<ResultRecord>& records) {
  std::vector<const ResultRecord*> out;
  for (const ResultRecord& r : records) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const ResultRecord* a, const ResultRecord* b) {
    return std::tie(a->backend, a->check, a->case_id) < std::tie(b->backend, b->check, b->case_id);
  });
  return out;
}

// One line of a Markdown table cell.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
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

}  // namespace

namespace {

// What each backend ran and its version, as its results said (the first
// non-empty one: a process backend learns its version from its hello).
std::map<std::string, std::string> backend_versions(const std::vector<ResultRecord>& records) {
  std::map<std::string, std::string> versions;
  for (const ResultRecord& r : records) {
    if (r.check != "differential") continue;
    std::string& v = versions[r.backend];
    if (v.empty()) v = r.backend_version;
  }
  return versions;
}

// The framework and version each framework backend runs, by which the
// reference judged it ("torch 2.15.0"); absent for backends running none.
std::map<std::string, std::string> backend_frameworks(const std::vector<ResultRecord>& records) {
  std::map<std::string, std::string> frameworks;
  for (const ResultRecord& r : records)
    if (r.check == "differential" && r.framework && !frameworks.count(r.backend))
      frameworks[r.backend] = r.framework->name + " " + r.framework->version;
  return frameworks;
}

}  // namespace

std::string report_json(const std::vector<ResultRecord>& records) {
  const ReportSummary s = summarize(records);
  json columns = json::object();
  for (const auto& [name, counts] : s.columns) columns[name] = counts_json(counts);
  json results = json::array();
  for (const ResultRecord* r : sorted(records)) results.push_back(record_to_json(*r));
  json versions = json::object();
  for (const auto& [backend, version] : backend_versions(records)) versions[backend] = version;
  json frameworks = json::object();
  for (const auto& [backend, framework] : backend_frameworks(records)) frameworks[backend] = framework;
  json j = {{"format", "scatterproof-report/1"},
            {"summary",
             {{"total", s.total},
              {"verdicts", counts_json(s.verdicts)},
              {"backends", columns},
              {"backend_versions", versions},
              {"backend_frameworks", frameworks}}},
            {"results", results}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
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

std::string junit_xml(const std::vector<ResultRecord>& records) {
  std::map<std::string, std::vector<const ResultRecord*>> suites;
  for (const ResultRecord* r : sorted(records)) suites[result_column(*r)].push_back(r);
  const ReportSummary total = summarize(records);
  const std::map<std::string, std::string> versions = backend_versions(records);
  auto count = [](const std::map<Verdict::Kind, size_t>& m, std::initializer_list<Verdict::Kind> kinds) {
    size_t n = 0;
    for (Verdict::Kind k : kinds)
      if (auto it = m.find(k); it != m.end()) n += it->second;
    return n;
  };
  using K = Verdict::Kind;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"scatterproof\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                   total.total, count(total.verdicts, {K::Fail, K::XPass}),
                   count(total.verdicts, {K::Crash, K::Timeout, K::Error, K::Unclassified}),
                   count(total.verdicts, {K::Unsupported, K::XFail, K::NotApplicable}));
  for (const auto& [name, results] : suites) {
    const auto& c = total.columns.at(name);
    double seconds = 0;
    for (const ResultRecord* r : results) seconds += r->duration_ms / 1000.0;
    x += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(name), results.size(), count(c, {K::Fail, K::XPass}),
        count(c, {K::Crash, K::Timeout, K::Error, K::Unclassified}),
        count(c, {K::Unsupported, K::XFail, K::NotApplicable}), seconds);
    // What the suite's backend ran (the document checks have none).
    if (auto v = versions.find(name); v != versions.end() && !v->second.empty())
      x += fmt::format("    <properties>\n      <property name=\"version\" value=\"{}\"/>\n    </properties>\n",
                       xml_escape(v->second));
    for (const ResultRecord* r : results) {
      x += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml_escape(op_label(*r)),
                       xml_escape(r->case_id), r->duration_ms / 1000.0);
      const std::string message = xml_escape(fmt::format("{}: {}", verdict_name(r->verdict), r->detail));
      const std::string body = xml_escape(fmt::format("{}\nexpected: {}\noutcome: {}\nfile: {}\nrepro: {}", r->detail,
                                                      r->expected, r->outcome, r->file, r->repro));
      switch (r->verdict) {
        case K::Pass:
          x += "/>\n";
          continue;
        case K::Fail:
        case K::XPass:
          x += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n", message,
                           verdict_name(r->verdict), body);
          break;
        case K::Crash:
        case K::Timeout:
        case K::Error:
        case K::Unclassified:
          x += fmt::format(">\n      <error message=\"{}\" type=\"{}\">{}</error>\n", message, verdict_name(r->verdict),
                           body);
          break;
        case K::Unsupported:
        case K::XFail:
        case K::NotApplicable:
          x += fmt::format(">\n      <skipped message=\"{}\"/>\n", message);
          break;
      }
      x += "    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

std::string report_markdown(const std::vector<ResultRecord>& records) {
  const ReportSummary s = summarize(records);
  std::string md = "# scatterproof report\n\n";
  md += fmt::format("{} results: {}.\n\n", s.total, format_counts(s.verdicts));
  const std::map<std::string, std::string> versions = backend_versions(records);
  if (!versions.empty()) {
    const std::map<std::string, std::string> frameworks = backend_frameworks(records);
    md += "## Backends\n\n| backend | runs | judged by the rules of |\n|---|---|---|\n";
    for (const auto& [backend, version] : versions) {
      const auto f = frameworks.find(backend);
      md +=
          fmt::format("| {} | {} | {} |\n", md_cell(backend), md_cell(version.empty() ? "(not started)" : version),
                      md_cell(f != frameworks.end() ? f->second + " (its own version)"
                                                    : "each case's version (source.doc_version, --framework-version)"));
    }
    md += "\n";
  }

  // Matrix: op x column.
  std::vector<std::string> columns;
  for (const auto& [name, counts] : s.columns) columns.push_back(name);
  std::map<std::string, std::map<std::string, std::map<Verdict::Kind, size_t>>> matrix;
  for (const ResultRecord& r : records) ++matrix[op_label(r)][result_column(r)][r.verdict];
  md += "## Matrix\n\n| op |";
  for (const std::string& c : columns) md += " " + md_cell(c) + " |";
  md += "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& [op, row] : matrix) {
    md += "| " + md_cell(op) + " |";
    for (const std::string& c : columns) {
      auto it = row.find(c);
      md += " " + (it == row.end() ? std::string("–") : format_counts(it->second)) + " |";
    }
    md += "\n";
  }

  md += "\n## Not passing\n\n";
  bool any = false;
  for (const ResultRecord* r : sorted(records)) {
    if (r->verdict == Verdict::Kind::Pass || r->verdict == Verdict::Kind::XFail) continue;
    any = true;
    md += fmt::format("- **{}** {} `{}` ({}, {}): {}\n  - repro: {}\n", verdict_name(r->verdict),
                      md_cell(result_column(*r)), md_cell(r->case_id), md_cell(op_label(*r)), md_cell(r->file),
                      md_cell(r->detail), md_code(r->repro));
  }
  if (!any) md += "Every result passed.\n";

  // A classifier gap per backend and message: each message (its first line)
  // with how many results raised it.
  md += "\n## Unclassified errors\n\n";
  std::map<std::pair<std::string, std::string>, size_t> unclassified;
  for (const ResultRecord& r : records)
    if (r.verdict == Verdict::Kind::Unclassified) ++unclassified[{r.backend, r.detail.substr(0, r.detail.find('\n'))}];
  if (unclassified.empty()) {
    md += "None: every error a backend raised was placed in the taxonomy.\n";
  } else {
    md += "| backend | message | results |\n|---|---|---|\n";
    for (const auto& [key, n] : unclassified)
      md += fmt::format("| {} | {} | {} |\n", md_cell(key.first), md_cell(key.second), n);
  }

  // A product result in its own right: where real implementations do what
  // their own documents do not allow, as listed in expectation files.
  md += "\n## Known deviations (expected failures)\n\n";
  std::string deviations;
  for (const ResultRecord* r : sorted(records))
    if (r->verdict == Verdict::Kind::XFail)
      deviations += fmt::format("| {} | `{}` | {} |\n", md_cell(r->backend), md_cell(r->case_id), md_cell(r->detail));
  md += deviations.empty() ? std::string("None.\n")
                           : "| backend | case | what happened, and why it is listed |\n|---|---|---|\n" + deviations;

  md += "\n## Document errata found\n\n";
  std::map<std::pair<std::string, std::string>, const ResultRecord*> errata_by_document;  // (document, case) -> record
  for (const ResultRecord& r : records)
    if (r.erratum) errata_by_document.emplace(std::pair(r.erratum->document, r.case_id), &r);
  std::string errata;
  for (const auto& [key, r] : errata_by_document)
    errata += fmt::format("| {} | `{}` | {} | {} |\n", md_cell(r->erratum->document), md_cell(r->case_id),
                          md_cell(r->erratum->claim), md_cell(r->erratum->reference_says));
  md += errata.empty() ? std::string("None recorded.\n")
                       : "| document | case | claim | the reference says instead |\n|---|---|---|---|\n" + errata;

  md += "\n## Sources\n\n| document | cases |\n|---|---|\n";
  std::map<std::string, std::set<std::string>> sources;
  for (const ResultRecord& r : records)
    if (r.check != "load") sources[r.source.document.empty() ? "(none)" : r.source.document].insert(r.case_id);
  for (const auto& [doc, ids] : sources) md += fmt::format("| {} | {} |\n", md_cell(doc), ids.size());
  return md;
}

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path));
}

}  // namespace

void write_reports(const std::vector<ResultRecord>& records, const std::string& dir) {
  write_file(dir + "/report.json", report_json(records));
  write_file(dir + "/junit.xml", junit_xml(records));
  write_file(dir + "/report.md", report_markdown(records));
}

}  // namespace sp
