// Fuzz campaigns (fuzz/findings.h): a campaign goes on after a finding and
// buckets findings by signature, shrinking keeps a bucket's signature, an
// unclassified error does not end the campaign, known deviations (clause-
// or case-keyed expectation entries) are counted, not findings, replay
// commands survive a shell, and `repro` starts only the backends named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "fuzz/engine.h"
#include "fuzz/findings.h"
#include "fuzz/fuzz_cli.h"
#include "harness/result_record.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"

namespace sp::fuzz {
namespace {

std::unique_ptr<Backend> backend_named(const std::string& name) {
  return make_backend(name, BackendOptions{1, false}, nullptr);
}

std::vector<const OpSpec*> ops_of(std::initializer_list<const char*> ids) {
  std::vector<const OpSpec*> ops;
  for (const char* id : ids) ops.push_back(&op_spec(id));
  return ops;
}

// A campaign of exactly `max_cases` cases (no findings limit; the time
// budget only guards against a hang).
CampaignLimits cases_only(uint64_t seed, uint64_t max_cases) {
  CampaignLimits limits;
  limits.seed = seed;
  limits.max_cases = max_cases;
  limits.max_findings = 0;
  limits.duration = std::chrono::milliseconds(60000);
  return limits;
}

// An expectation entry keyed by clause (as fuzz-campaigns.json keys them).
ExpectationEntry clause_entry(const std::string& backend, const std::string& clause, const std::string& op,
                              const std::string& reason) {
  ExpectationEntry e;
  e.backend_pattern = backend;
  e.clause_pattern = clause;
  e.op_pattern = op;
  e.reason = reason;
  e.file = "clause.json";
  return e;
}

std::string fresh_dir(const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("sp-fuzz-campaign-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

// A backend that answers torch.index_select with an error no classifier
// could place (an adapter's "unclassified") and runs everything else on cpu.
class UnclassifiedIndexSelect : public Backend {
 public:
  UnclassifiedIndexSelect() : cpu_(backend_named("cpu")) {}
  std::string name() const override { return "test-unclassified"; }
  std::string description() const override { return "test"; }
  bool implements(std::string_view op) const override { return cpu_->implements(op); }
  Outcome run(const OpCall& call) override {
    if (call.op != "torch.index_select") return cpu_->run(call);
    Outcome o;
    o.kind = Outcome::Kind::Error;
    o.message = "SomeFrameworkError: something the adapter has no rule for";
    return o;
  }

 private:
  std::unique_ptr<Backend> cpu_;
};

TEST(FuzzCampaign, GoesOnAfterTheFirstFindingAndBucketsBySignature) {
  // bound-off-by-one rejects the last valid index on every op: one bug,
  // several ops, so several signatures.
  auto b = backend_named("mutant:bound-off-by-one");
  ASSERT_TRUE(b);
  FuzzScope scope;
  scope.ops = ops_of({"torch.gather", "torch.scatter_add", "torch.index_select"});
  CampaignLimits limits = cases_only(3, 1500);
  const CampaignResult r = fuzz_campaign(*b, limits, scope);
  EXPECT_EQ(r.stats.cases, 1500u) << "the campaign stopped early";
  ASSERT_GE(r.buckets.size(), 2u);
  std::set<std::string> keys, ops;
  uint64_t hits = 0;
  for (const Bucket& bucket : r.buckets) {
    EXPECT_TRUE(keys.insert(bucket.signature.key()).second) << "two buckets of " << bucket.signature.key();
    EXPECT_EQ(signature_of(bucket.first).key(), bucket.signature.key());
    ops.insert(bucket.signature.op);
    hits += bucket.hits;
  }
  EXPECT_GE(ops.size(), 2u);
  EXPECT_EQ(hits, r.findings);
  EXPECT_GT(r.findings, r.buckets.size()) << "repeats of a signature are counted in its bucket";
  EXPECT_GT(r.buckets.back().first_case, r.buckets.front().first_case);

  // --max-findings: stops once that many distinct signatures were seen.
  limits.max_findings = 2;
  const CampaignResult two = fuzz_campaign(*b, limits, scope);
  EXPECT_EQ(two.buckets.size(), 2u);
  EXPECT_TRUE(two.stopped_at_max_findings);
  EXPECT_LT(two.stats.cases, 1500u);
}

TEST(FuzzCampaign, AnUnclassifiedErrorIsOneBucketNotTheEnd) {
  UnclassifiedIndexSelect b;
  FuzzScope scope;
  scope.ops = ops_of({"torch.gather", "torch.index_select"});
  CampaignLimits limits = cases_only(5, 800);
  const CampaignResult r = fuzz_campaign(b, limits, scope);
  EXPECT_EQ(r.stats.cases, 800u);
  ASSERT_FALSE(r.buckets.empty());
  // One bucket for the one message, whether the reference expected outputs
  // or an error; every later hit is counted there.
  ASSERT_EQ(r.buckets.size(), 1u) << r.buckets[1].signature.key();
  const Signature& sig = r.buckets[0].signature;
  EXPECT_EQ(sig.op, "torch.index_select");
  EXPECT_EQ(sig.verdict, "unclassified");
  EXPECT_EQ(sig.actual, "unclassified: SomeFrameworkError: something the adapter has no rule for");
  EXPECT_GT(r.buckets[0].hits, 50u);
  EXPECT_EQ(r.buckets[0].hits, r.findings);
  EXPECT_EQ(message_shape("Invalid dimension 0 to 9, but received 10.\n  [ddim.h:61]"),
            "Invalid dimension # to #, but received #.");
  EXPECT_EQ(message_shape("index must be in [-3, 3), but got: -4"),
            message_shape("index must be in [-2, 2), but got: 7"));
}

TEST(FuzzCampaign, ShrinkingKeepsTheSignature) {
  // With several ops failing the same way, a shrinker that only kept the
  // verdict kind would slide every finding to the op the all-zero choices
  // pick (the scope's first).
  auto b = backend_named("mutant:bound-off-by-one");
  ASSERT_TRUE(b);
  FuzzScope scope;
  scope.ops = ops_of({"torch.gather", "torch.scatter_add", "torch.index_select"});
  CampaignLimits limits = cases_only(3, 1500);
  const CampaignResult r = fuzz_campaign(*b, limits, scope);
  size_t not_first_op = 0;
  ShrinkLimits shrink_limits;
  shrink_limits.max_time = std::chrono::milliseconds(3000);
  for (const Bucket& bucket : r.buckets) {
    const Shrunk s = shrink_finding(*b, bucket.first, shrink_limits, scope);
    EXPECT_EQ(signature_of(s.trial).key(), bucket.signature.key()) << s.trial.call.describe();
    EXPECT_LE(s.trial.choices.size(), bucket.first.choices.size());
    if (bucket.signature.op != scope.ops.front()->id) ++not_first_op;
  }
  EXPECT_GE(not_first_op, 1u) << "no bucket could have slipped to another op";
}

TEST(FuzzCampaign, KnownDeviationsAreCountedNotFindings) {
  auto clamps = backend_named("mutant:index-select-clamps-index");
  ASSERT_TRUE(clamps);
  FuzzScope scope;
  scope.ops = ops_of({"torch.index_select"});
  scope.backend_name = "mutant:index-select-clamps-index";
  CampaignLimits limits = cases_only(11, 1500);
  const CampaignResult unscoped = fuzz_campaign(*clamps, limits, scope);
  ASSERT_FALSE(unscoped.buckets.empty());
  EXPECT_EQ(unscoped.stats.known, 0u);

  // Keyed by clause (a documented rule the backend does not follow).
  ExpectationEntry by_clause = clause_entry("mutant:*", "T-IS6", "torch.index_select", "clamps");
  scope.known = {by_clause};
  const CampaignResult known = fuzz_campaign(*clamps, limits, scope);
  EXPECT_TRUE(known.buckets.empty()) << known.buckets.front().signature.key();
  EXPECT_EQ(known.stats.known, unscoped.findings);
  const auto listed = known.known_by_entry.find("clause.json: clamps");
  ASSERT_NE(listed, known.known_by_entry.end());
  EXPECT_EQ(listed->second, unscoped.findings);

  // Keyed by case id, as `run --expectations` keys a spec case: a
  // generated case's id is its repro's ("regression/fuzz-BACKEND-HASH").
  ExpectationEntry by_case;
  by_case.backend_pattern = "mutant:index-select-*";
  by_case.case_pattern = "regression/fuzz-mutant-index-select-clamps-index-*";
  by_case.reason = "every fuzz finding of this backend";
  scope.known = {by_case};
  const CampaignResult by_id = fuzz_campaign(*clamps, limits, scope);
  EXPECT_TRUE(by_id.buckets.empty());
  EXPECT_EQ(by_id.stats.known, unscoped.findings);

  // An entry for another backend covers nothing here.
  by_clause.backend_pattern = "paddle";
  scope.known = {by_clause};
  const CampaignResult other = fuzz_campaign(*clamps, limits, scope);
  EXPECT_EQ(other.buckets.size(), unscoped.buckets.size());
  EXPECT_EQ(other.stats.known, 0u);
}

TEST(FuzzCampaign, NanBitsFindingsCiteTheClauseTheyBreak) {
  // A backend that hands back NaNs with other bits: its findings are their
  // own failure class and cite C-3 (an untouched element) or C-4 (a copy),
  // so a campaign can list that deviation by clause.
  auto canon = backend_named("mutant:canonicalize-bits");
  ASSERT_TRUE(canon);
  FuzzScope scope;
  scope.ops = ops_of({"torch.gather", "torch.scatter", "torch.scatter_add"});
  scope.backend_name = "mutant:canonicalize-bits";
  CampaignLimits limits = cases_only(17, 3000);
  const CampaignResult r = fuzz_campaign(*canon, limits, scope);
  std::set<std::string> nan_clauses;
  for (const Bucket& b : r.buckets)
    if (b.signature.actual == "outputs:nan_bits") {
      EXPECT_EQ(b.signature.expected, "outputs");
      nan_clauses.insert(b.signature.clause);
      EXPECT_EQ(failure_clause(b.first), b.signature.clause);
    }
  EXPECT_EQ(nan_clauses, (std::set<std::string>{"C-3", "C-4"}));

  scope.known = {clause_entry("mutant:*", "C-[34]", "torch.*", "rewrites NaN bits")};
  const CampaignResult known = fuzz_campaign(*canon, limits, scope);
  EXPECT_GT(known.stats.known, 0u);
  for (const Bucket& b : known.buckets) EXPECT_NE(b.signature.actual, "outputs:nan_bits") << b.signature.key();
}

// Splits a command line the way sh does, by running it through sh -c.
std::vector<std::string> sh_words(const std::string& command_args) {
  const std::string cmd = "printf '%s\\n' " + command_args;
  FILE* p = ::popen(cmd.c_str(), "r");
  std::vector<std::string> words;
  if (!p) return words;
  std::string line;
  for (int ch; (ch = std::fgetc(p)) != EOF;) {
    if (ch == '\n') {
      words.push_back(line);
      line.clear();
    } else {
      line += static_cast<char>(ch);
    }
  }
  ::pclose(p);
  return words;
}

TEST(FuzzCampaign, ReplayCommandsSurviveTheShell) {
  const std::vector<std::string> words = {"/opt/my tools/scatterproof",
                                          "repro",
                                          "/tmp/it's here/repro-x.json",
                                          "--backend",
                                          "process:python3 adapters/torch_adapter.py",
                                          "$HOME",
                                          "a\"b`c`\\d;e&f|g*h?[i]~j!k",
                                          "",
                                          "plain-word_1.json"};
  EXPECT_EQ(sh_words(shell_join(words)), words);
  EXPECT_EQ(shell_quote("plain-word_1.json"), "plain-word_1.json");
  EXPECT_EQ(shell_quote("process:python3 adapters/torch_adapter.py"), "'process:python3 adapters/torch_adapter.py'");

  const std::string replay =
      replay_command("scatterproof", "/tmp/out dir/repro-a.json", "process:python3 adapters/paddle_adapter.py", 2.5);
  EXPECT_EQ(replay,
            "scatterproof repro '/tmp/out dir/repro-a.json' --backend 'process:python3 adapters/paddle_adapter.py' "
            "--timeout 2.5");
  EXPECT_EQ(sh_words(replay.substr(replay.find(' ') + 1)),
            (std::vector<std::string>{"repro", "/tmp/out dir/repro-a.json", "--backend",
                                      "process:python3 adapters/paddle_adapter.py", "--timeout", "2.5"}));
}

TEST(FuzzCampaign, ReproStartsOnlyTheBackendsNamed) {
  EXPECT_EQ(repro_backend_names({}), (std::vector<std::string>{"reference", "cpu"}));
  ReproOptions o;
  o.backends = {"mutant:bound-off-by-one", "reference", "mutant:bound-off-by-one"};
  EXPECT_EQ(repro_backend_names(o), (std::vector<std::string>{"reference", "mutant:bound-off-by-one"}));

  // repro_main replays on exactly those.
  auto b = backend_named("mutant:bound-off-by-one");
  ASSERT_TRUE(b);
  const Trial t = replay_trial(*b, {});
  ASSERT_EQ(t.verdict.kind, Verdict::Kind::Fail);
  const std::string dir = fresh_dir("repro");
  o.file = write_repro(repro_case(t, "mutant:bound-off-by-one"), "mutant:bound-off-by-one", dir);
  testing::internal::CaptureStdout();
  const int rc = repro_main(o);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 1) << out;
  std::set<std::string> started;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;
    const std::string first = line.substr(2, line.find(' ', 2) - 2);
    for (const auto& info : registered_backends())
      if (first == info.name || (info.name.back() == ':' && first.rfind(info.name, 0) == 0)) started.insert(first);
  }
  EXPECT_EQ(started, (std::set<std::string>{"reference", "mutant:bound-off-by-one"})) << out;
  std::filesystem::remove_all(dir);
}

TEST(FuzzCampaign, FuzzMainWritesOneShrunkReproPerBucketAndASummary) {
  FuzzOptions o;
  o.backend = "mutant:bound-off-by-one";
  o.seconds = 60;
  o.seed = 3;
  o.max_cases = 1500;
  o.ops = {"torch.gather", "torch.index_select"};
  o.out_dir = fresh_dir("main");
  o.shrink_seconds = 1;
  testing::internal::CaptureStdout();
  const int rc = fuzz_main(o);
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("exec/s"), std::string::npos) << out;
  std::ifstream in(o.out_dir + "/findings.json");
  ASSERT_TRUE(in) << out;
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["stats"]["cases"], 1500);
  ASSERT_GE(doc["buckets"].size(), 2u);
  EXPECT_EQ(doc["distinct"], doc["buckets"].size());
  std::set<std::string> keys;
  for (const auto& bucket : doc["buckets"]) {
    EXPECT_TRUE(keys.insert(bucket["key"].get<std::string>()).second);
    EXPECT_GE(bucket["hits"].get<uint64_t>(), 1u);
    const std::string repro = bucket["repro"];
    const std::vector<Case> cases = load_spec_file(repro);
    ASSERT_EQ(cases.size(), 1u) << repro;
    EXPECT_EQ(cases[0].call.op, bucket["signature"]["op"].get<std::string>());
    EXPECT_LE(bucket["choices"].get<size_t>(), bucket["choices_before_shrinking"].get<size_t>());
    const std::string replay = bucket["replay"];
    EXPECT_NE(replay.find(" repro " + shell_quote(repro) + " --backend mutant:bound-off-by-one"), std::string::npos)
        << replay;
    EXPECT_NE(out.find(replay), std::string::npos) << "the replay command is printed too";
  }
  std::ifstream md(o.out_dir + "/findings.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  for (const auto& bucket : doc["buckets"]) {
    EXPECT_NE(text.find(bucket["key"].get<std::string>()), std::string::npos);
    EXPECT_NE(text.find(bucket["replay"].get<std::string>()), std::string::npos);
  }
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace sp::fuzz
