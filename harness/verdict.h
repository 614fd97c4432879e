// verdict.h — the comparator's judgement of one result, and the names the
// reports use for it.
//
//   pass        the outcome is allowed by the reference
//   fail        it is not (detail: first differing element, its allowed set,
//               actual value and bits, and the index/src positions that fed it)
//   unsupported the backend declined the call (detail: its reason)
//   crash       the backend died (isolation layer)
//   device_assert a device kernel asserted (a CUDA device-side assert; the
//               isolation layer saw it and rebuilt the context): detail
//               starts with the kernel's file:line. A deviation wherever the
//               document requires an error or outputs (SEMANTICS.md
//               "Devices"), listed by the required error's clause
//   timeout     the backend ran past its limit (isolation layer)
//   error       a harness or spec problem, not a finding about the backend
//   xfail       a known failure listed in an expectation file
//   xpass       a listed known failure that passed (the list is stale)
//   unclassified the backend raised an error its classifier (an adapter's or
//               LibTorch's message table) cannot place in the taxonomy: a
//               gap in the classifier, never a pass — not even where the
//               reference leaves the call unspecified — and distinct from
//               "raised nothing" (that is a fail where an error is expected)
//   not_applicable the backend does not implement the op at all (it is not
//               in its op list; a process backend's hello does not name it),
//               or the case does not apply to the framework version this
//               backend answers for (the case's "versions" range, FORMAT.md):
//               nothing was run; not a finding and not "unsupported" (which
//               is a call of an op the backend implements, declined for a
//               reason). The reports show it as "n/a", grouped by reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace sp {

struct Verdict {
  enum class Kind {
    Pass,
    Fail,
    Unsupported,
    Crash,
    Timeout,
    Error,
    XFail,
    XPass,
    Unclassified,
    NotApplicable,
    DeviceAssert
  };
  // What kind of fail (reference/SEMANTICS.md "Side effects"); the detail
  // starts with the failure's name for the two side-effect kinds:
  //   Other               a wrong output, error, category or storage write
  //   InputModified       "input modified: " an operand the op only reads
  //                       changed (the operand and its first changed element)
  //   SelfModifiedOnError "self modified although an error was reported: "
  //                       the written operand (self, out) changed although
  //                       the call was answered with an error the dialect
  //                       checks before any write (SE-2)
  enum class Failure { Other, InputModified, SelfModifiedOnError };
  Kind kind = Kind::Error;
  std::string detail;
  Failure failure = Failure::Other;  // meaningful for Kind::Fail
  // A clause the judgement itself cites, beside those of the reference's
  // answer: "DEV-FTZ" for a device's flushed subnormals (SEMANTICS.md
  // "Devices"). Results list it among their clauses, for expectation files.
  std::string clause;

  Verdict() = default;
  Verdict(Kind k, std::string d = {}, Failure f = Failure::Other) : kind(k), detail(std::move(d)), failure(f) {}

  static Verdict pass(std::string detail = {}) { return {Kind::Pass, std::move(detail)}; }
  static Verdict fail(std::string detail) { return {Kind::Fail, std::move(detail)}; }
  static Verdict error(std::string detail) { return {Kind::Error, std::move(detail)}; }
  static Verdict fail(Failure failure, std::string detail) { return {Kind::Fail, std::move(detail), failure}; }
};

// "other", "input_modified", "self_modified_on_error".
std::string_view failure_name(Verdict::Failure f);

inline constexpr Verdict::Kind kAllVerdictKinds[] = {
    Verdict::Kind::Pass,         Verdict::Kind::Fail,          Verdict::Kind::Unsupported, Verdict::Kind::Crash,
    Verdict::Kind::Timeout,      Verdict::Kind::Error,         Verdict::Kind::XFail,       Verdict::Kind::XPass,
    Verdict::Kind::Unclassified, Verdict::Kind::NotApplicable, Verdict::Kind::DeviceAssert};

std::string_view verdict_name(Verdict::Kind k);  // "pass", "fail", ...
std::optional<Verdict::Kind> verdict_from_name(std::string_view name);
// fail, crash, timeout, error, xpass, unclassified and device_assert make a run's exit code
// non-zero.
bool verdict_is_unexpected(Verdict::Kind k);

}  // namespace sp
