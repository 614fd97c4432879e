// report_markdown.cc — report.md, the summary a person reads in a minute
// (bounded: each section within its own byte budget and the summary's), and
// report-full.md, every result that did not pass (report_writers.h), from a
// RecordSource and its Scan (report_scan.h).
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "reports/report_scan.h"

namespace sp {

namespace {

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

// A program's steps, from the first lines of its explanation ("program of N
// steps:", then one line per step): "1. y = torch.scatter(...); 2. ...".
std::string program_steps(const ResultRecord& r) {
  if (r.op != "program" || r.explanation.empty() || r.explanation.front().rfind("program of ", 0) != 0) return "";
  std::string steps;
  for (size_t i = 1; i < r.explanation.size() && !r.explanation[i].empty(); ++i)
    steps += (steps.empty() ? "" : "; ") + r.explanation[i].substr(r.explanation[i].find_first_not_of(' '));
  return steps.empty() ? "" : "  - steps: " + md_cell(steps) + "\n";
}

// One result as a list entry: verdict, column, case, op, file, detail, repro
// (and a program's steps).
std::string result_entry(const std::string& column, const ResultRecord& r, size_t detail_bytes) {
  return fmt::format("- **{}** {} `{}` ({}, {}): {}\n{}  - repro: {}\n", md_verdict(r.verdict), md_cell(column),
                     md_cell(r.case_id), md_cell(op_label(r)), md_cell(r.file), md_cell(clip(r.detail, detail_bytes)),
                     program_steps(r), md_code(r.repro));
}

// What is left of report.md's byte budget for a section that wants `own`.
size_t md_budget(const std::string& md, size_t own) {
  return std::min(own, kSummaryBytes - std::min(kSummaryBytes, md.size()));
}

// report.md's failures: every one, up to kSummaryFailures, a share of each
// (op, column) group.
void failures_section(std::string& md, const RecordSource& source, const Scan& scan) {
  md += "\n## Failures\n\n";
  if (scan.failures == 0) {
    md += "None: every result passed or was expected (xfail), unsupported or n/a.\n";
  } else {
    // The first `share` entries of each group, in run order; then the
    // largest per-group count q <= share whose entries fit the byte budget,
    // so that every group keeps some when the budget binds.
    size_t share = std::max<size_t>(1, kSummaryFailures / scan.failure_groups.size());
    const size_t bytes = md_budget(md, 48 * 1024);
    std::vector<std::pair<size_t, std::string>> entries;  // (position within its group, text)
    std::map<std::pair<std::string, std::string>, size_t> seen;
    for (const auto& [column, counts] : scan.summary.columns)
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
}

// report.md's classifier gaps per backend and message: each message (its
// first line) with how many results raised it.
void unclassified_section(std::string& md, const Scan& scan) {
  md += "\n## Unclassified errors\n\n";
  if (scan.unclassified.empty()) {
    md += "None: every error a backend raised was placed in the taxonomy.\n";
  } else {
    Section section{kMaxTableRows, md_budget(md, 8 * 1024)};
    size_t results_left_out = 0;
    for (const auto& [key, n] : scan.unclassified)
      if (!section.add(fmt::format("| {} | {} | {} |\n", md_cell(key.first), md_cell(clip(key.second, 200)), n)))
        results_left_out += n;
    md += "| backend | message | results |\n|---|---|---|\n" + section.text;
    if (section.left_out || scan.unclassified_left_out)
      md += fmt::format("\n({} more messages left out; report-full.md lists every result)\n",
                        section.left_out + scan.unclassified_left_out);
  }
}

// report.md's device kernels that asserted (a CUDA device-side assert: the
// kernel found the problem, asynchronously, and the context died), by
// location.
void device_assert_section(std::string& md, const Scan& scan) {
  if (!scan.device_asserts.empty()) {
    md += "\n## Device-side asserts\n\n| backend | kernel | results | first case |\n|---|---|---|---|\n";
    for (const auto& [key, value] : scan.device_asserts)
      md += fmt::format("| {} | {} | {} | {} |\n", md_cell(key.first), md_cell(key.second), value.first,
                        md_cell(value.second));
  }
}

// report.md's known deviations, a product result in its own right: where
// real implementations do what their own documents do not allow, as listed
// in expectation files.
void deviations_section(std::string& md, const RecordSource& source, const Scan& scan) {
  using K = Verdict::Kind;
  md += "\n## Known deviations (expected failures)\n\n";
  const size_t xfails = count_of(scan.summary.verdicts, {K::XFail});
  if (xfails == 0) {
    md += "None.\n";
  } else {
    Section section{kSummaryFailures, md_budget(md, 40 * 1024)};
    for (const auto& [column, counts] : scan.summary.columns)
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
}

// report.md's document errata the cases found.
void errata_section(std::string& md, const Scan& scan) {
  md += "\n## Document errata found\n\n";
  if (scan.errata.empty()) {
    md += "None recorded.\n";
  } else {
    Section section{kMaxTableRows, md_budget(md, 10 * 1024)};
    for (const auto& [key, e] : scan.errata)
      section.add(fmt::format("| {} | `{}` | {} | {} |\n", md_cell(e.document), md_cell(key.second),
                              md_cell(clip(e.claim, 200)), md_cell(clip(e.reference_says, 200))));
    md += "| document | case | claim | the reference says instead |\n|---|---|---|---|\n" + section.text;
    if (section.left_out || scan.errata_left_out)
      md += fmt::format("\n({} more rows left out; results.jsonl has them all)\n",
                        section.left_out + scan.errata_left_out);
  }
}

}  // namespace

// report.md: the summary a person reads in a minute (report_writers.h).
void write_report_markdown(const RecordSource& source, const Scan& scan, std::ostream& out) {
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
  auto budget = [&](size_t own) { return md_budget(md, own); };

  failures_section(md, source, scan);
  unclassified_section(md, scan);
  device_assert_section(md, scan);
  deviations_section(md, source, scan);
  errata_section(md, scan);

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

}  // namespace sp
