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
