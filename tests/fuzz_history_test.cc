// The history replay (fuzz/history.h): a finding that needs an earlier
// call in the same backend process (a poisoned process, here a wrapper of
// the cpu backend that crashes every gather after it has run one with an
// int32 index, as heap corruption from an earlier call would) does not
// reproduce alone; replayed after the campaign's earlier cases it does, the
// history shrinks to the one poisoning case, and the sequence file replays
// it in one backend. A finding that reproduces alone is said to.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "fuzz/engine.h"
#include "fuzz/findings.h"
#include "fuzz/history.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"

namespace sp::fuzz {
namespace {

class PoisonedBackend : public Backend {
 public:
  explicit PoisonedBackend(bool crash_alone = false)
      : inner_(make_backend("cpu", BackendOptions{1, false}, nullptr)), crash_alone_(crash_alone) {}
  std::string name() const override { return "poisoned"; }
  std::string description() const override { return "cpu, crashing gathers after an int32 index"; }
  // Declines index_select (unsupported without a request, as an adapter does another framework's ops).
  bool implements(std::string_view op) const override { return op != "torch.index_select" && inner_->implements(op); }
  Outcome run(const OpCall& call) override {
    const bool int32_index = call.tensor("index") && call.tensor("index")->dtype() == DType::Int32;
    if (poisoned_ || (crash_alone_ && int32_index)) {
      poisoned_ = false;  // the process died; the next call meets a fresh one
      return Outcome(Outcome::Kind::Crash, {}, std::nullopt, "killed by signal 6 (Aborted): free(): invalid pointer");
    }
    poisoned_ = int32_index;
    ++calls;
    return inner_->run(call);
  }
  int calls = 0;

 private:
  std::unique_ptr<Backend> inner_;
  bool crash_alone_;
  bool poisoned_ = false;
};

struct Campaign {
  FuzzScope scope;
  CampaignResult result;
};

Campaign campaign(bool crash_alone) {
  Campaign c;
  c.scope.ops = {&op_spec("torch.gather")};
  c.scope.backend_name = "poisoned";
  CampaignLimits limits;
  limits.seed = 7;
  limits.max_cases = 400;
  limits.max_findings = 0;
  limits.history = 16;
  limits.duration = std::chrono::milliseconds(60000);
  PoisonedBackend backend(crash_alone);
  c.result = fuzz_campaign(backend, limits, c.scope);
  return c;
}

const Bucket* crash_bucket(const CampaignResult& r) {
  for (const Bucket& b : r.buckets)
    if (b.first.verdict.kind == Verdict::Kind::Crash) return &b;
  return nullptr;
}

TEST(FuzzHistory, AFindingThatNeedsAnEarlierCallIsReplayedWithIt) {
  const Campaign c = campaign(false);
  const Bucket* b = crash_bucket(c.result);
  ASSERT_NE(b, nullptr) << "no crash in 400 gathers";
  ASSERT_FALSE(b->history.empty());
  EXPECT_LE(b->history.size(), 16u);
  for (size_t k = 1; k < b->history.size(); ++k) EXPECT_LT(b->history[k - 1], b->history[k]);
  EXPECT_LT(b->history.back(), b->first_case);

  int started = 0;
  const BackendFactory fresh = [&]() -> std::unique_ptr<Backend> {
    ++started;
    return std::make_unique<PoisonedBackend>();
  };
  const HistoryRepro h = reproduce_with_history(fresh, c.scope, 7, *b, std::chrono::milliseconds(30000));
  ASSERT_EQ(h.kind, HistoryRepro::Kind::AfterHistory) << h.summary();
  ASSERT_EQ(h.cases.size(), 1u) << h.summary();  // the one int32-index gather that poisoned the process
  EXPECT_EQ(case_call(c.scope, 7, h.cases[0], std::nullopt).tensor("index")->dtype(), DType::Int32);
  EXPECT_EQ(h.starts, started);
  EXPECT_NE(h.summary().find("only after 1 earlier case"), std::string::npos) << h.summary();

  // The sequence file: the poisoning case, then the finding, replayed in order on one backend.
  const std::string dir = (std::filesystem::temp_directory_path() / "sp-fuzz-history-test").string();
  const std::string path = write_history_repro(c.scope, 7, *b, h, std::nullopt, dir);
  const std::vector<Case> cases = load_spec_file(path);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].id, repro_case(b->first, "poisoned").id);
  EXPECT_EQ(cases[0].id, cases[1].id + "/before-1");
  PoisonedBackend replay;
  EXPECT_FALSE(lost_process(judge_call(replay, cases[0].call).verdict.kind));
  EXPECT_EQ(judge_call(replay, cases[1].call).verdict.kind, Verdict::Kind::Crash);
  PoisonedBackend alone;
  EXPECT_NE(judge_call(alone, cases[1].call).verdict.kind, Verdict::Kind::Crash);
  std::filesystem::remove_all(dir);
}

TEST(FuzzHistory, CasesTheBackendDeclinedAreLeftOutOfTheHistory) {
  FuzzScope scope;
  scope.ops = {&op_spec("torch.gather"), &op_spec("torch.index_select")};
  scope.backend_name = "poisoned";
  // The first seed whose first crash comes after a declined case in its window.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CampaignLimits limits;
    limits.seed = seed;
    limits.max_cases = 400;
    limits.max_findings = 0;
    limits.history = 16;
    PoisonedBackend backend;
    const CampaignResult r = fuzz_campaign(backend, limits, scope);
    const Bucket* b = crash_bucket(r);
    if (b == nullptr || b->history.empty()) continue;
    size_t declined = 0;  // index_select cases between the oldest kept case and the finding
    for (uint64_t i = b->history.front(); i < b->first_case; ++i)
      declined += case_call(scope, seed, i, std::nullopt).op == "torch.index_select";
    if (declined == 0) continue;
    for (uint64_t i : b->history) EXPECT_EQ(case_call(scope, seed, i, std::nullopt).op, "torch.gather") << i;
    return;
  }
  ADD_FAILURE() << "no seed of 40 drew a declined case before its first crash";
}

TEST(FuzzHistory, AFindingThatReproducesAloneSaysSo) {
  const Campaign c = campaign(true);
  const Bucket* b = crash_bucket(c.result);
  ASSERT_NE(b, nullptr);
  const BackendFactory fresh = [] { return std::make_unique<PoisonedBackend>(true); };
  const HistoryRepro h = reproduce_with_history(fresh, c.scope, 7, *b, std::chrono::milliseconds(30000));
  EXPECT_EQ(h.kind, HistoryRepro::Kind::Alone) << h.summary();
  EXPECT_EQ(h.starts, 1);
  EXPECT_TRUE(h.cases.empty());
}

TEST(FuzzHistory, AFindingNoHistoryBringsBackIsReportedNotReproduced) {
  const Campaign c = campaign(false);
  const Bucket* b = crash_bucket(c.result);
  ASSERT_NE(b, nullptr);
  // A backend that never crashes: neither alone nor after the history.
  const BackendFactory healthy = [] { return make_backend("cpu", BackendOptions{1, false}, nullptr); };
  const HistoryRepro h = reproduce_with_history(healthy, c.scope, 7, *b, std::chrono::milliseconds(30000));
  EXPECT_EQ(h.kind, HistoryRepro::Kind::NotReproduced);
  EXPECT_EQ(h.starts, 2);
  EXPECT_NE(h.summary().find("do not bring it back"), std::string::npos) << h.summary();
  FuzzScope programs = c.scope;
  programs.programs = true;
  EXPECT_EQ(reproduce_with_history(healthy, programs, 7, *b, std::chrono::milliseconds(1000)).kind,
            HistoryRepro::Kind::NotTried);
}

}  // namespace
}  // namespace sp::fuzz
