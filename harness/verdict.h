// verdict.h — the comparator's judgement of one result, and the names the
// reports use for it.
//
//   pass        the outcome is allowed by the reference
//   fail        it is not (detail: first differing element, its allowed set,
//               actual value and bits, and the index/src positions that fed it)
//   unsupported the backend declined the call (detail: its reason)
//   crash       the backend died (isolation layer)
//   timeout     the backend ran past its limit (isolation layer)
//   error       a harness or spec problem, not a finding about the backend
//   xfail       a known failure listed in an expectation file
//   xpass       a listed known failure that passed (the list is stale)
//   unclassified the backend raised an error its classifier (an adapter's or
//               LibTorch's message table) cannot place in the taxonomy: a
//               gap in the classifier, never a pass — not even where the
//               reference leaves the call unspecified — and distinct from
//               "raised nothing" (that is a fail where an error is expected)
//   not_applicable the case does not apply to the framework version this
//               backend answers for (the case's "versions" range, FORMAT.md):
//               nothing was run; not a finding and not "unsupported"
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sp {

struct Verdict {
  enum class Kind { Pass, Fail, Unsupported, Crash, Timeout, Error, XFail, XPass, Unclassified, NotApplicable };
  Kind kind = Kind::Error;
  std::string detail;

  static Verdict pass(std::string detail = {}) { return {Kind::Pass, std::move(detail)}; }
  static Verdict fail(std::string detail) { return {Kind::Fail, std::move(detail)}; }
  static Verdict error(std::string detail) { return {Kind::Error, std::move(detail)}; }
};

inline constexpr Verdict::Kind kAllVerdictKinds[] = {
    Verdict::Kind::Pass,         Verdict::Kind::Fail,         Verdict::Kind::Unsupported, Verdict::Kind::Crash,
    Verdict::Kind::Timeout,      Verdict::Kind::Error,        Verdict::Kind::XFail,       Verdict::Kind::XPass,
    Verdict::Kind::Unclassified, Verdict::Kind::NotApplicable};

std::string_view verdict_name(Verdict::Kind k);  // "pass", "fail", ...
std::optional<Verdict::Kind> verdict_from_name(std::string_view name);
// fail, crash, timeout, error, xpass and unclassified make a run's exit code
// non-zero.
bool verdict_is_unexpected(Verdict::Kind k);

}  // namespace sp
