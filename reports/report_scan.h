// report_scan.h — the one pass over the records behind every report
// (report_writers.cc, report_markdown.cc): the counts and the bounded
// tables, and the small text helpers the writers share. Internal to
// reports/.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>

#include "reports/report_writers.h"

namespace sp {

// The op a result's row is under: "(spec input)" for a load error.
std::string op_label(const ResultRecord& r);

// Rows a table keeps before it says how many it left out.
constexpr size_t kMaxTableRows = 500;

// At most `n` bytes of `s` (cut at a UTF-8 character boundary), "…" when cut.
std::string clip(const std::string& s, size_t n);

// The first line of `s`, clipped to `n` bytes.
std::string first_line(const std::string& s, size_t n);

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
  std::optional<nlohmann::json> run;

  explicit Scan(const RecordSource& source, std::optional<nlohmann::json> run_record = std::nullopt);

  void add(const ResultRecord& r);
  static void add_to_group(std::map<std::pair<std::string, std::string>, Group>& groups, size_t& left_out,
                           const std::string& column, const ResultRecord& r);
};

// "scatterproof 0.1.0 (commit f5a7ff6), run 2026-11-26T05:04:00Z on host
// (Linux 6.1 x86_64, Debian GNU/Linux 12, 2 CPUs)" from run.json; empty
// without one.
std::string run_summary(const std::optional<nlohmann::json>& run);

// How many of `m`'s results have one of `kinds`.
size_t count_of(const std::map<Verdict::Kind, size_t>& m, std::initializer_list<Verdict::Kind> kinds);

// report.md and report-full.md (report_markdown.cc).
void write_report_markdown(const RecordSource& source, const Scan& scan, std::ostream& out);
void write_report_full_markdown(const RecordSource& source, const Scan& scan, std::ostream& md);

}  // namespace sp
