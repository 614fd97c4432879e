// Expectation files: loading with errors that name file and field, glob
// matching, the XFAIL/XPASS transitions and merging new entries.
#include "harness/expectations.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/case.h"
#include "harness/run_judge.h"

namespace sp {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("sp_exp_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(Expectations, LoadsEntries) {
  const std::string p = write_temp("ok.json", R"({"format": "scatterproof-expectations/1", "entries": [
      {"case": "paddle/*", "backend": "paddle", "reason": "wraps negatives", "link": "https://example.org/1"}]})");
  const std::vector<ExpectationEntry> e = load_expectation_file(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].reason, "wraps negatives");
  EXPECT_EQ(e[0].link, "https://example.org/1");
  EXPECT_EQ(e[0].file, p);
}

TEST(Expectations, ErrorsNameTheField) {
  auto error_of = [](const std::string& text) {
    try {
      load_expectation_file(write_temp("bad.json", text));
    } catch (const SpecError& e) {
      return e.field() + ": " + e.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"format": "x", "entries": []})").rfind("format", 0), 0u);
  EXPECT_EQ(error_of(R"({"format": "scatterproof-expectations/1"})").rfind("entries", 0), 0u);
  EXPECT_EQ(error_of(R"({"format": "scatterproof-expectations/1", "entries": [{"case": "a", "backend": "b"}]})"),
            "entries[0].reason: missing");
  EXPECT_EQ(error_of(R"({"format": "scatterproof-expectations/1", "entries": [{"case": "a", "backend": "b",
            "reason": "r", "colour": "red"}]})"),
            "entries[0].colour: unknown field");
  EXPECT_NE(error_of("{not json"), "no error");
}

// An intermittent deviation (uninitialised memory): a failure is XFAIL, a
// pass stays a pass (the entry is not stale), so the gate does not flake.
TEST(Expectations, IntermittentEntriesLetAPassStand) {
  const std::string p = write_temp("intermittent.json", R"({"format": "scatterproof-expectations/1", "entries": [
      {"case": "paddle/x", "backend": "paddle", "reason": "garbage rows", "intermittent": true},
      {"case": "paddle/y", "backend": "paddle", "reason": "always"}]})");
  const std::vector<ExpectationEntry> e = load_expectation_file(p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_TRUE(e[0].intermittent);
  EXPECT_FALSE(e[1].intermittent);
  EXPECT_EQ(apply_expectation(e[0], Verdict::pass()).kind, Verdict::Kind::Pass);
  EXPECT_NE(apply_expectation(e[0], Verdict::pass()).detail.find("intermittently"), std::string::npos);
  EXPECT_EQ(apply_expectation(e[0], Verdict::fail("x")).kind, Verdict::Kind::XFail);
  EXPECT_EQ(apply_expectation(e[1], Verdict::pass()).kind, Verdict::Kind::XPass);
  const std::string bad = write_temp("bad-intermittent.json", R"({"format": "scatterproof-expectations/1",
      "entries": [{"case": "a", "backend": "b", "reason": "r", "intermittent": "yes"}]})");
  EXPECT_THROW(load_expectation_file(bad), SpecError);
}

TEST(Expectations, GlobsCoverLayoutVariantsAndBackends) {
  const std::vector<ExpectationEntry> e = {{"torch/scatter_/*", "lib*", "r", "", "f"}};
  EXPECT_NE(find_expectation(e, "torch/scatter_/a@gapped", "libtorch"), nullptr);
  EXPECT_EQ(find_expectation(e, "torch/gather/a", "libtorch"), nullptr);
  EXPECT_EQ(find_expectation(e, "torch/scatter_/a", "cpu"), nullptr);
}

TEST(Expectations, ClauseKeyedEntriesMatchTheReferencesClauseAndOp) {
  const std::string p = write_temp("clause.json", R"({"format": "scatterproof-expectations/1", "entries": [
      {"clause": "T-IA13", "op": "torch.index_add*", "backend": "libtorch", "reason": "broadcast source"}]})");
  const std::vector<ExpectationEntry> e = load_expectation_file(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].case_pattern.empty());
  // Any case id (a spec case, a generated one), as long as clause, op and backend match.
  EXPECT_NE(find_expectation(e, "torch/index_add-x/y", "libtorch", "torch.index_add_", "T-IA13"), nullptr);
  EXPECT_NE(find_expectation(e, "", "libtorch", "torch.index_add", "T-IA13"), nullptr);
  EXPECT_EQ(find_expectation(e, "", "libtorch", "torch.index_add_", "T-IA8"), nullptr);
  EXPECT_EQ(find_expectation(e, "", "libtorch", "torch.index_add_", ""), nullptr);  // no error expected
  EXPECT_EQ(find_expectation(e, "", "libtorch", "torch.index_reduce_", "T-IA13"), nullptr);
  EXPECT_EQ(find_expectation(e, "", "cpu", "torch.index_add_", "T-IA13"), nullptr);
  // A case-only entry still needs its case; an entry needs a case or a clause.
  const std::vector<ExpectationEntry> by_case = {{"torch/a", "libtorch", "r", "", "f"}};
  EXPECT_EQ(find_expectation(by_case, "", "libtorch", "torch.gather", "T-B1"), nullptr);
  try {
    load_expectation_file(write_temp("neither.json", R"({"format": "scatterproof-expectations/1", "entries": [
      {"backend": "libtorch", "reason": "r"}]})"));
    ADD_FAILURE() << "an entry with neither case nor clause loaded";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "entries[0].case");
  }
}

// The clauses an answer cites are data on its notes ({clause, text}), never
// parsed out of the sentence: rewording a note changes no entry's match.
TEST(Expectations, ClausesComeFromTheNotesClauseNotItsText) {
  Expectation e;
  e.outputs = std::vector<ExpectedTensor>{};
  e.notes = {{"T-IA13", "a source slice that broadcasts (no clause id in this sentence)"},
             {"", "T-IA8: a sentence that only looks like it cites a clause"},
             {"T-IA13", "the same clause twice is cited once"},
             {"T-IA12", "out-of-place"}};
  EXPECT_EQ(cited_clauses(e), "T-IA13 T-IA12");
  EXPECT_EQ(e.notes[0].line(), "T-IA13: a source slice that broadcasts (no clause id in this sentence)");
  EXPECT_EQ(e.notes[1].line(), "T-IA8: a sentence that only looks like it cites a clause");
  const std::string p = write_temp("clause-note.json", R"({"format": "scatterproof-expectations/1", "entries": [
      {"clause": "T-IA13", "op": "torch.index_add*", "backend": "libtorch", "reason": "broadcast source"},
      {"clause": "T-IA8", "op": "torch.index_add*", "backend": "cpu", "reason": "never cited above"}]})");
  const std::vector<ExpectationEntry> entries = load_expectation_file(p);
  EXPECT_NE(find_expectation(entries, "", "libtorch", "torch.index_add_", cited_clauses(e)), nullptr);
  EXPECT_EQ(find_expectation(entries, "", "cpu", "torch.index_add_", cited_clauses(e)), nullptr);
  // An expected error's clause comes first, then the notes' clauses.
  Expectation error;
  error.errors = {ErrorCategory::ShapeMismatch};
  error.error_clause = "T-IA8";
  error.notes = {{"T-O2", "overlap a backend may detect"}};
  EXPECT_EQ(cited_clauses(error), "T-IA8 T-O2");
}

TEST(Expectations, FailuresBecomeXFailAndPassesXPass) {
  const ExpectationEntry e{"c", "b", "known", "", "f.json"};
  EXPECT_EQ(apply_expectation(e, Verdict::fail("x")).kind, Verdict::Kind::XFail);
  EXPECT_EQ(apply_expectation(e, {Verdict::Kind::Crash, "sig"}).kind, Verdict::Kind::XFail);
  EXPECT_EQ(apply_expectation(e, Verdict::pass()).kind, Verdict::Kind::XPass);
  EXPECT_EQ(apply_expectation(e, {Verdict::Kind::Unsupported, "no"}).kind, Verdict::Kind::Unsupported);
  EXPECT_NE(apply_expectation(e, Verdict::fail("x")).detail.find("known"), std::string::npos);
}

TEST(Expectations, WritingMergesWithoutDuplicates) {
  const std::string p = write_temp("merge.json", "");
  std::filesystem::remove(p);
  EXPECT_EQ(write_expectation_file(p, {{"a", "cpu", "r1", "", ""}}), 1u);
  EXPECT_EQ(write_expectation_file(p, {{"a", "cpu", "r2", "", ""}, {"b", "cpu", "r3", "", ""}}), 1u);
  const std::vector<ExpectationEntry> e = load_expectation_file(p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].reason, "r1");
  EXPECT_EQ(e[1].case_pattern, "b");
}

}  // namespace
}  // namespace sp
