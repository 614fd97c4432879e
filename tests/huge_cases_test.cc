// Huge cases (specs/FORMAT.md "Huge cases", issue 36 item 5): a case tagged
// `huge` is not built without --allow-huge and is answered not_applicable
// with the reason; under an allowance it may exceed the element limit and is
// held to the budget instead; `fill` + `set` write a large tensor as its few
// distinct elements; the reference's output builder keeps a large output
// without a slot per element. The 2^31 suite itself (specs/huge/, gigabytes)
// runs in the nightly `huge_2p31` test; here the same paths run just past
// the default limit (2^20 elements), in megabytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/comparator.h"
#include "harness/exit_codes.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/output_builder.h"
#include "reference/reference.h"
#include "reports/report_dir.h"

namespace sp {
namespace {

using nlohmann::json;

constexpr int64_t kPast = kMaxTensorElements + 5;  // just past the default limit

// scatter_ of three values into an int8 self of n elements (fill 0): at the
// last element, the one before it and 0.
json scatter_case(int64_t n, bool huge) {
  json c = {
      {"id", "h/scatter"},
      {"op", "torch.scatter_"},
      {"source", {{"document", "huge_cases_test"}, {"kind", "edge"}}},
      {"args", {{"dim", 0}}},
      {"inputs",
       {{"self", {{"dtype", "int8"}, {"shape", {n}}, {"fill", 0}}},
        {"index", {{"dtype", "int64"}, {"data", {n - 1, n - 2, 0}}}},
        {"src", {{"dtype", "int8"}, {"data", {1, 2, 3}}}}}},
      {"expect",
       {{"output",
         {{"shape", {n}},
          {"fill", 0},
          {"set", {{{"at", {n - 1}}, {"value", 1}}, {{"at", {n - 2}}, {"value", 2}}, {{"at", {0}}, {"value", 3}}}}}}}}};
  if (huge) c["tags"] = {"huge"};
  return c;
}

std::string file_text(const json& c) { return json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(); }

// Sets the process-wide allowance for one test and takes it back after.
struct Allowance {
  explicit Allowance(int64_t budget) { allow_huge_cases(budget); }
  ~Allowance() { allow_huge_cases(0); }
};

TEST(HugeCases, NotBuiltWithoutTheAllowance) {
  const std::vector<Case> cases = load_spec_text(file_text(scatter_case(kPast, true)), "h.json");
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_NE(cases[0].not_run.find("--allow-huge"), std::string::npos) << cases[0].not_run;
  EXPECT_TRUE(cases[0].call.tensors.empty());
  EXPECT_EQ(cases[0].call.op, "torch.scatter_");
  // Untagged, the same case is over the limit: a spec error naming the field.
  try {
    load_spec_text(file_text(scatter_case(kPast, false)), "h.json");
    FAIL() << "loaded past the element limit";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "cases[0].inputs.self.shape");
    EXPECT_NE(e.message().find("tagged huge"), std::string::npos) << e.what();
  }
}

TEST(HugeCases, TheAllowanceHoldsOnlyTaggedCasesAndItsBudget) {
  const Allowance allow(int64_t{64} << 20);
  const std::vector<Case> cases = load_spec_text(file_text(scatter_case(kPast, true)), "h.json");
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].not_run.empty());
  EXPECT_EQ(cases[0].call.tensor("self")->numel(), kPast);
  EXPECT_THROW(load_spec_text(file_text(scatter_case(kPast, false)), "h.json"), SpecError);  // untagged: the limit
  // Beyond a quarter of the budget for one tensor: 17 MiB of int8 against 16 MiB.
  try {
    load_spec_text(file_text(scatter_case(int64_t{17} << 20, true)), "h.json");
    FAIL() << "loaded past the budget";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "cases[0].inputs.self.shape");
    EXPECT_NE(e.message().find("bytes per tensor"), std::string::npos) << e.what();
  }
}

TEST(HugeCases, FillAndSetBuildTheTensorTheyDescribe) {
  json c = scatter_case(10, false);
  c["inputs"]["self"]["set"] = {{{"at", {7}}, {"value", -4}}};
  const Case built = load_spec_text(file_text(c), "h.json").at(0);
  const Tensor& self = *built.call.tensor("self");
  EXPECT_EQ(self.value_at({7}).i, -4);
  EXPECT_EQ(self.value_at({6}).i, 0);
  auto problem = [&](const json& set, json strides = nullptr) {
    json d = scatter_case(10, false);
    d["inputs"]["self"]["set"] = set;
    if (!strides.is_null()) d["inputs"]["self"]["strides"] = strides;
    try {
      load_spec_text(file_text(d), "h.json");
    } catch (const SpecError& e) {
      return e.field() + ": " + e.message();
    }
    return std::string("loaded");
  };
  EXPECT_NE(problem({{{"at", {10}}, {"value", 1}}}).find("set[0].at[0]: 10 is outside the shape"), std::string::npos);
  EXPECT_NE(problem({{{"at", {3}}, {"value", 1}}, {{"at", {3}}, {"value", 2}}}).find("a second time"),
            std::string::npos);
  EXPECT_NE(problem({{{"at", {3}}, {"value", 1}}}, {0}).find("share storage"), std::string::npos);
  EXPECT_NE(problem({{{"at", {3}}, {"value", 300}}}).find("set[0].value"), std::string::npos);
}

TEST(HugeCases, AnExpandedFillReachesEveryElementFromOneStored) {
  const Allowance allow(int64_t{64} << 20);
  json c = {{"id", "h/gather"},
            {"op", "torch.gather"},
            {"source", {{"document", "huge_cases_test"}, {"kind", "edge"}}},
            {"args", {{"dim", 0}}},
            {"inputs",
             {{"input", {{"dtype", "int8"}, {"data", {10, 20, 30}}}},
              {"index", {{"dtype", "int64"}, {"shape", {kPast}}, {"strides", {0}}, {"fill", 2}}}}},
            {"expect", {{"output", {{"shape", {kPast}}, {"fill", 30}}}}},
            {"tags", {"huge"}}};
  const Case built = load_spec_text(file_text(c), "h.json").at(0);
  EXPECT_EQ(built.call.tensor("index")->storage()->size(), sizeof(int64_t));
  const Expectation e = evaluate(built.call);
  ASSERT_TRUE(e.outputs);
  EXPECT_FALSE(output_mismatch(e.outputs->front(), built.expect.outputs.front()));
}

TEST(HugeCases, RunAnswersNotApplicableWithoutTheAllowanceAndPassesUnderIt) {
  const auto dir = std::filesystem::temp_directory_path() / ("sp_huge_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "specs");
  std::ofstream(dir / "specs" / "h.json") << file_text(scatter_case(kPast, true));
  RunOptions o;
  o.backends = {"reference", "cpu"};
  RunSummary s = run_specs_reported({(dir / "specs").string()}, o, (dir / "off").string());
  EXPECT_EQ(s.exit_code, exit_code::kOk);
  EXPECT_EQ(s.verdicts[Verdict::Kind::NotApplicable], 3u);  // the document check and both backends
  EXPECT_EQ(s.verdicts[Verdict::Kind::Pass], 0u);
  {
    const Allowance allow(int64_t{64} << 20);
    s = run_specs_reported({(dir / "specs").string()}, o, (dir / "on").string());
  }
  EXPECT_EQ(s.exit_code, exit_code::kOk);
  EXPECT_EQ(s.verdicts[Verdict::Kind::Pass], 3u);
  EXPECT_EQ(s.verdicts[Verdict::Kind::NotApplicable], 0u);
  std::filesystem::remove_all(dir);
}

// Past 2^24 output elements the builder keeps its slots in a hash map: two
// writers of one element still allow either, and the rest keeps its bits.
TEST(HugeCases, TheOutputBuilderKeepsALargeOutputWithoutASlotPerElement) {
  const int64_t n = (int64_t{1} << 24) + 3;
  Tensor initial = Tensor::zeros(DType::Int8, {n});
  store_bits(DType::Int8, initial.element_ptr(5), 9);
  OutputBuilder b("self", initial, nullptr);
  b.overwrite({n - 1}, 1, {});
  b.overwrite({n - 1}, 2, {});
  b.overwrite({7}, 3, {});
  b.reduce({8}, ReduceMode::Add, Value::of_int(4), {});
  const ExpectedTensor out = b.finish();
  ASSERT_EQ(out.loose.size(), 1u);
  EXPECT_TRUE(out.allows(n - 1, 1));
  EXPECT_TRUE(out.allows(n - 1, 2));
  EXPECT_FALSE(out.allows(n - 1, 0));
  EXPECT_TRUE(out.allows(7, 3));
  EXPECT_TRUE(out.allows(8, 4));
  EXPECT_TRUE(out.allows(5, 9));
  EXPECT_FALSE(out.allows(5, 0));
  EXPECT_EQ(load_bits(DType::Int8, initial.element_ptr(7)), 0u) << "the caller's tensor was written";
}

// The comparator's block path finds the first disallowed element wherever it
// lies, and lets a loose element differ from the representative.
TEST(HugeCases, TheContiguousComparisonFindsTheFirstDisallowedElement) {
  const int64_t n = 10000;
  OutputBuilder b("out", Tensor::zeros(DType::Int16, {n}), nullptr);
  b.overwrite({4500}, 1, {});
  b.overwrite({4500}, 2, {});
  const ExpectedTensor want = b.finish();
  Tensor got = want.exact.clone_storage();
  store_bits(DType::Int16, got.element_ptr(4500), 1);  // the other writer: allowed
  EXPECT_FALSE(output_mismatch(want, got));
  store_bits(DType::Int16, got.element_ptr(8191), 5);
  store_bits(DType::Int16, got.element_ptr(9999), 5);
  const std::optional<std::string> m = output_mismatch(want, got);
  ASSERT_TRUE(m);
  EXPECT_NE(m->find("out[8191]"), std::string::npos) << *m;
}

}  // namespace
}  // namespace sp
