// Versioned dialects (reference/versions.h): reading versions and ranges,
// the rule table against reference/SEMANTICS.md, the reference answering
// for a version, the runner judging each backend by the version it runs,
// "versions" in specs and in expectation entries.
#include "reference/versions.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harness/exit_codes.h"
#include "harness/expectations.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/reference.h"
#include "reports/report_dir.h"
#include "reports/result_stream.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using EC = ErrorCategory;
using test::expect_errors;
using test::expect_exact;
using test::f32;
using test::i32;
using test::i64;

std::string text(const std::optional<ref::Version>& v) { return v ? v->to_string() : "none"; }

TEST(Versions, ReadsVersionsAsFrameworksPrintThem) {
  EXPECT_EQ(text(ref::parse_version("2.15.0+cu132")), "2.15.0");
  EXPECT_EQ(text(ref::parse_version("1.13.0a0+gitunknown")), "1.13.0");
  EXPECT_EQ(text(ref::parse_version("r2.10")), "2.10");
  EXPECT_EQ(text(ref::parse_version("2.10.0rc1")), "2.10.0");
  EXPECT_EQ(text(ref::parse_version("3")), "3");
  EXPECT_EQ(text(ref::parse_version("latest")), "none");
  EXPECT_EQ(text(ref::parse_version("")), "none");
  EXPECT_EQ(text(ref::parse_version("99999999999999999999")), "none");
  EXPECT_EQ(ref::compare_versions(*ref::parse_version("2.10"), *ref::parse_version("2.10.0")), 0);
  EXPECT_LT(ref::compare_versions(*ref::parse_version("2.9.9"), *ref::parse_version("2.10")), 0);
  EXPECT_GT(ref::compare_versions(*ref::parse_version("2.15.0+cu132"), *ref::parse_version("2.8")), 0);
}

TEST(Versions, RangesAreHalfOpen) {
  std::string why;
  const auto r = ref::parse_version_range(">=2.3, <2.8", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->contains(*ref::parse_version("2.2.1")));
  EXPECT_TRUE(r->contains(*ref::parse_version("2.3")));
  EXPECT_TRUE(r->contains(*ref::parse_version("2.7.1")));
  EXPECT_FALSE(r->contains(*ref::parse_version("2.8.0")));
  const auto series = ref::parse_version_range("==2.3", &why);
  ASSERT_TRUE(series) << why;
  EXPECT_TRUE(series->contains(*ref::parse_version("2.3.1")));
  EXPECT_FALSE(series->contains(*ref::parse_version("2.4")));
  const auto exact = ref::parse_version_range("==2.3.1", &why);
  ASSERT_TRUE(exact) << why;
  EXPECT_TRUE(exact->contains(*ref::parse_version("2.3.1")));
  EXPECT_FALSE(exact->contains(*ref::parse_version("2.3.2")));
  for (const char* bad : {"", "2.8", ">2.8", ">=two", ">=2.8,>=2.9", "<2.8,>=2.9", "==2.3,<3", ">=2.08"}) {
    why.clear();
    EXPECT_FALSE(ref::parse_version_range(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(Versions, RulesHoldForTheirRangeAndTheBaselineIsTheSeeds) {
  EXPECT_FALSE(ref::rule_holds("T-I2", ""));  // torch's baseline is 1.13
  EXPECT_FALSE(ref::rule_holds("T-I2", "1.13.0a0+gitunknown"));
  EXPECT_FALSE(ref::rule_holds("T-I2", "2.7.1"));
  EXPECT_TRUE(ref::rule_holds("T-I2", "2.8.0"));
  EXPECT_TRUE(ref::rule_holds("T-I2", "2.15.0+cu132"));
  EXPECT_FALSE(ref::rule_holds("T-IA14", "2.2.1"));
  EXPECT_TRUE(ref::rule_holds("T-IA14", "2.3"));
  EXPECT_FALSE(ref::rule_holds("MS-N1", ""));  // seed 003 is r2.3
  EXPECT_TRUE(ref::rule_holds("MS-N1", "r2.10"));
  EXPECT_FALSE(ref::rule_holds("PD-B3", ""));  // seed 004 is undated
  EXPECT_FALSE(ref::rule_holds("PD-B3", "2.6.2"));
  EXPECT_TRUE(ref::rule_holds("PD-B3", "3.3.1"));
  EXPECT_THROW(ref::rule_holds("T-I2", "nightly"), std::invalid_argument);
  EXPECT_THROW(ref::rule_holds("T-NOPE", "2.8"), std::logic_error);
  EXPECT_THROW(ref::effective_version("tensorflow", ""), std::invalid_argument);
}

// Every versioned rule is a row of SEMANTICS.md's "Versioned rules" table
// with its framework and lower bound, and every row there is in the table.
TEST(Versions, TheTableAndSemanticsMdAgree) {
  std::ifstream in(sp::test::source_dir() + "/reference/SEMANTICS.md");
  ASSERT_TRUE(in) << "reference/SEMANTICS.md";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  const size_t from = md.find("## Versioned rules");
  ASSERT_NE(from, std::string::npos);
  const std::string section = md.substr(from, md.find("\n## ", from + 1) - from);
  std::set<std::string> rows;
  const std::regex row(R"(\n\| ([A-Z]+-[A-Z]*[0-9]+) \| (\w+) \| ≥ ([0-9.]+) \|)");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string clause = (*it)[1], framework = (*it)[2], since = (*it)[3];
    rows.insert(clause);
    bool found = false;
    for (const ref::VersionedRule& r : ref::versioned_rules())
      if (clause == r.clause) {
        found = true;
        EXPECT_EQ(framework, r.framework) << clause;
        EXPECT_EQ(since, r.since) << clause;
      }
    EXPECT_TRUE(found) << clause << " is in SEMANTICS.md's table but not in reference/versions.cc";
  }
  for (const ref::VersionedRule& r : ref::versioned_rules()) {
    EXPECT_TRUE(rows.count(r.clause)) << r.clause << " is in reference/versions.cc but not in SEMANTICS.md";
    EXPECT_TRUE(ref::parse_version(r.since)) << r.clause;
    EXPECT_NE(std::string(r.source), "") << r.clause;
  }
  for (const ref::FrameworkBaseline& b : ref::framework_baselines())
    EXPECT_NE(section.find(std::string("| ") + b.framework + " | " + b.version), std::string::npos) << b.framework;
}

OpCall gather_int32(const std::string& version) {
  OpCall c = test::call_of("torch.gather", {{"input", f32({3}, {10, 20, 30})}, {"index", i32({2}, {2, 0})}},
                           {{"dim", Arg::of_int(0)}});
  c.framework_version = version;
  return c;
}

TEST(VersionedReference, Int32IndexIsRefusedBefore28AndGathersFrom28) {
  expect_errors(evaluate(gather_int32("")), {EC::IndexDtype});
  expect_errors(evaluate(gather_int32("2.7.1")), {EC::IndexDtype});
  expect_exact(evaluate(gather_int32("2.8")), {30, 10});
  expect_exact(evaluate(gather_int32("2.15.0+cu132")), {30, 10});
  EXPECT_EQ(evaluate(gather_int32("2.15")).error_clause, "");
  EXPECT_EQ(evaluate(gather_int32("1.13")).error_clause, "T-I1");
  // int16 stays refused, now under T-I2.
  OpCall c = gather_int32("2.15");
  c.tensors["index"] = test::tensor_of(DType::Int16, {1}, {0});
  const Expectation e = evaluate(c);
  expect_errors(e, {EC::IndexDtype});
  EXPECT_EQ(e.error_clause, "T-I2");
}

TEST(VersionedReference, IndexAddComparesPhysicalShapesFrom23) {
  // A 0-d self with a [2] source: logical shapes match (T-IA8), physical
  // ones do not (T-IA14).
  OpCall c = test::call_of("torch.index_add",
                           {{"self", i64({}, {1})}, {"index", i64({2}, {0, 0})}, {"source", i64({2}, {2, 3})}},
                           {{"dim", Arg::of_int(0)}});
  expect_exact(evaluate(c), {6});
  c.framework_version = "2.3.0";
  const Expectation e = evaluate(c);
  expect_errors(e, {EC::ShapeMismatch});
  EXPECT_EQ(e.error_clause, "T-IA14");
  // An empty index: 1.13 skips the shape rule for a rank >= 2 self, 2.3 does not.
  OpCall empty =
      test::call_of("torch.index_reduce",
                    {{"self", f32({3, 2}, {1, 2, 3, 4, 5, 6})}, {"index", i64({0}, {})}, {"source", f32({0, 7}, {})}},
                    {{"dim", Arg::of_int(0)}, {"reduce", Arg::of_string("prod")}});
  expect_exact(evaluate(empty), {1, 2, 3, 4, 5, 6});
  empty.framework_version = "2.15";
  expect_errors(evaluate(empty), {EC::ShapeMismatch});
}

TEST(VersionedReference, PaddleNegativeIndicesWrapFrom30) {
  OpCall c = test::call_of(
      "paddle.scatter",
      {{"x", f32({3, 2}, {1, 1, 2, 2, 3, 3})}, {"index", i64({1}, {-1})}, {"updates", f32({1, 2}, {9, 9})}});
  EXPECT_TRUE(evaluate(c).unspecified);  // PD-B2 at the baseline
  c.framework_version = "2.6";
  EXPECT_TRUE(evaluate(c).unspecified);
  c.framework_version = "3.3.1";
  expect_exact(evaluate(c), {1, 1, 2, 2, 9, 9});
  c.tensors["index"] = i64({1}, {-4});
  const Expectation e = evaluate(c);
  expect_errors(e, {EC::IndexOutOfBounds});
  EXPECT_EQ(e.error_clause, "PD-B3");
}

// The reference as a backend that says it runs a framework version.
class FrameworkBackend final : public Backend {
 public:
  FrameworkBackend(std::string name, std::string version) : name_(std::move(name)), version_(std::move(version)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "versions_test backend"; }
  std::optional<FrameworkVersion> framework() const override { return FrameworkVersion{"torch", version_}; }
  bool implements(std::string_view) const override { return true; }
  Outcome run(const OpCall& call) override {
    seen_versions().push_back(call.framework_version);
    const Expectation e = evaluate(call);
    if (!e.outputs) return Outcome::of_error(e.errors.front(), e.error_message);
    return Outcome::of_outputs({e.outputs->front().exact.clone_storage()});
  }
  static std::vector<std::string>& seen_versions() {
    static std::vector<std::string> v;
    return v;
  }

 private:
  std::string name_, version_;
};

void register_framework_backends() {
  for (const auto& [name, version] : {std::pair{"test-torch-1.13", "1.13.1"}, std::pair{"test-torch-2.15", "2.15.0"}})
    register_backend(name, "versions_test",
                     [version = std::string(version)](const std::string& n, const BackendOptions&) {
                       return std::make_unique<FrameworkBackend>(n, version);
                     });
}

Case int32_gather_case(const std::string& id) {
  Case c;
  c.id = id;
  c.file = "mem.json";
  c.call = gather_int32("");
  c.source.document = "000";
  c.expect.kind = CaseExpect::Kind::Error;
  c.expect.error = EC::IndexDtype;
  return c;
}

struct RunResult {
  RunSummary summary;
  std::vector<ResultRecord> records;
};

RunResult run(const std::vector<Case>& cases, std::vector<std::string> backends, RunOptions o = {}) {
  const auto dir = std::filesystem::temp_directory_path() / ("sp_versions_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  o.backends = std::move(backends);
  RunResult r;
  r.summary = run_cases_reported(cases, {}, o, dir.string());
  r.records = read_results((dir / "results.jsonl").string());
  return r;
}

const ResultRecord& record_of(const RunResult& r, const std::string& backend) {
  for (const ResultRecord& rec : r.records)
    if (rec.backend == backend && rec.check == "differential") return rec;
  ADD_FAILURE() << "no record for " << backend;
  static const ResultRecord none;
  return none;
}

TEST(VersionedRunner, EachFrameworkBackendIsJudgedByItsOwnVersion) {
  register_framework_backends();
  FrameworkBackend::seen_versions().clear();
  const RunResult r = run({int32_gather_case("v/int32")}, {"reference", "test-torch-1.13", "test-torch-2.15"});
  EXPECT_EQ(r.summary.exit_code, exit_code::kOk);
  const ResultRecord& doc = r.records.front();
  EXPECT_EQ(doc.check, "document");
  EXPECT_EQ(doc.rules_version, "torch 1.13 (baseline)");
  EXPECT_EQ(record_of(r, "reference").rules_version, "torch 1.13 (baseline)");
  const ResultRecord& old_torch = record_of(r, "test-torch-1.13");
  EXPECT_EQ(old_torch.verdict, Verdict::Kind::Pass) << old_torch.detail;
  EXPECT_EQ(old_torch.rules_version, "torch 1.13.1");
  EXPECT_NE(old_torch.expected.find("index_dtype"), std::string::npos) << old_torch.expected;
  const ResultRecord& new_torch = record_of(r, "test-torch-2.15");
  EXPECT_EQ(new_torch.verdict, Verdict::Kind::Pass) << new_torch.detail;
  EXPECT_EQ(new_torch.rules_version, "torch 2.15.0");
  EXPECT_EQ(new_torch.expected.find("index_dtype"), std::string::npos) << new_torch.expected;
  ASSERT_TRUE(new_torch.framework);
  EXPECT_EQ(new_torch.framework->version, "2.15.0");
  // The backend got the call with its version, so it ran the 2.15 rules.
  EXPECT_EQ(FrameworkBackend::seen_versions(), (std::vector<std::string>{"1.13.1", "2.15.0"}));
}

TEST(VersionedRunner, FrameworkVersionOptionJudgesTheProjectsOwnBackends) {
  RunOptions o;
  o.framework_versions["torch"] = "2.15";
  const RunResult r = run({int32_gather_case("v/int32")}, {"reference"}, o);
  const ResultRecord& rec = record_of(r, "reference");
  EXPECT_EQ(r.records.front().rules_version, "torch 1.13 (baseline)");  // the document check: the case's own
  EXPECT_EQ(rec.rules_version, "torch 2.15");
  EXPECT_EQ(rec.verdict, Verdict::Kind::Pass) << rec.detail;
  EXPECT_EQ(rec.expected.find("index_dtype"), std::string::npos) << rec.expected;
}

TEST(VersionedRunner, ACaseOutsideItsVersionsIsNotApplicableNotUnsupported) {
  register_framework_backends();
  Case c = int32_gather_case("v/from-2.8");
  c.versions = ">=2.8";
  c.call.framework_version = "2.8";
  c.source.doc_version = "2.8";
  c.expect = {};
  c.expect.outputs = {f32({2}, {30, 10})};
  const RunResult r = run({c}, {"reference", "test-torch-1.13", "test-torch-2.15"});
  EXPECT_EQ(r.summary.exit_code, exit_code::kOk);
  EXPECT_EQ(r.records.front().verdict, Verdict::Kind::Pass) << r.records.front().detail;
  const ResultRecord& old_torch = record_of(r, "test-torch-1.13");
  EXPECT_EQ(old_torch.verdict, Verdict::Kind::NotApplicable);
  EXPECT_NE(old_torch.detail.find("applies to torch >=2.8"), std::string::npos) << old_torch.detail;
  EXPECT_EQ(record_of(r, "test-torch-2.15").verdict, Verdict::Kind::Pass);
  EXPECT_EQ(record_of(r, "reference").verdict, Verdict::Kind::Pass);  // answered at the case's 2.8
  EXPECT_FALSE(verdict_is_unexpected(Verdict::Kind::NotApplicable));
}

std::string spec_with(const std::string& case_fields) {
  return R"({"format": "scatterproof-spec/1", "cases": [{"id": "v/a", "op": "torch.gather", )" + case_fields +
         R"(, "args": {"dim": 0}, "inputs": {"input": {"dtype": "float32", "shape": [3], "values": [10, 20, 30]},
         "index": {"dtype": "int32", "shape": [1], "values": [2]}}, "expect": {"output": {"dtype": "float32",
         "shape": [1], "values": [30]}}}]})";
}

TEST(VersionedSpecs, VersionsIsReadCheckedAndNamedInErrors) {
  const std::vector<Case> ok =
      load_spec_text(spec_with(R"("source": {"document": "d", "doc_version": "2.8"}, "versions": ">=2.8")"), "f.json");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].versions, ">=2.8");
  EXPECT_EQ(ok[0].call.framework_version, "2.8");
  try {
    load_spec_text(spec_with(R"("source": {"document": "d"}, "versions": ">=2.8")"), "f.json");
    ADD_FAILURE() << "a case whose own version (the baseline 1.13) is outside its range loaded";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "cases[0].versions") << e.what();
    EXPECT_NE(e.message().find("1.13"), std::string::npos) << e.what();
  }
  try {
    load_spec_text(spec_with(R"("source": {"document": "d", "doc_version": "2.8"}, "versions": "2.8+")"), "f.json");
    ADD_FAILURE() << "an unreadable range loaded";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "cases[0].versions") << e.what();
  }
}

TEST(VersionedExpectations, EntriesNamingAFrameworkMatchOnlyItsVersions) {
  ExpectationEntry e;
  e.case_pattern = "t/*";
  e.backend_pattern = "*";
  e.reason = "r";
  e.framework = "torch";
  e.versions = ">=2.15";
  const std::vector<ExpectationEntry> entries{e};
  EXPECT_NE(find_expectation(entries, "t/a", "any", "", "", FrameworkVersion{"torch", "2.15.0+cu132"}), nullptr);
  EXPECT_EQ(find_expectation(entries, "t/a", "any", "", "", FrameworkVersion{"torch", "1.13.0"}), nullptr);
  EXPECT_EQ(find_expectation(entries, "t/a", "any", "", "", FrameworkVersion{"paddle", "3.3.1"}), nullptr);
  EXPECT_EQ(find_expectation(entries, "t/a", "cpu"), nullptr);  // runs no framework
  // Loading: versions needs framework, and a readable range.
  const auto path = std::filesystem::temp_directory_path() / ("sp_versions_test_exp_" + std::to_string(::getpid()));
  const auto write = [&](const std::string& entry) {
    std::ofstream(path) << R"({"format": "scatterproof-expectations/1", "entries": [)" << entry << "]}";
  };
  write(R"({"case": "a", "backend": "*", "reason": "r", "framework": "torch", "versions": ">=2.15"})");
  EXPECT_EQ(load_expectation_file(path.string()).at(0).versions, ">=2.15");
  write(R"({"case": "a", "backend": "*", "reason": "r", "versions": ">=2.15"})");
  EXPECT_THROW(load_expectation_file(path.string()), SpecError);
  write(R"({"case": "a", "backend": "*", "reason": "r", "framework": "torch", "versions": "2.15"})");
  EXPECT_THROW(load_expectation_file(path.string()), SpecError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sp
