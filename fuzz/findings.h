// findings.h — fuzz campaigns: keep hunting after the first finding,
// bucket findings by signature, summarise them, and print replay commands
// that survive copy-paste.
//
// A finding's *signature* is what makes two findings "the same bug" for a
// campaign: (op, verdict kind, what the reference expected — the primary
// error category, "outputs" or "unspecified" —, what the backend did — an
// error category, "unclassified: <message shape>", "outputs:<failure class>", "unsupported",
// "crash", "timeout", "harness_error" or "reference_threw" —, and the
// clause of the rule involved — the clause of the error the reference
// expects, else empty). The failure class of an outputs-vs-outputs
// disagreement comes from the comparator's detail ("value", "dtype",
// "shape", "output_count", "input_modified", "self_modified_on_error",
// "written_outside_view",
// "self_not_updated", "out_not_written", "side_effect_while_unsupported",
// "nan_bits" — a NaN came back as a NaN with other bits where the exact bits
// were due —, "other"). A "nan_bits" finding has no expected error, so its
// clause is the one the comparison itself broke (failure_clause): C-3 for an
// element nothing writes, C-4 for a copied element; campaigns key known
// deviations of that kind by it.
//
// A campaign (fuzz_campaign) keeps the first trial of each signature (its
// bucket's repro) and counts the others; it stops when the time or case
// budget is spent or when it holds `max_findings` buckets. Shrinking a
// bucket's trial (shrink_finding, engine.h) accepts a step only when the
// candidate keeps the bucket's signature, so it never slips to another bug.
//
// Thread-safety: functions use only their arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fuzz/engine.h"

namespace sp::fuzz {

struct Signature {
  std::string op;
  std::string verdict;   // verdict_name(): fail, crash, timeout, error, unclassified
  std::string expected;  // error category name, "outputs" or "unspecified"
  std::string actual;    // see the file comment
  std::string clause;    // the expected error's clause; empty when none

  std::string key() const;  // one line, "op | verdict | expected | actual | clause"
  bool operator==(const Signature& o) const { return key() == o.key(); }
  bool operator!=(const Signature& o) const { return !(*this == o); }
};
// An unclassified error (no category) is keyed by its message instead of
// the reference's answer: expected "any", no clause, actual "unclassified:
// " + message_shape(message).
// The signature of a finding (any trial; a pass gets verdict "pass").
Signature signature_of(const Trial& t);
// The failure class of a fail verdict's detail where outputs were expected
// and given (see the file comment).
std::string failure_class(const std::string& detail);
// The reference/SEMANTICS.md clause a failed output comparison broke where
// its detail says which: "C-3" (an untouched element's NaN bits rewritten),
// "C-4" (a copied NaN's bits not kept); else empty.
std::string failure_clause(const Trial& t);
// A message's first line with every number (a run of digits, with its minus
// sign) replaced by '#' (at most
// 160 characters): "dimension 0 to 9, but received 10" -> "dimension # to #,
// but received #".
std::string message_shape(const std::string& message);

struct Bucket {
  Signature signature;
  uint64_t hits = 0;        // findings with this signature
  uint64_t first_case = 0;  // the campaign case number of the first
  Trial first;              // the first finding (choices filled in), unshrunk
  // The case numbers the backend ran before the first finding since it last
  // lost its process (a crash or a timeout), oldest first, at most
  // CampaignLimits::history, the ones it declined (unsupported) left out:
  // what fuzz/history.h replays when the finding does not reproduce alone.
  std::vector<uint64_t> history;
};

struct CampaignLimits {
  uint64_t seed = 1;
  std::chrono::milliseconds duration{10000};
  uint64_t max_cases = 0;    // 0: until the duration is spent
  size_t max_findings = 20;  // distinct signatures; 0: no limit
  size_t history = 64;       // earlier case numbers a bucket keeps (Bucket::history); 0: none
};
struct CampaignResult {
  FuzzStats stats;
  std::vector<Bucket> buckets;  // in the order found
  uint64_t findings = 0;        // all finding trials (the buckets' hits summed)
  // Known deviations by the entry that covered them (file: reason), with counts.
  std::map<std::string, uint64_t> known_by_entry;
  bool stopped_at_max_findings = false;
};
// Fuzzes `backend` until the budget is spent or `max_findings` distinct
// signatures were seen. Known deviations of `scope` are counted, not
// bucketed. `progress` (may be empty) is called about every 200 ms.
CampaignResult fuzz_campaign(Backend& backend, const CampaignLimits& limits, const FuzzScope& scope = {},
                             const std::function<void(const FuzzStats&, size_t buckets)>& progress = {});

// The words joined by spaces, each quoted by sp::shell_quote
// (harness/result_record.h: unchanged when made only of characters no
// shell treats specially, else single-quoted, '\'' for a quote inside).
std::string shell_join(const std::vector<std::string>& words);
// "PROGRAM repro FILE --backend BACKEND [--timeout S]", quoted.
std::string replay_command(const std::string& program, const std::string& repro_file, const std::string& backend,
                           double timeout_s = 0);

// One bucket as written to the summary.
struct FindingRecord {
  Bucket bucket;
  Trial shrunk;            // the bucket's repro (shrunk, or the first finding when shrinking failed)
  size_t shrunk_from = 0;  // choices before shrinking
  std::string repro_file;
  std::string replay;  // the quoted command
  // Where the finding did not reproduce alone (fuzz/history.h): what the
  // history replay found ("alone", "after N earlier case(s)", "not
  // reproduced ..."; empty: not tried), its sequence file and command.
  std::string history;
  std::string history_file;
  std::string history_replay;
};
struct CampaignSummary {
  std::string backend;
  uint64_t seed = 0;
  FuzzStats stats;
  uint64_t findings = 0;
  std::map<std::string, uint64_t> known_by_entry;
  bool stopped_at_max_findings = false;
  std::vector<FindingRecord> records;
};
// Writes DIR/findings.json and DIR/findings.md; returns their paths.
// Throws std::runtime_error when a file cannot be written.
std::vector<std::string> write_findings(const CampaignSummary& summary, const std::string& dir);

}  // namespace sp::fuzz
