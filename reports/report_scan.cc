// report_scan.cc — the one pass over the records behind every report
// (report_scan.h).
#include "reports/report_scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace sp {

using nlohmann::json;

namespace {

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

}  // namespace

std::string op_label(const ResultRecord& r) { return r.op.empty() ? "(spec input)" : r.op; }

std::string clip(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t end = n;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "…";
}

std::string first_line(const std::string& s, size_t n) { return clip(s.substr(0, s.find('\n')), n); }

Scan::Scan(const RecordSource& source, std::optional<nlohmann::json> run_record) : run(std::move(run_record)) {
  source.for_each([&](const ResultRecord& r) { add(r); });
}

void Scan::add(const ResultRecord& r) {
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

void Scan::add_to_group(std::map<std::pair<std::string, std::string>, Group>& groups, size_t& left_out,
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

size_t count_of(const std::map<Verdict::Kind, size_t>& m, std::initializer_list<Verdict::Kind> kinds) {
  size_t n = 0;
  for (Verdict::Kind k : kinds)
    if (auto it = m.find(k); it != m.end()) n += it->second;
  return n;
}

}  // namespace sp
