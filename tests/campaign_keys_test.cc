// campaign_keys_test.cc — no clause-keyed expectation entry hides an op.
//
// An entry {"clause": C, "op": P, ...} without a case (specs/expectations/)
// turns every failing result of an op matching P whose reference answer
// cites C into XFAIL, in spec runs and in fuzz campaigns alike. If the
// reference cites C on (nearly) every answer of the op, say a note written
// on every call, the entry hides every finding of that op: a wrong value, a
// dropped term, whatever the kernel does. Measured for the entries of each
// backend together (any one of them hides a finding), on the generator's
// calls (fuzz::generate_call_for, fixed seeds) that the reference answers
// with outputs (no error, not unspecified): the share they match must stay
// below kMaxShare for every op, so a note is written where its deviation
// lives, not everywhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/case_gen.h"
#include "harness/expectations.h"
#include "harness/run_judge.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

constexpr int kCallsPerOp = 120;
constexpr int kMinPlainAnswers = 20;  // fewer: the share says nothing
constexpr double kMaxShare = 0.9;

struct OpAnswers {
  std::vector<std::string> cited;  // of each plain answer (outputs, no error, specified)
};

const OpAnswers& answers_of(const OpSpec& op) {
  static std::map<std::string, OpAnswers> memo;
  auto [it, fresh] = memo.try_emplace(op.id);
  if (!fresh) return it->second;
  for (int i = 0; i < kCallsPerOp; ++i) {
    fuzz::Choices c(52000 + static_cast<uint64_t>(i));
    const OpCall call = fuzz::generate_call_for(c, op);
    const Expectation e = evaluate(call);
    if (e.unspecified || !e.outputs || !e.errors.empty()) continue;
    it->second.cited.push_back(cited_clauses(e));
  }
  return it->second;
}

TEST(CampaignKeys, NoClauseKeyedEntriesCoverNearlyEveryAnswerOfAnOp) {
  // The entries of one backend (pattern and framework) together: a finding
  // is hidden when any of them matches.
  std::map<std::string, std::vector<ExpectationEntry>> groups;
  for (const auto& f : std::filesystem::directory_iterator(test::source_dir() + "/specs/expectations"))
    if (f.path().extension() == ".json")
      for (ExpectationEntry& e : load_expectation_file(f.path().string()))
        if (!e.clause_pattern.empty() && e.case_pattern.empty())
          groups[e.backend_pattern + (e.framework.empty() ? "" : " (" + e.framework + ")")].push_back(std::move(e));
  int audited = 0;
  for (const auto& [group, entries] : groups)
    for (const OpSpec& op : op_table()) {
      std::vector<const ExpectationEntry*> mine;
      for (const ExpectationEntry& e : entries)
        if (matches_op_and_clause(e, op.id, e.clause_pattern)) mine.push_back(&e);  // the op alone decides
      if (mine.empty()) continue;
      const OpAnswers& a = answers_of(op);
      if (static_cast<int>(a.cited.size()) < kMinPlainAnswers) continue;
      int hit = 0;
      std::string keys;
      for (const ExpectationEntry* e : mine) keys += (keys.empty() ? "" : " ") + e->clause_pattern;
      for (const std::string& cited : a.cited) {
        bool any = false;
        for (const ExpectationEntry* e : mine) any = any || matches_op_and_clause(*e, op.id, cited);
        hit += any;
      }
      const double share = static_cast<double>(hit) / static_cast<double>(a.cited.size());
      ++audited;
      if (share >= 0.3)
        std::printf("%-34s %-36s %5.1f %% of %zu answers: %s\n", group.c_str(), op.id.c_str(), 100 * share,
                    a.cited.size(), keys.c_str());
      EXPECT_LT(share, kMaxShare) << "backend " << group << ": the clause-keyed entries " << keys << " match " << hit
                                  << " of the " << a.cited.size() << " answered calls of " << op.id
                                  << ": they would hide every finding of the op; note a clause only where its "
                                     "deviation lives, or key the entry by case";
    }
  EXPECT_GT(audited, 20) << "too few entries audited: the expectation files were not read";
}

// The MindSpore notes the campaign entries key by are written where their
// deviation lives, and not on a plain call of the op.
TEST(CampaignKeys, MindSporeNotesMarkTheirDeviationOnly) {
  using test::call_of;
  using test::cites;
  using test::f32;
  using test::i64;
  const auto gather_elements = [](Tensor index) {
    return evaluate(call_of("mindspore.ops.gather_elements",
                            {{"input", f32({2, 2}, {1, 2, 3, 4})}, {"index", std::move(index)}},
                            {{"dim", Arg::of_int(1)}}));
  };
  // MS-GE6: GatherD writes a negative value back into the index (v + s).
  EXPECT_TRUE(cites(gather_elements(i64({2, 2}, {-1, 0, 1, -2})), "MS-GE6"));
  EXPECT_FALSE(cites(gather_elements(i64({2, 2}, {1, 0, 1, 1})), "MS-GE6"));
  // MS-G7's deviation is an answer where the clause wants an error (the
  // error cites it); an answered call carries no MS-G7 note.
  const Expectation gather = evaluate(call_of("mindspore.ops.gather",
                                              {{"input_params", f32({3}, {1, 2, 3})}, {"input_indices", i64({1}, {2})}},
                                              {{"axis", Arg::of_int(0)}, {"batch_dims", Arg::of_int(0)}}));
  ASSERT_TRUE(gather.outputs.has_value()) << gather.summary() << " " << gather.error_message;
  EXPECT_FALSE(cites(gather, "MS-G7"));
  const Expectation negative = evaluate(
      call_of("mindspore.ops.gather", {{"input_params", f32({3}, {1, 2, 3})}, {"input_indices", i64({1}, {-1})}},
              {{"axis", Arg::of_int(0)}, {"batch_dims", Arg::of_int(0)}}));
  EXPECT_EQ(negative.error_clause, "MS-G7");
  // MS-MS1: an empty index or src, or src larger than index (MindSpore
  // 2.10.0 refuses both); not a plain call.
  const auto scatter = [](Tensor index, Tensor src) {
    return evaluate(call_of("mindspore.mint.scatter",
                            {{"input", f32({3}, {0, 0, 0})}, {"index", std::move(index)}, {"src", std::move(src)}},
                            {{"dim", Arg::of_int(0)}}));
  };
  EXPECT_TRUE(cites(scatter(i64({0}, {}), f32({0}, {})), "MS-MS1"));
  EXPECT_TRUE(cites(scatter(i64({1}, {2}), f32({2}, {5, 6})), "MS-MS1"));
  const Expectation plain = scatter(i64({2}, {2, 0}), f32({2}, {5, 6}));
  ASSERT_TRUE(plain.outputs.has_value()) << plain.summary() << " " << plain.error_message;
  EXPECT_FALSE(cites(plain, "MS-MS1"));
}

// The torch notes the compiled entries key by (specs/expectations/
// compiled.json): T-IA9 on a float alpha into an integer self, T-IF4 on
// -0.0 filled into a float self; not on a plain out-of-place call.
TEST(CampaignKeys, TorchNotesMarkTheirDeviationOnly) {
  using test::call_of;
  using test::cites;
  using test::f32;
  using test::i64;
  using test::tensor_of;
  const auto index_add = [](Tensor self, Tensor source, Scalar alpha) {
    return evaluate(call_of("torch.index_add",
                            {{"self", std::move(self)}, {"index", i64({1}, {1})}, {"source", std::move(source)}},
                            {{"dim", Arg::of_int(0)}, {"alpha", Arg::of_scalar(alpha)}}));
  };
  const Tensor i3 = tensor_of(DType::Int32, {3}, {1, 2, 3});
  const Tensor i1 = tensor_of(DType::Int32, {1}, {4});
  const Expectation truncated = index_add(i3, i1, Scalar::of_float(2.5));
  ASSERT_TRUE(truncated.outputs.has_value()) << truncated.summary() << " " << truncated.error_message;
  EXPECT_TRUE(cites(truncated, "T-IA9"));
  EXPECT_FALSE(cites(index_add(i3, i1, Scalar::of_int(2)), "T-IA9"));
  EXPECT_FALSE(cites(index_add(f32({3}, {1, 2, 3}), f32({1}, {4}), Scalar::of_float(2.5)), "T-IA9"));
  const auto index_fill = [](double value) {
    return evaluate(call_of("torch.index_fill", {{"self", f32({3}, {1, 2, 3})}, {"index", i64({1}, {1})}},
                            {{"dim", Arg::of_int(0)}, {"value", Arg::of_scalar(Scalar::of_float(value))}}));
  };
  EXPECT_TRUE(cites(index_fill(-0.0), "T-IF4"));
  const Expectation plain = index_fill(0.0);
  ASSERT_TRUE(plain.outputs.has_value()) << plain.summary() << " " << plain.error_message;
  EXPECT_FALSE(cites(plain, "T-IF4"));
}

}  // namespace
}  // namespace sp
