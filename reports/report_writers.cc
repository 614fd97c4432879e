// report_writers.cc — report.json, junit.xml, report.md and report-full.md
// (report_writers.h),
// written from a RecordSource in passes: one scan for every count and
// table (bounded: the tables keep at most a fixed number of rows), then the
// per-result listings column by column.
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

// Rows a table keeps before it says how many it left out.
constexpr size_t kMaxTableRows = 500;

// At most `n` bytes of `s` (cut at a UTF-8 character boundary), "…" when cut.
std::string clip(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t end = n;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "…";
}

// The first line of `s`, clipped to `n` bytes.
std::string first_line(const std::string& s, size_t n) { return clip(s.substr(0, s.find('\n')), n); }

// The kernel's "File.cu:163" a device assert's detail names, else "?".
std::string kernel_location(const std::string& detail) {
  for (size_t at = detail.find(".cu:"); at != std::string::npos; at = detail.find(".cu:", at + 1)) {
    size_t begin = at;
    while (begin > 0 && (std::isalnum(static_cast<unsigned char>(detail[begin - 1])) || detail[begin - 1] == '_'))
      --begin;
    size_t end = at + 4;
    while (end < detail.size() && std::isdigit(static_cast<unsigned char>(detail[end]))) ++end;
    if (begin < at && end > at + 4) return detail.substr(begin, end - begin);
  }
  return "?";
}

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
  // Device-side asserts (device_assert, and those an expectation file
  // lists) per (backend, kernel file:line): how many, and the first case.
  std::map<std::pair<std::string, std::string>, std::pair<size_t, std::string>> device_asserts;
  size_t unclassified_left_out = 0;
  std::map<std::pair<std::string, std::string>, ResultRecord::ErratumNote> errata;  // (document, case)
  size_t errata_left_out = 0;
  std::map<std::string, std::unordered_set<uint64_t>> sources;  // document -> hashes of its case ids
  // Unsupported and not-applicable results grouped by (column, reason): how
  // many, and which ops. Groups past kMaxTableRows are counted, not kept.
  struct Group {
    size_t results = 0;
    std::set<std::string> ops;
  };
  std::map<std::pair<std::string, std::string>, Group> unsupported;
  size_t unsupported_left_out = 0;
  std::map<std::pair<std::string, std::string>, Group> not_applicable;
  size_t not_applicable_left_out = 0;
  // Failures (verdict_is_unexpected) per (op, column): report.md lists a
  // share of each group, so one broken backend does not hide another.
  std::map<std::pair<std::string, std::string>, size_t> failure_groups;
  size_t failures = 0;

  // The run's record (DIR/run.json: tool version, commit, machine), when
  // the reports are written into a report directory that has one.
  std::optional<json> run;

  explicit Scan(const RecordSource& source, std::optional<json> run_record = std::nullopt)
      : run(std::move(run_record)) {
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
    if (r.verdict == Verdict::Kind::DeviceAssert ||
        (r.verdict == Verdict::Kind::XFail && r.detail.rfind("expected device_assert", 0) == 0)) {
      auto [it, added] = device_asserts.try_emplace({r.backend, kernel_location(r.detail)}, 0, r.case_id);
      if (added || device_asserts.size() <= kMaxTableRows) ++it->second.first;
      if (added && device_asserts.size() > kMaxTableRows) device_asserts.erase(it);
    }
    if (r.verdict == Verdict::Kind::Unsupported)
      add_to_group(unsupported, unsupported_left_out, column, r);
    else if (r.verdict == Verdict::Kind::NotApplicable)
      add_to_group(not_applicable, not_applicable_left_out, column, r);
    if (verdict_is_unexpected(r.verdict)) {
      ++failures;
      ++failure_groups[{op_label(r), column}];
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

  static void add_to_group(std::map<std::pair<std::string, std::string>, Group>& groups, size_t& left_out,
                           const std::string& column, const ResultRecord& r) {
    const std::pair key(column, first_line(r.detail, 200));
    auto it = groups.find(key);
    if (it == groups.end()) {
      if (groups.size() >= kMaxTableRows) {
        ++left_out;
        return;
      }
      it = groups.emplace(key, Group{}).first;
    }
    ++it->second.results;
    if (it->second.ops.size() < 64) it->second.ops.insert(op_label(r));
  }
};

// "scatterproof 0.1.0 (commit f5a7ff6), run 2026-11-26T05:04:00Z on host
// (Linux 6.1 x86_64, Debian GNU/Linux 12, 2 CPUs)" from run.json; empty
// without one.
std::string run_summary(const std::optional<json>& run) {
  if (!run || !run->is_object()) return "";
  auto text = [](const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  std::string line = fmt::format("scatterproof {} (commit {}), run {}", text(*run, "tool_version"),
                                 text(*run, "commit"), text(*run, "started_at"));
  if (const auto m = run->find("machine"); m != run->end() && m->is_object()) {
    const auto cpus = m->find("cpu_count");
    line += fmt::format(" on {} ({}, {}, {} CPUs)", text(*m, "hostname"), text(*m, "os"), text(*m, "distribution"),
                        cpus != m->end() && cpus->is_number_integer() ? std::to_string(cpus->get<int64_t>()) : "?");
  }
  return line;
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

// A verdict's name in report.md: "n/a" for not_applicable.
std::string md_verdict(Verdict::Kind k) {
  return k == Verdict::Kind::NotApplicable ? std::string("n/a") : std::string(verdict_name(k));
}

// "12 pass, 1 fail, 3 n/a"; a cell where nothing ran at all is just "n/a".
std::string md_counts(const std::map<Verdict::Kind, size_t>& counts) {
  std::string s;
  bool only_na = true;
  for (Verdict::Kind k : kAllVerdictKinds) {
    auto it = counts.find(k);
    if (it == counts.end() || it->second == 0) continue;
    only_na = only_na && k == Verdict::Kind::NotApplicable;
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", it->second, md_verdict(k));
  }
  if (s.empty()) return "no results";
  return only_na ? "n/a" : s;
}

// report.md's size bound: a GitHub job summary takes 1 MiB; a person reads
// a summary, not a listing. Every listing section stops at its own budget
// and at what is left of this one, and says how much it left out; the
// header, backends and matrix (bounded by ops x backends) always go in.
constexpr size_t kSummaryBytes = 92 * 1024;
// report.md lists at most this many failures (fail, xpass, crash, timeout,
// error, unclassified), a share of each op x backend group.
constexpr size_t kSummaryFailures = 200;

// Rows of one report.md section, kept while they fit its row and byte
// budgets; the rest are counted.
struct Section {
  size_t max_rows;
  size_t max_bytes;
  std::string text{};
  size_t rows = 0;
  size_t left_out = 0;
  bool add(const std::string& row) {
    if (rows >= max_rows || text.size() + row.size() > max_bytes) {
      ++left_out;
      return false;
    }
    text += row;
    ++rows;
    return true;
  }
};

std::string ops_list(const std::set<std::string>& ops) {
  std::string s;
  for (const std::string& op : ops) s += (s.empty() ? "" : ", ") + op;
  return clip(s, 300);
}

// Unsupported or not-applicable results grouped by (backend, reason).
void group_table(std::string& md, const std::map<std::pair<std::string, std::string>, Scan::Group>& groups,
                 size_t groups_left_out, size_t budget, const char* none) {
  if (groups.empty() && groups_left_out == 0) {
    md += none;
    return;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, const Scan::Group*>> rows;
  for (const auto& [key, g] : groups) rows.push_back({key, &g});
  // Backend by backend, the commonest reason first.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.first.first != b.first.first ? a.first.first < b.first.first : a.second->results > b.second->results;
  });
  Section section{kMaxTableRows, budget};
  size_t results_left_out = groups_left_out;
  for (const auto& [key, g] : rows)
    if (!section.add(fmt::format("| {} | {} | {} | {} |\n", md_cell(key.first), md_cell(key.second), g->results,
                                 md_cell(ops_list(g->ops)))))
      results_left_out += g->results;
  md += "| backend | reason | results | ops |\n|---|---|---|---|\n" + section.text;
  if (results_left_out)
    md += fmt::format("\n({} more results in groups left out here; report-full.md lists them)\n", results_left_out);
}

// One result as a list entry: verdict, column, case, op, file, detail, repro.
std::string result_entry(const std::string& column, const ResultRecord& r, size_t detail_bytes) {
  return fmt::format("- **{}** {} `{}` ({}, {}): {}\n  - repro: {}\n", md_verdict(r.verdict), md_cell(column),
                     md_cell(r.case_id), md_cell(op_label(r)), md_cell(r.file), md_cell(clip(r.detail, detail_bytes)),
                     md_code(r.repro));
}

// report.md: the summary a person reads in a minute (report_writers.h).
void write_report_markdown(const RecordSource& source, const Scan& scan, std::ostream& out) {
  using K = Verdict::Kind;
  const ReportSummary& s = scan.summary;
  std::string md = "# scatterproof report\n\n";
  if (const std::string run_line = run_summary(scan.run); !run_line.empty()) md += md_cell(run_line) + "\n\n";
  md += fmt::format("{} results: {}.\n\n", s.total, md_counts(s.verdicts));
  md +=
      "This is the summary. `report-full.md` lists every result that did not pass, one by one, with its repro; "
      "`results.jsonl`, `report.json` and `junit.xml` hold every result.\n\n";
  if (!scan.versions.empty()) {
    md += "## Backends\n\n| backend | runs | judged by the rules of |\n|---|---|---|\n";
    for (const auto& [backend, version] : scan.versions) {
      const auto f = scan.frameworks.find(backend);
      md += fmt::format(
          "| {} | {} | {} |\n", md_cell(backend), md_cell(version.empty() ? "(not started)" : version),
          md_cell(f != scan.frameworks.end() ? f->second + " (its own version)"
                                             : "each case's version (source.doc_version, --framework-version)"));
    }
    md += "\n";
  }

  // Matrix: op x column.
  md +=
      "## Matrix\n\nResults per op and backend. **n/a**: nothing ran — the backend does not implement the op, or "
      "the case's version range leaves out the version the backend answers for.\n\n| op |";
  for (const auto& [c, counts] : s.columns) md += " " + md_cell(c) + " |";
  md += "\n|---|";
  for (size_t i = 0; i < s.columns.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& [op, row] : scan.matrix) {
    md += "| " + md_cell(op) + " |";
    for (const auto& [c, counts] : s.columns) {
      auto it = row.find(c);
      md += " " + (it == row.end() ? std::string("–") : md_counts(it->second)) + " |";
    }
    md += "\n";
  }
  auto budget = [&](size_t own) { return std::min(own, kSummaryBytes - std::min(kSummaryBytes, md.size())); };

  // Every failure, up to kSummaryFailures: a share of each (op, column) group.
  md += "\n## Failures\n\n";
  if (scan.failures == 0) {
    md += "None: every result passed or was expected (xfail), unsupported or n/a.\n";
  } else {
    // The first `share` entries of each group, in run order; then the
    // largest per-group count q <= share whose entries fit the byte budget,
    // so that every group keeps some when the budget binds.
    size_t share = std::max<size_t>(1, kSummaryFailures / scan.failure_groups.size());
    const size_t bytes = budget(48 * 1024);
    std::vector<std::pair<size_t, std::string>> entries;  // (position within its group, text)
    std::map<std::pair<std::string, std::string>, size_t> seen;
    for (const auto& [column, counts] : s.columns)
      source.for_each_in_column(column, [&](const ResultRecord& r) {
        if (!verdict_is_unexpected(r.verdict)) return;
        size_t& n = seen[{op_label(r), column}];
        if (n < share) entries.emplace_back(n, result_entry(column, r, 240));
        ++n;
      });
    auto size_at = [&](size_t q) {
      size_t total = 0;
      for (const auto& [position, text] : entries)
        if (position < q) total += text.size();
      return total;
    };
    while (share > 1 && size_at(share) > bytes) --share;
    Section section{kSummaryFailures, bytes};
    for (const auto& [position, text] : entries)
      if (position < share) section.add(text);
    md += fmt::format("{} results failed (fail, xpass, crash, device_assert, timeout, error, unclassified).\n\n",
                      scan.failures);
    md += section.text;
    if (section.rows < scan.failures)
      md += fmt::format(
          "\n{} more failures are not listed here (at most {} per op and backend): `report-full.md` lists every "
          "one with its repro; the matrix counts them.\n",
          scan.failures - section.rows, share);
  }

  // A classifier gap per backend and message: each message (its first line)
  // with how many results raised it.
  md += "\n## Unclassified errors\n\n";
  if (scan.unclassified.empty()) {
    md += "None: every error a backend raised was placed in the taxonomy.\n";
  } else {
    Section section{kMaxTableRows, budget(8 * 1024)};
    size_t results_left_out = 0;
    for (const auto& [key, n] : scan.unclassified)
      if (!section.add(fmt::format("| {} | {} | {} |\n", md_cell(key.first), md_cell(clip(key.second, 200)), n)))
        results_left_out += n;
    md += "| backend | message | results |\n|---|---|---|\n" + section.text;
    if (section.left_out || scan.unclassified_left_out)
      md += fmt::format("\n({} more messages left out; report-full.md lists every result)\n",
                        section.left_out + scan.unclassified_left_out);
  }

  // Device kernels that asserted (a CUDA device-side assert: the kernel
  // found the problem, asynchronously, and the context died), by location.
  if (!scan.device_asserts.empty()) {
    md += "\n## Device-side asserts\n\n| backend | kernel | results | first case |\n|---|---|---|---|\n";
    for (const auto& [key, value] : scan.device_asserts)
      md += fmt::format("| {} | {} | {} | {} |\n", md_cell(key.first), md_cell(key.second), value.first,
                        md_cell(value.second));
  }

  // A product result in its own right: where real implementations do what
  // their own documents do not allow, as listed in expectation files.
  md += "\n## Known deviations (expected failures)\n\n";
  const size_t xfails = count_of(s.verdicts, {K::XFail});
  if (xfails == 0) {
    md += "None.\n";
  } else {
    Section section{kSummaryFailures, budget(40 * 1024)};
    for (const auto& [column, counts] : s.columns)
      if (counts.count(K::XFail))
        source.for_each_in_column(column, [&](const ResultRecord& r) {
          if (r.verdict == K::XFail)
            section.add(fmt::format("| {} | `{}` | {} | {} |\n", md_cell(r.backend), md_cell(r.case_id),
                                    md_cell(clip(r.detail, 200)), md_code(r.repro)));
        });
    md += "| backend | case | what happened, and why it is listed | repro |\n|---|---|---|---|\n" + section.text;
    if (section.left_out)
      md += fmt::format("\n({} more expected failures left out; `report-full.md` lists every one)\n", section.left_out);
  }

  md += "\n## Document errata found\n\n";
  if (scan.errata.empty()) {
    md += "None recorded.\n";
  } else {
    Section section{kMaxTableRows, budget(10 * 1024)};
    for (const auto& [key, e] : scan.errata)
      section.add(fmt::format("| {} | `{}` | {} | {} |\n", md_cell(e.document), md_cell(key.second),
                              md_cell(clip(e.claim, 200)), md_cell(clip(e.reference_says, 200))));
    md += "| document | case | claim | the reference says instead |\n|---|---|---|---|\n" + section.text;
    if (section.left_out || scan.errata_left_out)
      md += fmt::format("\n({} more rows left out; results.jsonl has them all)\n",
                        section.left_out + scan.errata_left_out);
  }

  md +=
      "\n## Unsupported, by reason\n\nCalls of an op the backend implements, declined for a reason (a dtype, a "
      "kernel it lacks, a call its document leaves undefined): not findings.\n\n";
  group_table(md, scan.unsupported, scan.unsupported_left_out, budget(12 * 1024), "None.\n");

  md += "\n## Not applicable (n/a), by reason\n\nNothing ran for these: not findings, and not listed one by one.\n\n";
  group_table(md, scan.not_applicable, scan.not_applicable_left_out, budget(6 * 1024), "None.\n");

  md += "\n## Sources\n\n";
  Section sources{kMaxTableRows, budget(3 * 1024)};
  for (const auto& [doc, ids] : scan.sources)
    sources.add(fmt::format("| {} | {} |\n", md_cell(clip(doc, 200)), ids.size()));
  md += "| document | cases |\n|---|---|\n" + sources.text;
  if (sources.left_out)
    md += fmt::format("\n({} more documents left out; each result's source is in results.jsonl)\n", sources.left_out);
  out << md;
}

// report-full.md: every result that did not pass, column by column, in run
// order; not-applicable results grouped (nothing ran for them).
void write_report_full_markdown(const RecordSource& source, const Scan& scan, std::ostream& md) {
  const ReportSummary& s = scan.summary;
  md << "# scatterproof report: every result that did not pass\n\n";
  md << fmt::format(
      "{} results: {}. The summary is `report.md`; passes are not listed here (`results.jsonl`, "
      "`report.json` and `junit.xml` hold every result), and n/a results are grouped by reason.\n",
      s.total, md_counts(s.verdicts));
  for (const auto& [column, counts] : s.columns) {
    size_t listed = 0;
    for (const auto& [kind, n] : counts)
      if (kind != Verdict::Kind::Pass && kind != Verdict::Kind::NotApplicable) listed += n;
    if (listed == 0) continue;
    md << fmt::format("\n## {}\n\n{}.\n\n", md_cell(column), md_counts(counts));
    source.for_each_in_column(column, [&](const ResultRecord& r) {
      if (r.verdict == Verdict::Kind::Pass || r.verdict == Verdict::Kind::NotApplicable) return;
      md << result_entry(column, r, std::string::npos);
    });
  }
  md << "\n## Not applicable (n/a), by reason\n\n";
  std::string table;
  group_table(table, scan.not_applicable, scan.not_applicable_left_out, std::string::npos, "None.\n");
  md << table;
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
