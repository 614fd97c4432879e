// runner.cc — the case loop behind `scatterproof run` (runner.h).
#include "harness/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "backends/backend.h"
#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/layouts.h"
#include "harness/program_run.h"
#include "harness/run_judge.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "reference/versions.h"

namespace sp {

std::string document_expectation_summary(const CaseExpect& e) {
  switch (e.kind) {
    case CaseExpect::Kind::Output:
      return e.outputs.empty() ? "output (none given)" : "output " + render_tensor_values(e.outputs.front(), 16);
    case CaseExpect::Kind::OneOf:
      return fmt::format("one of {} outputs", e.outputs.size());
    case CaseExpect::Kind::Error:
      return "error " + (e.error ? std::string(error_name(*e.error)) : std::string("?"));
    case CaseExpect::Kind::Unspecified:
      return "unspecified: " + e.text;
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string reference_says(const Expectation& e) {
  if (!e.outputs || e.outputs->empty() || e.unspecified) return e.summary();
  const ExpectedTensor& t = e.outputs->front();
  std::string s = render_tensor_values(t.exact);
  if (!t.loose.empty()) s += fmt::format(" ({} element(s) may differ: {})", t.loose.size(), e.summary());
  return s;
}

ResultRecord record_for(const Case& c, const std::string& backend, const std::string& check) {
  ResultRecord r;
  r.case_id = c.id;
  r.file = c.file;
  r.op = c.call.op;
  r.backend = backend;
  r.check = check;
  r.source = c.source;
  r.tags = c.tags;
  r.repro = repro_command(backend, c.id, c.file);
  return r;
}

ResultRecord record_for_spec_error(const SpecError& e) {
  ResultRecord r;
  r.case_id = e.case_id().empty() ? "(file)" : e.case_id();
  r.file = e.file();
  r.backend = "loader";
  r.check = "load";
  r.verdict = Verdict::Kind::Error;
  r.detail = e.what();
  r.repro = "scatterproof validate " + shell_quote(e.file());
  return r;
}

// "torch 2.15.0+cu132", or "torch 1.13 (baseline)" for an empty version.
std::string rules_version_label(const OpCall& call) {
  const std::string& framework = op_spec(call).dialect;
  if (!call.framework_version.empty()) return framework + " " + call.framework_version;
  for (const ref::FrameworkBaseline& b : ref::framework_baselines())
    if (framework == b.framework) return framework + " " + b.version + " (baseline)";
  return framework;
}

// Why `c` does not apply to the version `call` follows, or nullopt when it
// does (the case's "versions" range, FORMAT.md). An unreadable version
// throws std::invalid_argument (the reference would too).
std::optional<std::string> not_applicable(const Case& c, const OpCall& call) {
  if (c.versions.empty()) return std::nullopt;
  std::string why;
  const std::optional<ref::VersionRange> range = ref::parse_version_range(c.versions, &why);
  if (!range) throw std::invalid_argument(why);  // the loader checked it: a harness bug
  const std::string& framework = op_spec(call).dialect;
  if (range->contains(ref::effective_version(framework, call.framework_version))) return std::nullopt;
  return "the case applies to " + framework + " " + c.versions + "; this backend is answered for " +
         rules_version_label(call);
}

// The backend's version, framework and device on its record.
void stamp_backend(ResultRecord& r, Backend& backend) {
  r.backend_version = backend.version();
  r.framework = backend.framework();
  r.device = backend.device();
}

// The reference's answers for the framework versions a case's backends are
// answered for, other than the case's own: evaluated once per version.
class VersionAnswers {
 public:
  // The answer for `call`'s version, or null with `why_not` set when the
  // reference threw for it (`label`: that version, for the message).
  const Expectation* answer(const OpCall& call, const std::string& label, std::string& why_not) {
    auto it = answers_.find(call.framework_version);
    if (it == answers_.end()) {
      std::optional<Expectation> e;
      try {
        e = evaluate(call);
      } catch (const std::exception& ex) {
        threw_[call.framework_version] = ex.what();
      }
      it = answers_.emplace(call.framework_version, std::move(e)).first;
    }
    if (it->second) return &*it->second;
    why_not = fmt::format("not judged: the reference threw for {}: {}", label, threw_[call.framework_version]);
    return nullptr;
  }

 private:
  std::map<std::string, std::optional<Expectation>> answers_;  // empty optional: the reference threw
  std::map<std::string, std::string> threw_;
};

// The backends one worker thread owns.
using BackendSet = std::vector<std::unique_ptr<Backend>>;

class CaseRunner {
 public:
  CaseRunner(const RunOptions& options, ResultSink& sink) : options_(options), sink_(sink) {}

  // `ops`: the ops an expectation entry may name for the result (a program's steps); default its own op.
  void emit(ResultRecord r, std::vector<std::string> ops = {}) {
    if (ops.empty()) ops.push_back(r.op);
    for (const std::string& op : r.check == "load" ? std::vector<std::string>{} : ops)
      if (const ExpectationEntry* listed = find_expectation(options_.expectations, r.case_id, r.backend, op, r.clause,
                                                            r.framework, r.device, r.verdict)) {
        const Verdict v = apply_expectation(*listed, Verdict{r.verdict, r.detail});
        r.verdict = v.kind;
        r.detail = v.detail;
        break;
      }
    std::lock_guard<std::mutex> lock(mutex_);
    sink_.write(r);
    ++verdicts_[r.verdict];
    if (r.check == "load")
      saw_spec_error_ = true;
    else if (verdict_is_unexpected(r.verdict) && !(r.verdict == Verdict::Kind::XPass && options_.xpass_warn))
      saw_unexpected_ = true;
  }

  void run_case(const Case& c, BackendSet& backends) {
    if (!c.not_run.empty()) return answer_not_run(c, backends);
    if (c.is_program())  // harness/program_run.h
      return run_program_case(
          c, backends,
          {record_for, [this](ResultRecord r, std::vector<std::string> ops) { emit(std::move(r), std::move(ops)); },
           [this](const std::string& f, const std::string& v, const Backend& b) { return version_in(f, v, b); },
           [this] { return stopping(); }});
    std::optional<ResultRecord::ErratumNote> erratum;
    std::optional<Expectation> exp;
    {
      ResultRecord doc = record_for(c, "reference", "document");
      doc.outcome = "document: " + document_expectation_summary(c.expect);
      doc.rules_version = rules_version_label(c.call);
      const auto start = Clock::now();
      try {
        exp = evaluate(c.call);
        doc.expected = exp->summary();
        doc.clause = cited_clauses(*exp);
        const Verdict v = check_reference_against_document(c, *exp);
        doc.verdict = v.kind;
        doc.detail = v.detail;
      } catch (const std::exception& e) {
        doc.verdict = Verdict::Kind::Error;
        doc.detail = fmt::format("the reference threw: {}", e.what());
      }
      doc.duration_ms = ms_since(start);
      if (c.erratum)
        erratum = ResultRecord::ErratumNote{c.erratum->document, c.erratum->claim,
                                            exp ? reference_says(*exp) : std::string("(reference failed)")};
      doc.erratum = erratum;
      emit(doc);
    }
    judge_backends(c, exp ? &*exp : nullptr, backends, [&](ResultRecord& r) { r.erratum = erratum; });
    // A huge case runs as written: a re-laid-out copy would double its memory.
    const bool huge = std::find(c.tags.begin(), c.tags.end(), kHugeTag) != c.tags.end();
    if (exp && !huge)
      for (const std::string& layout : options_.layouts)
        if (!stopping()) run_layout_variant(c, layout, *exp, backends);
  }

  // A case the loader did not build (Case::not_run): not_applicable, with
  // the reason, for the reference and every backend; nothing runs.
  void answer_not_run(const Case& c, BackendSet& backends) {
    ResultRecord doc = record_for(c, "reference", "document");
    doc.verdict = Verdict::Kind::NotApplicable;
    doc.detail = c.not_run;
    emit(doc);
    for (std::unique_ptr<Backend>& backend : backends) {
      ResultRecord r = record_for(c, backend->name(), "differential");
      r.verdict = Verdict::Kind::NotApplicable;
      r.detail = c.not_run;
      stamp_backend(r, *backend);
      emit(r);
    }
  }

  // The case with its operands re-laid out: the reference must answer the
  // same, and every backend is judged against it.
  void run_layout_variant(const Case& c, const std::string& layout, const Expectation& as_written,
                          BackendSet& backends) {
    const std::optional<OpCall> variant = relayout(c.call, layout);
    if (!variant) return;
    Case vc = c;
    vc.id = c.id + "@" + layout;
    vc.call = *variant;
    auto with_layout = [&](ResultRecord r) {
      r.repro = repro_command(r.backend, c.id, c.file) + " --layouts " + layout;
      return r;
    };
    ResultRecord same = with_layout(record_for(vc, "reference", "layout"));
    std::optional<Expectation> exp;
    const auto start = Clock::now();
    try {
      exp = evaluate(vc.call);
      same.expected = as_written.summary();
      same.outcome = exp->summary();
      const std::optional<std::string> diff = expectation_difference(as_written, *exp);
      same.verdict = diff ? Verdict::Kind::Fail : Verdict::Kind::Pass;
      if (diff) same.detail = "the reference answers differently on the " + layout + " layout: " + *diff;
    } catch (const std::exception& e) {
      same.verdict = Verdict::Kind::Error;
      same.detail = fmt::format("the reference threw: {}", e.what());
    }
    same.duration_ms = ms_since(start);
    emit(same);
    if (exp) judge_backends(vc, &*exp, backends, [&](ResultRecord& r) { r = with_layout(std::move(r)); });
  }

  // Every backend on `c.call`, judged against the reference; `exp` is its
  // answer for the case's own version (null: the reference failed on it).
  // A backend answered for another version of the op's framework (its own,
  // or --framework-version) gets the reference's answer for that version,
  // evaluated once per version per case. `annotate` adds to each record
  // before it is emitted.
  void judge_backends(const Case& c, const Expectation* exp, BackendSet& backends,
                      const std::function<void(ResultRecord&)>& annotate) {
    VersionAnswers by_version;
    for (std::unique_ptr<Backend>& backend : backends) {
      if (stopping()) return;
      ResultRecord r = record_for(c, backend->name(), "differential");
      annotate(r);
      const auto start = Clock::now();
      OpCall call = c.call;
      call.framework_version = version_for(c.call, *backend);
      r.rules_version = rules_version_label(call);
      // An op the backend does not implement at all (not in its op list: a
      // process backend's hello does not name it) is not applicable: nothing
      // runs, and it is no finding. "unsupported" stays for a call the
      // backend implements but declines (a dtype, a kernel it lacks). A call
      // with a signature problem is left to run_backend, which answers it.
      if (!backend->implements(call.op) && (!needs_signature_check(call) || !check_signature(call))) {
        r.verdict = Verdict::Kind::NotApplicable;
        r.detail = not_implemented_detail(backend->name());
        stamp_backend(r, *backend);
        r.duration_ms = ms_since(start);
        emit(r);
        continue;
      }
      std::string why_not;
      const Expectation* answer =
          call.framework_version != c.call.framework_version ? by_version.answer(call, r.rules_version, why_not) : exp;
      std::optional<std::string> skip;
      if (answer) try {
          skip = not_applicable(c, call);
        } catch (const std::exception& ex) {
          answer = nullptr;
          why_not = fmt::format("not judged: {}", ex.what());
        }
      if (!answer) {
        r.verdict = Verdict::Kind::Error;
        r.detail = why_not.empty() ? "not judged: the reference failed on this case" : why_not;
      } else if (skip) {
        r.verdict = Verdict::Kind::NotApplicable;
        r.detail = *skip;
        stamp_backend(r, *backend);
      } else if (!judge_call(r, *backend, call, *answer)) {
        return;
      }
      r.duration_ms = ms_since(start);
      emit(r);
    }
  }

  // Runs `call` on `backend`, judges it against `answer` and fills `r`;
  // false when the call was abandoned because the run was asked to stop (it
  // has no verdict then).
  bool judge_call(ResultRecord& r, Backend& backend, const OpCall& call, const Expectation& answer) {
    r.expected = answer.summary();
    r.clause = cited_clauses(answer);
    Judged j = run_and_judge(backend, call, answer);
    if (stopping() && j.outcome.kind == Outcome::Kind::HarnessError) return false;
    stamp_backend(r, backend);  // after the run: a process backend knows its version from its hello
    r.outcome = outcome_summary(j.outcome);
    r.verdict = j.verdict.kind;
    r.detail = std::move(j.verdict.detail);
    if (!j.verdict.clause.empty()) r.clause += (r.clause.empty() ? "" : " ") + j.verdict.clause;
    // A wrong output, element by element, for the HTML report's picture.
    if (r.verdict == Verdict::Kind::Fail) r.picture = output_picture(answer, j.outcome);
    // What the reference did with the call, for the reports (bounded).
    if (verdict_is_unexpected(r.verdict))
      r.explanation = explanation_lines(
          call, fmt::format("scatterproof explain {} {}", shell_quote(r.case_id), shell_quote(r.file)));
    return true;
  }

  // The version of the op's framework `backend` is answered for: its own
  // when it runs that framework, else --framework-version, else the case's.
  std::string version_for(const OpCall& call, const Backend& backend) const {
    return version_in(op_spec(call).dialect, call.framework_version, backend);
  }
  std::string version_in(const std::string& framework, const std::string& case_version, const Backend& b) const {
    if (const std::optional<FrameworkVersion> own = b.framework(); own && own->name == framework) return own->version;
    auto it = options_.framework_versions.find(framework);
    return it != options_.framework_versions.end() ? it->second : case_version;
  }

  // A stop was asked for (RunOptions::stop, set by SIGINT/SIGTERM): no new
  // case or backend call starts; the record being made is still written.
  bool stopping() const { return options_.stop && options_.stop->load() != 0; }

  RunSummary summary() const {
    RunSummary s;
    s.verdicts = verdicts_;
    s.exit_code = saw_unexpected_   ? exit_code::kUnexpectedResults
                  : saw_spec_error_ ? exit_code::kBadSpecInput
                                    : exit_code::kOk;
    if (stopping()) {
      s.interrupted_by = options_.stop->load();
      s.exit_code = exit_code::interrupted(s.interrupted_by);
      s.message = fmt::format("interrupted by signal {}: the results so far are written", s.interrupted_by);
    }
    return s;
  }

 private:
  const RunOptions& options_;
  ResultSink& sink_;
  std::mutex mutex_;
  std::map<Verdict::Kind, size_t> verdicts_;
  bool saw_unexpected_ = false;
  bool saw_spec_error_ = false;
};

}  // namespace

namespace {

// Runs the cases a producer hands over one at a time, so memory holds only
// the cases in flight: with one worker each case runs inside the
// producer's call; with several, through a hand-off queue of one case
// that the producer waits on while it is full.
RunSummary run_fed(const std::function<void(const CaseFn&, const ErrorFn&)>& produce, const RunOptions& options,
                   ResultSink& sink) {
  const size_t workers = static_cast<size_t>(std::max(1, options.threads));
  BackendOptions backend_options = options.backend_options;
  backend_options.stop = options.stop;  // a stop abandons an out-of-process call in flight
  std::vector<BackendSet> backend_sets(workers);
  for (BackendSet& set : backend_sets) {
    for (const std::string& name : options.backends) {
      std::string why;
      std::unique_ptr<Backend> b = make_backend(name, backend_options, &why);
      if (!b) return RunSummary{exit_code::kBackendUnavailable, why, {}};
      set.push_back(std::move(b));
    }
  }
  if (std::string why = sink.open(); !why.empty()) return RunSummary{exit_code::kUsage, why, {}};

  CaseRunner runner(options, sink);
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Case> queue;
  bool producing = true;
  std::exception_ptr failure;  // e.g. the sink could not write; rethrown after the join
  const size_t capacity = 1;   // a hand-off: in flight are the running cases and one waiting
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!failure) failure = e;
    changed.notify_all();
  };
  auto work = [&](BackendSet& backends) {
    try {
      for (;;) {
        std::optional<Case> next;
        {
          std::unique_lock<std::mutex> lock(mutex);
          changed.wait(lock, [&] { return !queue.empty() || !producing || failure; });
          if (failure || queue.empty()) return;
          next.emplace(std::move(queue.front()));
          queue.pop_front();
          changed.notify_all();
        }
        if (!runner.stopping()) {
          runner.run_case(*next, backends);
          if (options.on_case_done) options.on_case_done();
        }
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::jthread> threads;
  if (workers > 1)
    for (BackendSet& set : backend_sets) threads.emplace_back(work, std::ref(set));

  size_t matching = 0;
  auto on_case = [&](Case&& c) {
    if (runner.stopping() || !case_matches(c, options.filters) ||
        matching++ % static_cast<size_t>(options.shard_count) != static_cast<size_t>(options.shard_index))
      return;
    if (workers == 1) {
      if (!failure) try {
          runner.run_case(c, backend_sets.front());
          if (options.on_case_done) options.on_case_done();
        } catch (...) {
          failure = std::current_exception();
        }
      return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.size() < capacity || failure; });
    if (failure) return;
    queue.push_back(std::move(c));
    changed.notify_all();
  };
  auto on_error = [&](SpecError&& e) {
    if (runner.stopping()) return;
    try {
      runner.emit(record_for_spec_error(e));
    } catch (...) {
      fail(std::current_exception());
    }
  };
  try {
    produce(on_case, on_error);
  } catch (...) {
    fail(std::current_exception());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    producing = false;
    changed.notify_all();
  }
  threads.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  sink.close();
  return runner.summary();
}

}  // namespace

RunSummary run_cases(const std::vector<Case>& cases, const std::vector<SpecError>& spec_errors,
                     const RunOptions& options, ResultSink& sink) {
  return run_fed(
      [&](const CaseFn& on_case, const ErrorFn& on_error) {
        for (const SpecError& e : spec_errors) on_error(SpecError(e));
        for (const Case& c : cases) on_case(Case(c));
      },
      options, sink);
}

RunSummary run_specs(const std::vector<std::string>& paths, const RunOptions& options, ResultSink& sink) {
  return run_fed([&](const CaseFn& on_case, const ErrorFn& on_error) { stream_specs(paths, on_case, on_error); },
                 options, sink);
}

}  // namespace sp
