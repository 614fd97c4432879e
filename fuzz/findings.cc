#include "fuzz/findings.h"

#include <fmt/format.h>

#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>

#include "fuzz/case_gen.h"
#include "harness/result_record.h"
#include "harness/run_judge.h"
#include "reference/errors.h"

namespace sp::fuzz {

std::string Signature::key() const {
  return fmt::format("{} | {} | {} | {} | {}", op, verdict, expected, actual, clause);
}

std::string failure_class(const std::string& detail) {
  auto has = [&](const char* s) { return detail.find(s) != std::string::npos; };
  if (detail.rfind("unsupported, but ", 0) == 0) return "side_effect_while_unsupported";
  if (detail.rfind("in-place op did not update self", 0) == 0) return "self_not_updated";
  if (detail.rfind("the result was not written into the given out", 0) == 0) return "out_not_written";
  // The comparator's side-effect failures (Verdict::Failure) start with
  // their name: "input modified: ...", "self modified although an error
  // was reported: ...".
  if (detail.rfind("input modified", 0) == 0) return "input_modified";
  if (detail.rfind("self modified", 0) == 0) return "self_modified_on_error";
  if (has(" was modified: ")) return "input_modified";
  if (has("written outside its view")) return "written_outside_view";
  if (detail.rfind("expected ", 0) == 0 && has(" output(s), got ")) return "output_count";
  if (detail.rfind("output ", 0) == 0) {
    if (has(": dtype ")) return "dtype";
    if (has(": shape ")) return "shape";
    if (const size_t a = detail.find(": allowed "); a != std::string::npos) {
      // A NaN where a NaN (alone or in a set of writers' values) was due,
      // with other bits.
      const size_t b = detail.find(", actual ", a);
      if (b != std::string::npos) {
        const std::string allowed = detail.substr(a, b - a), actual = detail.substr(b + 9);
        if (allowed.find("nan") != std::string::npos &&
            (actual.rfind("nan (", 0) == 0 || actual.rfind("-nan (", 0) == 0))
          return "nan_bits";
      }
      return "value";
    }
  }
  return "other";
}

std::string message_shape(const std::string& message) {
  std::string out;
  bool in_digits = false;
  for (char ch : message.substr(0, message.find('\n'))) {
    const bool digit = std::isdigit(static_cast<unsigned char>(ch)) != 0;
    if (digit && !in_digits) {
      if (!out.empty() && out.back() == '-') out.pop_back();  // a sign belongs to the number
      out += '#';
    }
    if (!digit) out += ch;
    in_digits = digit;
    if (out.size() >= 160) break;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string failure_clause(const Trial& t) {
  if (!t.verdict.clause.empty()) return t.verdict.clause;  // the judgement's own (DEV-FTZ)
  if (t.verdict.kind != Verdict::Kind::Fail || t.outcome.kind != Outcome::Kind::Outputs) return "";
  if (failure_class(t.verdict.detail) != "nan_bits") return "";
  return t.verdict.detail.find("; no writer") != std::string::npos ? "C-3" : "C-4";
}

Signature signature_of(const Trial& t) {
  Signature s;
  // A program's bucket is its first step's op (the write), so shrinking may drop later steps.
  s.op = t.program && !t.program->steps.empty() ? "program:" + t.program->steps.front().op : t.call.op;
  s.verdict = std::string(verdict_name(t.verdict.kind));
  const Expectation& e = t.expectation;
  const bool reference_threw = t.verdict.kind == Verdict::Kind::Error &&
                               t.outcome.kind == Outcome::Kind::HarnessError &&
                               t.verdict.detail.rfind("the reference threw", 0) == 0;
  if (reference_threw) {
    s.expected = "reference_threw";
    s.actual = "not_run";
    return s;
  }
  if (e.unspecified)
    s.expected = "unspecified";
  else if (e.expects_error())
    s.expected = std::string(error_name(e.errors.front()));
  else
    s.expected = "outputs";
  if (!e.unspecified && e.expects_error()) s.clause = e.error_clause;
  switch (t.outcome.kind) {
    case Outcome::Kind::Outputs:
      s.actual = t.verdict.kind == Verdict::Kind::Fail && s.expected == "outputs"
                     ? "outputs:" + failure_class(t.verdict.detail)
                     : "outputs";
      if (s.clause.empty()) s.clause = failure_clause(t);
      break;
    case Outcome::Kind::Error:
      if (!t.outcome.error) {
        // An error no classifier could place says more about itself than
        // the reference's answer does: one bucket per op and message, whatever
        // was expected (a framework's rank limit hit by valid and invalid
        // calls alike is one finding).
        s.expected = "any";
        s.clause.clear();
        s.actual = "unclassified: " + message_shape(t.outcome.message);
        break;
      }
      s.actual = std::string(error_name(*t.outcome.error));
      // An allowed error that still fails broke a side-effect rule (self or
      // an input written although the call was refused).
      if (t.outcome.error && t.verdict.kind == Verdict::Kind::Fail && t.verdict.detail.rfind("expected ", 0) != 0)
        s.actual += ":" + failure_class(t.verdict.detail);
      break;
    case Outcome::Kind::Unsupported:
      s.actual =
          t.verdict.kind == Verdict::Kind::Fail ? "unsupported:" + failure_class(t.verdict.detail) : "unsupported";
      break;
    default:
      s.actual = std::string(outcome_kind_name(t.outcome.kind));
      break;
  }
  return s;
}

CampaignResult fuzz_campaign(Backend& backend, const CampaignLimits& limits, const FuzzScope& given_scope,
                             const std::function<void(const FuzzStats&, size_t)>& progress) {
  using clock = std::chrono::steady_clock;
  FuzzScope scope = given_scope;  // its framework is filled in once the backend knows it (a process's hello)
  const auto start = clock::now();
  auto last_progress = start;
  CampaignResult result;
  std::map<std::string, size_t> by_key;
  // Case numbers since the backend last lost its process; the previous case
  // joins it at the next one, so a new bucket copies it without its own case
  // (and only a new bucket copies it).
  std::deque<uint64_t> recent;
  std::optional<std::pair<uint64_t, Verdict::Kind>> previous;
  const auto remember = [&](uint64_t j, Verdict::Kind kind) {
    if (lost_process(kind)) {
      recent.clear();  // the next case meets a fresh process
    } else if (limits.history > 0 && kind != Verdict::Kind::Unsupported) {
      recent.push_back(j);  // a declined case mostly never reached the backend's process
      if (recent.size() > limits.history) recent.pop_front();
    }
  };
  for (uint64_t i = 0;; ++i) {
    const auto now = clock::now();
    if (now - start >= limits.duration || (limits.max_cases && i >= limits.max_cases)) break;
    if (progress && now - last_progress >= std::chrono::milliseconds(200)) {
      result.stats.seconds = std::chrono::duration<double>(now - start).count();
      progress(result.stats, result.buckets.size());
      last_progress = now;
    }
    if (previous) remember(previous->first, previous->second);
    Trial t = run_case(backend, scope, limits.seed, i, result.stats);
    previous.emplace(i, t.verdict.kind);
    if (!is_finding(t.verdict.kind)) continue;
    if (!scope.framework) scope.framework = backend.framework();
    if (scope.device.empty()) scope.device = backend.device();
    if (const ExpectationEntry* known = known_deviation(scope, t)) {
      ++result.stats.known;
      ++result.known_by_entry[known->file + ": " + known->reason];
      continue;
    }
    ++result.findings;
    Signature sig = signature_of(t);
    const std::string key = sig.key();
    if (auto it = by_key.find(key); it != by_key.end()) {
      ++result.buckets[it->second].hits;
      continue;
    }
    by_key.emplace(key, result.buckets.size());
    Bucket b;
    b.signature = std::move(sig);
    b.hits = 1;
    b.first_case = i;
    b.first = std::move(t);
    b.history.assign(recent.begin(), recent.end());
    result.buckets.push_back(std::move(b));
    if (limits.max_findings && result.buckets.size() >= limits.max_findings) {
      result.stopped_at_max_findings = true;
      break;
    }
  }
  result.stats.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::string replay_command(const std::string& program, const std::string& repro_file, const std::string& backend,
                           double timeout_s) {
  std::vector<std::string> words = {program, "repro", repro_file, "--backend", backend};
  if (timeout_s > 0) {
    words.push_back("--timeout");
    words.push_back(fmt::format("{}", timeout_s));
  }
  return shell_join(words);
}

namespace {

nlohmann::json stats_json(const FuzzStats& s) {
  return {{"cases", s.cases},
          {"seconds", s.seconds},
          {"exec_per_s", s.seconds > 0 ? static_cast<double>(s.cases) / s.seconds : 0.0},
          {"invalid", s.invalid},
          {"unsupported", s.unsupported},
          {"known_deviations", s.known}};
}

// Markdown table cells: no raw '|' or newline.
std::string cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

// A list item's text: continuation lines indented so they stay in the item.
std::string item_text(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

std::vector<std::string> write_findings(const CampaignSummary& summary, const std::string& dir) {
  std::filesystem::create_directories(dir);
  nlohmann::json doc = {{"format", "scatterproof-findings/1"},
                        {"backend", summary.backend},
                        {"seed", summary.seed},
                        {"stats", stats_json(summary.stats)},
                        {"findings", summary.findings},
                        {"distinct", summary.records.size()},
                        {"stopped_at_max_findings", summary.stopped_at_max_findings},
                        {"known", nlohmann::json::object()},
                        {"buckets", nlohmann::json::array()}};
  for (const auto& [entry, n] : summary.known_by_entry) doc["known"][entry] = n;
  for (const FindingRecord& r : summary.records) {
    const Signature& s = r.bucket.signature;
    doc["buckets"].push_back(
        {{"signature",
          {{"op", s.op}, {"verdict", s.verdict}, {"expected", s.expected}, {"actual", s.actual}, {"clause", s.clause}}},
         {"key", s.key()},
         {"hits", r.bucket.hits},
         {"first_case", r.bucket.first_case},
         {"call", r.shrunk.call.describe()},
         {"reference", r.shrunk.expectation.summary()},
         {"outcome", outcome_summary(r.shrunk.outcome)},
         {"detail", r.shrunk.verdict.detail},
         {"choices", r.shrunk.choices.size()},
         {"choices_before_shrinking", r.shrunk_from},
         {"repro", r.repro_file},
         {"replay", r.replay},
         {"history", r.history},
         {"history_repro", r.history_file},
         {"history_replay", r.history_replay}});
  }
  const std::string json_path = (std::filesystem::path(dir) / "findings.json").string();
  write_text(json_path, doc.dump(2) + "\n");

  const FuzzStats& st = summary.stats;
  std::string md = fmt::format("# Fuzz findings: backend `{}`\n\n", summary.backend);
  md += fmt::format(
      "Seed {}; {} cases in {:.1f} s ({:.0f} exec/s); {} finding(s) in {} distinct bucket(s); {} known "
      "deviation(s){}.\n\n",
      summary.seed, st.cases, st.seconds, st.seconds > 0 ? static_cast<double>(st.cases) / st.seconds : 0.0,
      summary.findings, summary.records.size(), st.known,
      summary.stopped_at_max_findings ? "; stopped at --max-findings" : "");
  if (!summary.known_by_entry.empty()) {
    md += "Known deviations (expectation entries):\n\n";
    for (const auto& [entry, n] : summary.known_by_entry) md += fmt::format("- {} × {}\n", n, cell(entry));
    md += "\n";
  }
  if (!summary.records.empty()) {
    md += "| # | op | verdict | expected | actual | clause | hits |\n|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < summary.records.size(); ++i) {
      const FindingRecord& r = summary.records[i];
      const Signature& s = r.bucket.signature;
      md += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} |\n", i + 1, s.op, s.verdict, cell(s.expected),
                        cell(s.actual), s.clause.empty() ? "-" : s.clause, r.bucket.hits);
    }
    md += "\n";
  }
  for (size_t i = 0; i < summary.records.size(); ++i) {
    const FindingRecord& r = summary.records[i];
    md += fmt::format("## {}. {}\n\n", i + 1, r.bucket.signature.key());
    md += fmt::format("- hits: {} (first at case {})\n", r.bucket.hits, r.bucket.first_case);
    md += fmt::format("- call ({} choices, shrunk from {}): `{}`\n", r.shrunk.choices.size(), r.shrunk_from,
                      r.shrunk.call.describe());
    md += fmt::format("- reference: {}\n", item_text(r.shrunk.expectation.summary()));
    md += fmt::format("- backend: {}\n", item_text(outcome_summary(r.shrunk.outcome)));
    md += fmt::format("- verdict: {}: {}\n", verdict_name(r.shrunk.verdict.kind), item_text(r.shrunk.verdict.detail));
    md += fmt::format("- repro: `{}`\n", r.repro_file);
    md += fmt::format("- replay:\n\n      {}\n\n", r.replay);
    if (!r.history.empty()) md += fmt::format("- history: {}\n", item_text(r.history));
    if (!r.history_file.empty())
      md += fmt::format("- with its history: `{}`; replay:\n\n      {}\n\n", r.history_file, r.history_replay);
  }
  const std::string md_path = (std::filesystem::path(dir) / "findings.md").string();
  write_text(md_path, md);
  return {json_path, md_path};
}

}  // namespace sp::fuzz
