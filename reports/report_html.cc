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

constexpr const char* kHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>scatterproof report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f3f3f3}code,pre{font:12px ui-monospace,monospace}pre{white-space:pre-wrap;margin:.2em 0}
.v-pass{background:#c7e9c0}.v-fail{background:#fc9272}.v-crash{background:#cb181d;color:#fff}
.v-timeout{background:#fdae6b}.v-error{background:#fdd0a2}.v-xfail{background:#dadaeb}.v-xpass{background:#fa9fb5}
.v-unsupported{background:#eee}.v-not_applicable{background:#fafafa;color:#888}.v-unclassified{background:#fec44f}
.failure{border:1px solid #ccc;border-left:6px solid #de2d26;margin:.8em 0;padding:.4em .8em}
.failure h3{font-size:1em;margin:.2em 0}.prov td:first-child{color:#555;white-space:nowrap}
.slice{display:inline-block;margin:.3em 1em .3em 0;vertical-align:top}.slice div{font:11px monospace;color:#555}
svg.picture rect.ok{fill:#e5f5e0;stroke:#fff}svg.picture rect.bad{fill:#de2d26;stroke:#fff}
svg.picture text{font:9px monospace;pointer-events:none}.hidden{display:none}
.filters select{margin-right:1em}.note{color:#555}
</style></head><body>
<h1>scatterproof report</h1>
<noscript><p>This page draws its tables with its inline script; the same data is in the script element
"report-data" below, and in report.md / results.jsonl.</p></noscript>
<div id="runs"></div>
<p class="filters">Filters: op <select id="f-op"></select> backend <select id="f-backend"></select>
verdict <select id="f-verdict"></select></p>
<h2>Matrix</h2><p class="note">Results per op and backend, each cell coloured by its worst verdict.</p>
<table id="matrix"></table>
<h2>Failures</h2><div id="failures"></div>
<div id="changes-section" class="hidden"><h2>Changes between runs</h2><p class="note">Each case whose
verdict differs between the runs (one column per run, e.g. per framework version), with the rules
each run was judged by and the clauses the case cites.</p><div id="changes"></div></div>
<h2>Known deviations (expected failures)</h2><div id="xfails"></div>
<h2>Document errata found</h2><div id="errata"></div>
<script type="application/json" id="report-data">)HTML";

constexpr const char* kTail = R"HTML(</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("report-data").textContent);
const ORDER = ["crash","device_assert","fail","xpass","error","unclassified","timeout","xfail","unsupported","not_applicable","pass"];
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k instanceof Node ? k : String(k));
  return e;
}
function svg(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function colLabel(c) { return D.runs.length > 1 ? D.runs[c.run].label + ": " + c.name : c.name; }
function worst(counts) { for (const v of ORDER) if (counts[v]) return v; return ""; }
function countsText(counts) { return ORDER.filter(v => counts[v]).map(v => counts[v] + " " + (v === "not_applicable" ? "n/a" : v)).join(", "); }

// Runs.
for (const r of D.runs) {
  const total = Object.values(r.counts).reduce((a, b) => a + b, 0);
  document.getElementById("runs").append(el("p", {}, (r.label ? r.label + ": " : "") + (r.line || "(no run.json)") + " — " + total + " results: " + countsText(r.counts)));
}

// Matrix.
const cells = {};
for (const [op, col, counts] of D.matrix) cells[op + "," + col] = counts;
const matrix = document.getElementById("matrix");
const head = el("tr", {}, el("th", {}, "op"));
D.columns.forEach((c, i) => head.append(el("th", {"data-col": i, "data-backend": c.backend}, colLabel(c), el("br"),
  el("small", {}, c.version || (c.name.endsWith("(document)") ? "document check" : "")), c.framework ? el("br") : "", el("small", {}, c.framework ? "rules: " + c.framework : ""))));
matrix.append(el("thead", {}, head));
const body = el("tbody");
D.ops.forEach((op, o) => {
  const tr = el("tr", {"data-op": op}, el("th", {}, op));
  D.columns.forEach((c, i) => {
    const counts = cells[o + "," + i];
    const w = counts ? worst(counts) : "";
    tr.append(el("td", {"class": "cell" + (w ? " v-" + w : ""), "data-col": i, "data-backend": c.backend,
      "data-verdicts": counts ? Object.keys(counts).join(" ") : "", "title": counts ? countsText(counts) : "no results"},
      counts ? countsText(counts) : "–"));
  });
  body.append(tr);
});
matrix.append(body);

// A picture of a wrong output: one grid per 2-D slice, red where the element is outside the allowed set.
function picture(p) {
  const box = el("div", {"class": "pictures"});
  const shape = p.shape.length ? p.shape : [1];
  const rank = shape.length;
  const cols = shape[rank - 1], rows = rank >= 2 ? shape[rank - 2] : 1;
  const per = rows * cols;
  const allowed = {};
  p.bad.forEach((b, i) => { allowed[b] = i < p.allowed.length ? p.allowed[i] : "(not recorded)"; });
  const size = Math.max(12, Math.min(36, Math.floor(640 / Math.max(cols, 1))));
  const shown = p.actual.length;
  box.append(el("div", {"class": "note"}, "output " + p.output + " (" + p.dtype + ", shape [" + p.shape.join(", ") + "]): " + p.bad_total +
    " of " + shown + " shown elements outside the allowed set" + (shown < p.numel ? "; only the first " + shown + " of " + p.numel + " elements are recorded" : "") +
    ". Red: outside the allowed set; hover a cell for actual vs allowed."));
  for (let start = 0; start < shown; start += per) {
    const lead = [];
    let rest = start / per;
    for (let d = rank - 3; d >= 0; --d) { lead.unshift(rest % shape[d]); rest = Math.floor(rest / shape[d]); }
    const label = rank > 2 ? "[" + lead.join(", ") + ", :, :]" : "";
    const s = svg("svg", {"class": "picture", "width": cols * size + 1, "height": rows * size + 1, "data-slice": label});
    for (let k = 0; k < per && start + k < shown; ++k) {
      const lin = start + k, r = Math.floor(k / cols), c = k % cols;
      const bad = lin in allowed;
      const rect = svg("rect", {"x": c * size, "y": r * size, "width": size, "height": size, "class": bad ? "bad" : "ok", "data-index": lin});
      const idx = (rank > 2 ? lead.join("][") + "][" : "") + (rank >= 2 ? r + "][" : "") + c;
      const t = svg("title");
      t.textContent = "[" + idx + "] actual " + p.actual[lin] + (bad ? "; allowed " + allowed[lin] : " (allowed)");
      rect.append(t);
      s.append(rect);
      if (size >= 24 && p.actual[lin].length <= 5) {
        const tx = svg("text", {"x": c * size + 2, "y": r * size + size / 2 + 3});
        tx.textContent = p.actual[lin];
        s.append(tx);
      }
    }
    box.append(el("div", {"class": "slice"}, el("div", {}, label), s));
  }
  return box;
}

// Failures.
const fbox = document.getElementById("failures");
if (!D.failures_total) fbox.append(el("p", {}, "None: every result passed or was expected (xfail), unsupported or n/a."));
else fbox.append(el("p", {}, D.failures_total + " results failed (fail, xpass, crash, timeout, error, unclassified)" +
  (D.failures_total > D.failures.length ? "; the first " + D.failures.length + " are shown, results.jsonl has them all" : "") +
  (D.pictures_left_out ? "; " + D.pictures_left_out + " pictures left out (at most " + D.limits.pictures + ")" : "") + "."));
for (const f of D.failures) {
  const c = D.columns[f.col];
  const origin = f.source || {};
  const rows = [["case", f.case], ["op", f.op], ["backend", colLabel(c) + (c.version ? " (" + c.version + ")" : "")],
    ["rules of", f.rules], ["file", f.file], ["source", [origin.document, origin.example, origin.doc_version, origin.kind].filter(x => x).join(" · ")],
    ["reference answers", f.expected], ["clauses", f.clause], ["backend answered", f.outcome]];
  const prov = el("table", {"class": "prov"});
  for (const [k, v] of rows) if (v) prov.append(el("tr", {}, el("td", {}, k), el("td", {}, v)));
  const div = el("div", {"class": "failure", "data-op": f.op, "data-backend": c.backend, "data-verdict": f.verdict},
    el("h3", {}, el("span", {"class": "v-" + f.verdict}, f.verdict), " ", f.case, " — ", colLabel(c)), prov,
    el("pre", {"class": "detail"}, f.detail),
    el("div", {}, "repro: ", el("code", {}, f.repro || "")),
    el("div", {}, "the reference's reasoning: ", el("code", {}, "scatterproof explain " + f.case)));
  if (f.explanation) div.append(el("details", {"class": "explanation", "open": ""},
    el("summary", {}, "the reference's explanation (checks, writes, result)"),
    el("pre", {"class": "explanation"}, f.explanation.join("\n"))));
  if (f.picture) div.append(picture(f.picture));
  fbox.append(div);
}

function table(box, headers, rows, total, what) {
  if (!total) { box.append(el("p", {}, "None.")); return; }
  const t = el("table", {}, el("tr", {}, ...headers.map(h => el("th", {}, h))));
  for (const [attrs, cellsOf] of rows) t.append(el("tr", attrs, ...cellsOf.map(x => el("td", {}, x))));
  box.append(t);
  if (total > rows.length) box.append(el("p", {"class": "note"}, (total - rows.length) + " more " + what + " left out; results.jsonl has them all."));
}
table(document.getElementById("xfails"), ["backend", "op", "case", "what happened, and why it is listed", "repro"],
  D.xfails.map(x => [{"data-op": x.op, "data-backend": D.columns[x.col].backend, "data-verdict": "xfail"},
    [colLabel(D.columns[x.col]), x.op, x.case, x.detail, el("code", {}, x.repro)]]), D.xfails_total, "expected failures");
if (D.runs.length > 1) {
  document.getElementById("changes-section").classList.remove("hidden");
  table(document.getElementById("changes"), ["backend", "case", "clauses", ...D.runs.map(r => r.label)],
    D.changes.map(c => [{"data-backend": c.column.replace(/ \(document\)$/, "")}, [c.column, c.case,
      c.runs.map(x => x && x.clause).find(x => x) || "",
      ...c.runs.map(x => x ? el("span", {"class": "v-" + x.verdict, "title": "rules: " + x.rules}, x.verdict + " (" + x.rules + ")") : "–")]]),
    D.changes_total, "changed cases");
}
table(document.getElementById("errata"), ["document", "op", "case", "claim", "the reference says instead"],
  D.errata.map(e => [{"data-op": e.op}, [e.document, e.op, e.case, e.claim, e.reference_says]]),
  D.errata.length + D.errata_left_out, "errata");

// Filters: hide matrix rows/columns, failures and table rows that do not match.
function fill(id, values) {
  const s = document.getElementById(id);
  s.append(el("option", {"value": ""}, "all"));
  for (const v of values) s.append(el("option", {"value": v}, v));
  s.addEventListener("change", apply);
}
fill("f-op", D.ops);
fill("f-backend", [...new Set(D.columns.map(c => c.backend))]);
fill("f-verdict", ORDER);
function apply() {
  const op = document.getElementById("f-op").value, be = document.getElementById("f-backend").value,
        v = document.getElementById("f-verdict").value;
  for (const e of document.querySelectorAll("[data-backend]"))
    if (e.tagName === "TH" || e.tagName === "TD") e.classList.toggle("hidden", !!be && e.dataset.backend !== be);
  for (const tr of matrix.querySelectorAll("tbody tr")) {
    const hasV = !v || [...tr.querySelectorAll("td")].some(td => (!be || td.dataset.backend === be) && td.dataset.verdicts.split(" ").includes(v));
    tr.classList.toggle("hidden", (!!op && tr.dataset.op !== op) || !hasV);
  }
  for (const e of document.querySelectorAll(".failure, #xfails tr[data-op], #errata tr[data-op]"))
    e.classList.toggle("hidden", (!!op && e.dataset.op !== op) || (!!be && e.dataset.backend !== undefined && e.dataset.backend !== be) ||
      (!!v && e.dataset.verdict !== undefined && e.dataset.verdict !== v));
}
document.body.dataset.rendered = "yes";
</script>
</body></html>
)HTML";

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
  out << kHead << script_safe_json(data.to_json()) << kTail;
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
