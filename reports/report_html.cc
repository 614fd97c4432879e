// report_html.cc — report.html (report_html.h): one pass over each run's
// records collects bounded data; the page is a fixed template with that data
// embedded as JSON, rendered by its inline script with DOM calls only (no
// innerHTML of data, so no text from a record can become markup).
#include "reports/report_html.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

// reports/templates/report.{html,css,js}, embedded at build time
// (reports/embedded_report.cmake).
extern const char kSpReportHtml[];
extern const char kSpReportCss[];
extern const char kSpReportJs[];

namespace sp {

using nlohmann::json;

namespace {

// At most `n` bytes of `s`, cut at a UTF-8 character boundary, "…" when cut.
std::string clip_text(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t end = n;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "…";
}

std::string text_field(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("?");
}

// "scatterproof 0.1.0 (commit f5a7ff6), run 2026-...Z on host (...)" from run.json.
std::string run_line(const std::optional<json>& run) {
  if (!run || !run->is_object()) return "";
  std::string line = fmt::format("scatterproof {} (commit {}), run {}", text_field(*run, "tool_version"),
                                 text_field(*run, "commit"), text_field(*run, "started_at"));
  if (const auto m = run->find("machine"); m != run->end() && m->is_object()) {
    const auto cpus = m->find("cpu_count");
    line += fmt::format(" on {} ({}, {}, {} CPUs)", text_field(*m, "hostname"), text_field(*m, "os"),
                        text_field(*m, "distribution"),
                        cpus != m->end() && cpus->is_number_integer() ? std::to_string(cpus->get<int64_t>()) : "?");
  }
  return line;
}

// The page's data, collected over every run.
struct HtmlData {
  json runs = json::array();
  json columns = json::array();
  std::map<std::pair<std::string, size_t>, size_t> column_index;                  // (column name, run) -> index
  std::map<std::string, std::map<size_t, std::map<std::string, size_t>>> matrix;  // op -> column -> verdict -> n
  json failures = json::array();
  size_t failures_total = 0, pictures = 0, pictures_left_out = 0;
  json xfails = json::array();
  size_t xfails_total = 0;
  json errata = json::array();
  std::set<std::pair<std::string, std::string>> errata_seen;
  size_t errata_left_out = 0;
  // (column name, case) -> run -> {verdict, clauses, rules}: the cases whose
  // verdict differs between runs (several runs only, e.g. one per framework
  // version from scripts/version-matrix).
  std::map<std::pair<std::string, std::string>, std::map<size_t, std::array<std::string, 3>>> by_case;
  bool compare_runs = false;

  size_t column_of(size_t run, const ResultRecord& r) {
    const std::string name = result_column(r);
    auto [it, added] = column_index.emplace(std::pair(name, run), columns.size());
    if (added)
      columns.push_back({{"run", run}, {"name", name}, {"backend", r.backend}, {"version", ""}, {"framework", ""}});
    return it->second;
  }

  void add(size_t run, const ResultRecord& r, std::map<std::string, size_t>& counts) {
    const size_t col = column_of(run, r);
    const std::string verdict(verdict_name(r.verdict));
    const std::string op = r.op.empty() ? "(spec input)" : r.op;
    if (compare_runs) by_case[{result_column(r), r.case_id}][run] = {verdict, r.clause, r.rules_version};
    ++counts[verdict];
    ++matrix[op][col][verdict];
    json& c = columns[col];
    if (r.check == "differential") {
      if (c["version"].get<std::string>().empty()) c["version"] = r.backend_version;
      if (r.framework && c["framework"].get<std::string>().empty())
        c["framework"] = r.framework->name + " " + r.framework->version;
    }
    if (verdict_is_unexpected(r.verdict)) {
      ++failures_total;
      if (failures.size() < kHtmlMaxFailures) {
        json f = {{"col", col},
                  {"op", op},
                  {"case", r.case_id},
                  {"file", r.file},
                  {"check", r.check},
                  {"verdict", verdict},
                  {"detail", clip_text(r.detail, 1500)},
                  {"expected", clip_text(r.expected, 400)},
                  {"outcome", clip_text(r.outcome, 400)},
                  {"clause", clip_text(r.clause, 200)},
                  {"rules", r.rules_version},
                  {"source", provenance_to_json(r.source)},
                  {"repro", clip_text(r.repro, 600)}};
        if (!r.explanation.empty()) f["explanation"] = r.explanation;  // bounded by the runner
        if (r.picture) {
          if (pictures < kHtmlMaxPictures) {
            f["picture"] = picture_to_json(*r.picture);
            ++pictures;
          } else {
            ++pictures_left_out;
          }
        }
        failures.push_back(std::move(f));
      } else if (r.picture) {
        ++pictures_left_out;
      }
    }
    if (r.verdict == Verdict::Kind::XFail) {
      ++xfails_total;
      if (xfails.size() < kHtmlMaxTableRows)
        xfails.push_back({{"col", col},
                          {"op", op},
                          {"case", r.case_id},
                          {"detail", clip_text(r.detail, 300)},
                          {"repro", clip_text(r.repro, 400)}});
    }
    if (r.erratum && !errata_seen.count({r.erratum->document, r.case_id})) {
      if (errata.size() < kHtmlMaxTableRows) {
        errata_seen.insert({r.erratum->document, r.case_id});
        errata.push_back({{"document", r.erratum->document},
                          {"case", r.case_id},
                          {"op", op},
                          {"claim", clip_text(r.erratum->claim, 300)},
                          {"reference_says", clip_text(r.erratum->reference_says, 300)}});
      } else {
        ++errata_left_out;
      }
    }
  }

  // Every case whose verdict is not the same in every run that has it: its
  // verdict, clauses and rules per run (null where a run lacks it).
  std::pair<json, size_t> changes(size_t runs) const {
    json out = json::array();
    size_t total = 0;
    for (const auto& [key, per_run] : by_case) {
      std::set<std::string> verdicts;
      for (const auto& [run, v] : per_run) verdicts.insert(v[0]);
      if (verdicts.size() < 2) continue;
      if (++total > kHtmlMaxTableRows) continue;
      json row = {{"column", key.first}, {"case", key.second}, {"runs", json::array()}};
      for (size_t i = 0; i < runs; ++i) {
        const auto it = per_run.find(i);
        row["runs"].push_back(it == per_run.end() ? json(nullptr)
                                                  : json{{"verdict", it->second[0]},
                                                         {"clause", clip_text(it->second[1], 200)},
                                                         {"rules", it->second[2]}});
      }
      out.push_back(std::move(row));
    }
    return {out, total};
  }

  json to_json() const {
    const std::pair<json, size_t> changed = changes(runs.size());
    json m = json::array();
    json ops = json::array();
    for (const auto& [op, row] : matrix) {
      for (const auto& [col, counts] : row) m.push_back({ops.size(), col, counts});
      ops.push_back(op);
    }
    return {{"runs", runs},
            {"columns", columns},
            {"ops", ops},
            {"matrix", m},
            {"failures", failures},
            {"failures_total", failures_total},
            {"pictures_left_out", pictures_left_out},
            {"xfails", xfails},
            {"xfails_total", xfails_total},
            {"errata", errata},
            {"errata_left_out", errata_left_out},
            {"changes", changed.first},
            {"changes_total", changed.second},
            {"limits",
             {{"failures", kHtmlMaxFailures},
              {"pictures", kHtmlMaxPictures},
              {"picture_elements", OutputPicture::kMaxPictureElements}}}};
  }
};

// The page, reports/templates/report.html, with its slots filled: {{style}}
// from report.css, {{script}} from report.js (all three embedded at build
// time, reports/embedded_report.cmake), {{data}} from the run. Only the
// HTML is searched for slots; what fills one is written as it is.
void write_page(std::ostream& out, const std::string& data) {
  const std::string_view page = kSpReportHtml;
  size_t at = 0;
  for (size_t open = page.find("{{"); open != std::string_view::npos; open = page.find("{{", at)) {
    const size_t close = page.find("}}", open);
    if (close == std::string_view::npos) throw std::logic_error("report.html: a {{ slot without }}");
    const std::string_view slot = page.substr(open + 2, close - open - 2);
    out << page.substr(at, open - at);
    if (slot == "style")
      out << kSpReportCss;
    else if (slot == "script")
      out << kSpReportJs;
    else if (slot == "data")
      out << data;
    else
      throw std::logic_error(fmt::format("report.html: unknown slot {{{{{}}}}}", slot));
    at = close + 2;
  }
  out << page.substr(at);
}

}  // namespace

std::string script_safe_json(const json& j) {
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void write_report_html(const std::vector<HtmlRun>& runs, std::ostream& out) {
  HtmlData data;
  data.compare_runs = runs.size() > 1;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::map<std::string, size_t> counts;
    if (runs[i].source) runs[i].source->for_each([&](const ResultRecord& r) { data.add(i, r, counts); });
    data.runs.push_back({{"label", runs[i].label}, {"line", run_line(runs[i].run)}, {"counts", counts}});
  }
  write_page(out, script_safe_json(data.to_json()));
}

std::string report_html(const std::vector<ResultRecord>& records) {
  const VectorSource source(records);
  std::ostringstream out;
  write_report_html({HtmlRun{"", &source, std::nullopt}}, out);
  return out.str();
}

void write_report_html_file(const std::vector<HtmlRun>& runs, const std::string& path) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", temporary));
    write_report_html(runs, out);
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", temporary));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot write: {}", path, ec.message()));
}

}  // namespace sp
