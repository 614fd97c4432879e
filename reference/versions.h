// versions.h — framework versions and the rules that hold only for some of
// them (reference/SEMANTICS.md, "Versioned rules").
//
// A framework changes its rules between releases (PyTorch 2.8 accepts an
// int32 index for gather/scatter, 1.13 refused it; MindSpore 2.10's
// documentation makes negative indices undefined). A versioned rule names
// the clause, the framework, the half-open range of versions it holds for,
// what it says and its source; the semantic files ask rule_holds(clause,
// version) with the call's OpCall::framework_version. An empty version is
// the framework's baseline: the version the seed documents and the
// reference's measurements describe (torch 1.13, MindSpore 2.3, Paddle 3.0).
//
// Versions are read leniently, as frameworks print them: "2.15.0+cu132",
// "1.13.0a0+gitunknown", "r2.10", "2.10.0rc1", "3.3.1" — the leading
// numeric release, missing parts counting as 0 ("2.10" == "2.10.0").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sp::ref {

struct Version {
  std::vector<int64_t> parts;  // the numeric release: {2, 15, 0}
  std::string to_string() const;
};
// The release of `text`; nullopt when it does not start with a number
// (after an optional 'r' or 'v').
std::optional<Version> parse_version(std::string_view text);
// <0, 0, >0; missing parts are 0.
int compare_versions(const Version& a, const Version& b);

// A half-open range [since, until) of versions; either end may be open.
// Written as comma-separated bounds: ">=2.8", "<2.10", ">=1.13,<2.0",
// "==2.3" (that release's series: >=2.3,<2.4 for a two-part version, exact
// for three parts).
struct VersionRange {
  std::optional<Version> since;  // inclusive
  std::optional<Version> until;  // exclusive
  std::string text;              // as written
  bool contains(const Version& v) const;
};
// Nullopt and *why when unreadable.
std::optional<VersionRange> parse_version_range(std::string_view text, std::string* why);

struct FrameworkBaseline {
  const char* framework;  // the op table's dialect name
  const char* version;    // what an empty OpCall::framework_version means
  const char* source;
};
std::span<const FrameworkBaseline> framework_baselines();

struct VersionedRule {
  const char* clause;     // reference/SEMANTICS.md id
  const char* framework;  // the op table's dialect name
  const char* since;      // first version it holds for; "" = from the first
  const char* until;      // first version it no longer holds for; "" = still holds
  const char* summary;
  const char* source;  // release note, pull request, documentation
};
// Every versioned rule, in SEMANTICS.md's order.
std::span<const VersionedRule> versioned_rules();

// The version a call follows: `version` read, or the framework's baseline
// when empty. Throws std::invalid_argument for an unreadable version or an
// unknown framework (with a baseline).
Version effective_version(std::string_view framework, const std::string& version);
// Whether versioned rule `clause` holds at `version` (empty: the baseline).
// Throws std::invalid_argument for an unreadable version; std::logic_error
// for a clause the table does not have (a reference bug).
bool rule_holds(std::string_view clause, const std::string& version);

}  // namespace sp::ref
