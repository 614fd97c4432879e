// result_record.h — one result of a run, as the runner produces it, and the
// sink the runner hands each one to.
//
// The runner knows nothing of files: it emits records to a ResultSink. The
// report writers (reports/) provide the sink that streams them to
// results.jsonl and rebuilds the reports; tests and tools may provide their
// own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/case.h"
#include "harness/verdict.h"

namespace sp {

// A failing output, element by element (harness/comparator.h,
// output_picture): what the backend produced and which elements the
// reference's allowed set rejects. For the HTML report's picture; bounded
// (kMaxPictureElements of the output's row-major elements).
struct OutputPicture {
  static constexpr int64_t kMaxPictureElements = 1024;
  static constexpr size_t kMaxAllowedTexts = 256;
  std::string output;  // the output's name ("self", "out")
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t numel = 0;                 // the output's elements; actual holds the first min(numel, kMax...)
  std::vector<std::string> actual;   // row-major values, as text
  std::vector<int64_t> bad;          // row-major indices (< actual.size()) outside the allowed set
  std::vector<std::string> allowed;  // what the reference allows at bad[i], for the first kMaxAllowedTexts
  int64_t bad_total = 0;             // outside the allowed set among actual's elements
};

struct ResultRecord {
  std::string case_id;
  std::string file;
  std::string op;
  std::string backend;
  std::string backend_version;  // Backend::version() ("LibTorch 1.13.1"); empty for the document checks
  // The framework and version whose rules the reference answered by
  // ("torch 2.15.0+cu132"; "torch 1.13 (baseline)" when the call named none):
  // a framework backend's own version, else --framework-version, else the
  // case's source.doc_version (reference/versions.h).
  std::string rules_version;
  // Backend::framework(): the framework whose rules the backend runs by
  // ({"torch", "2.15.0"}); none for the project's implementations.
  std::optional<FrameworkVersion> framework;
  // Backend::device(): the accelerator it ran on ("cuda:0"); "" for the host.
  std::string device;
  // "document": the reference against the case's documented expectation;
  // "differential": a backend against the reference; "layout": the
  // reference on a re-laid-out case against itself as written; "load": the
  // spec input itself could not be loaded (backend "loader").
  std::string check;
  Verdict::Kind verdict = Verdict::Kind::Error;
  std::string detail;
  std::string expected;  // the reference's answer, summarized
  // The clauses of reference/SEMANTICS.md the reference's answer cites
  // (harness/run_judge.h, cited_clauses), space separated: what
  // clause-keyed expectation entries match.
  std::string clause;
  std::string outcome;  // what the backend (or document) said, summarized
  Provenance source;
  struct ErratumNote {
    std::string document;
    std::string claim;
    std::string reference_says;  // what the reference allows instead
  };
  std::optional<ErratumNote> erratum;
  std::vector<std::string> tags;
  double duration_ms = 0.0;
  std::string repro;  // a command line that reruns just this result
  // A fail on a produced output: the output, element by element (optional
  // in results.jsonl: "picture").
  std::optional<OutputPicture> picture;
  // A result that did not pass: the reference's explanation of the call
  // (the lines `scatterproof explain` prints: checks, writes, result),
  // bounded by explanation_lines() (optional in results.jsonl: "explanation").
  std::vector<std::string> explanation;
};

// The reference's explanation of `call` for a result that did not pass:
// explain's lines, at most kMaxExplanationLines of at most
// kMaxExplanationLineChars each, then a line saying how many were left out
// and the command that prints them all. A call of more than
// kMaxExplainedElements elements (every tensor) is not traced (a trace holds
// every write): one line names the command instead.
inline constexpr size_t kMaxExplanationLines = 60;
inline constexpr size_t kMaxExplanationLineChars = 200;
inline constexpr int64_t kMaxExplainedElements = 1 << 16;
std::vector<std::string> explanation_lines(const OpCall& call, const std::string& explain_command);
// The bounding alone, for lines made elsewhere (a program's, harness/program_run.h).
std::vector<std::string> bounded_explanation(std::vector<std::string> all, const std::string& explain_command);

// `scatterproof run --backend B --filter 'ID' FILE`, shell-quoted.
std::string repro_command(const std::string& backend, const std::string& case_id, const std::string& file);
std::string shell_quote(const std::string& s);
// The detail of a not_applicable result for an op `backend` does not
// implement at all (the op is the record's own field): "backend numpy does
// not implement this op; nothing was run". One text per backend, so the
// reports group these results by (backend, reason).
std::string not_implemented_detail(const std::string& backend);

// Where a run's records go. The runner calls open() once, after the run's
// backends exist and before the first record (so a run that cannot start
// leaves nothing behind); write() for every record, expectation entries
// applied, one call at a time (never concurrently); close() after the last
// record of a run that finished (not after a run aborted by an exception).
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Empty: go on. Otherwise the run stops before its first case, as a usage
  // error with this message (e.g. a report directory that cannot be made).
  virtual std::string open() { return {}; }
  virtual void write(const ResultRecord& r) = 0;
  virtual void close() {}
};

}  // namespace sp
