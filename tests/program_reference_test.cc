// program_reference_test.cc — the reference for programs (reference/program.h,
// SEMANTICS.md P-1): steps run in order on shared buffers, a rule-breaking
// step ends the program with its error, and allowed sets compose soundly
// (every legal choice of a duplicate writer, propagated, is allowed) and
// tightly (an element that reads no loose element stays exact).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/spec_loader.h"
#include "reference/program.h"

namespace sp {
namespace {

using json = nlohmann::json;

json t_int64(const json& data) { return {{"dtype", "int64"}, {"data", data}}; }
json t_f32(const json& data) { return {{"dtype", "float32"}, {"data", data}}; }
json step(const char* let, const char* op, const json& args, const json& operands) {
  json s = {{"op", op}, {"args", args}, {"operands", operands}};
  if (let[0] != '\0') s["let"] = let;
  return s;
}

Case load_program(const json& inputs, const json& steps, const json& expect = nullptr) {
  json program = {{"inputs", inputs}, {"steps", steps}};
  if (!expect.is_null()) program["expect"] = expect;
  const json c = {{"id", "p"},
                  {"source", {{"document", "test"}}},
                  {"program", program},
                  {"expect", {{"unspecified", "reference test"}}}};
  std::vector<Case> cases = load_spec_text(json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(), "p.json");
  return std::move(cases.at(0));
}

uint64_t f32(double v) { return bits_from_value(DType::Float32, Value::of_float(v)); }

// y = x.scatter(0, i, s) with i = [[0, 0], [0, 0]] over a 2x2 x: y[0][0] and
// y[0][1] each have two writers (s's two rows), y[1][*] keeps x's row.
json duplicate_inputs(const json& j) {
  return {{"x", t_f32({{0, 0}, {5, 6}})}, {"i", t_int64({{0, 0}, {0, 0}})}, {"s", t_f32({{1, 2}, {3, 4}})}, {"j", j}};
}
json scatter_then_gather() {
  return {step("y", "torch.scatter", {{"dim", 0}}, {{"self", "x"}, {"index", "i"}, {"src", "s"}}),
          step("z", "torch.gather", {{"dim", 0}}, {{"input", "y"}, {"index", "j"}})};
}

TEST(ProgramReference, AStepThatReadsOnlyExactElementsStaysExact) {
  // z = gather(y, 0, [[1, 1]]) reads only y's untouched row 1.
  const Case c = load_program(duplicate_inputs(t_int64({{1, 1}})), scatter_then_gather());
  const Expectation e = evaluate_program(*c.program);
  ASSERT_TRUE(e.outputs) << e.summary();
  const ExpectedTensor& y = e.outputs->at(0);
  const ExpectedTensor& z = e.outputs->at(1);
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(z.name, "z");
  EXPECT_EQ(y.loose.size(), 2u);  // the duplicates: one of {1, 3}, one of {2, 4}
  EXPECT_TRUE(y.allows(0, f32(1)) && y.allows(0, f32(3)));
  EXPECT_FALSE(y.allows(0, f32(2)));
  EXPECT_TRUE(z.loose.empty());
  // Tightness: z is exact; a wrong value there is rejected.
  EXPECT_TRUE(z.allows(0, f32(5)));
  EXPECT_FALSE(z.allows(0, f32(6)));
  EXPECT_FALSE(z.allows(1, f32(5)));
}

TEST(ProgramReference, AStepThatReadsALooseElementIsUnspecifiedThereAndExactElsewhere) {
  // z = gather(y, 0, [[0, 1]]): z[0][0] reads y[0][0] (two writers), z[0][1] reads y[1][1].
  const Case c = load_program(duplicate_inputs(t_int64({{0, 1}})), scatter_then_gather());
  ProgramTrace trace;
  const Expectation e = evaluate_program(*c.program, &trace);
  ASSERT_TRUE(e.outputs) << e.summary();
  const ExpectedTensor& z = e.outputs->at(1);
  ASSERT_EQ(z.loose.size(), 1u);
  ASSERT_TRUE(z.loose.count(0));
  EXPECT_TRUE(z.loose.at(0).unspecified);
  EXPECT_NE(z.loose.at(0).why.find("y[0][0]"), std::string::npos) << z.loose.at(0).why;
  // Soundness: either legal choice of the duplicate writer, propagated, is allowed.
  for (double choice : {1.0, 3.0}) {
    EXPECT_TRUE(e.outputs->at(0).allows(0, f32(choice)));
    EXPECT_TRUE(z.allows(0, f32(choice)));
  }
  // Tightness: the element that read an exact one is still exact.
  EXPECT_TRUE(z.allows(1, f32(6)));
  EXPECT_FALSE(z.allows(1, f32(2)));
  ASSERT_EQ(trace.steps.size(), 2u);
  EXPECT_EQ(trace.steps[1].loose_reads.size(), 1u);
}

TEST(ProgramReference, InPlaceStepsWriteTheirSelfAndTheBaseOfAView) {
  // v = x.narrow(1, 1, 1); v.index_fill_(0, [1], 7.0); x.scatter_add_(0, [[0, 0, 0]], x2)
  const json inputs = {{"x", t_f32({{1, 2, 3}, {4, 5, 6}})}, {"k", t_int64({1})}};
  const json steps = {step("v", "view.narrow", {{"dim", 1}, {"start", 1}, {"length", 1}}, {{"self", "x"}}),
                      step("", "torch.index_fill_", {{"dim", 0}, {"value", 7.0}}, {{"self", "v"}, {"index", "k"}})};
  const Case c = load_program(inputs, steps, {"x", "v"});
  const Expectation e = evaluate_program(*c.program);
  ASSERT_TRUE(e.outputs) << e.summary();
  const ExpectedTensor& x = e.outputs->at(0);
  EXPECT_EQ(x.exact.to_bits(), (std::vector<uint64_t>{f32(1), f32(2), f32(3), f32(4), f32(7), f32(6)}));
  EXPECT_EQ(e.outputs->at(1).exact.to_bits(), (std::vector<uint64_t>{f32(2), f32(7)}));
  EXPECT_TRUE(x.loose.empty());
}

TEST(ProgramReference, ARuleBreakingStepEndsTheProgramWithItsError) {
  const Case c = load_program(duplicate_inputs(t_int64({{0, 2}})), scatter_then_gather());
  ProgramTrace trace;
  const Expectation e = evaluate_program(*c.program, &trace);
  EXPECT_TRUE(e.expects_error()) << e.summary();
  ASSERT_FALSE(e.errors.empty());
  EXPECT_EQ(e.errors.front(), ErrorCategory::IndexOutOfBounds);
  EXPECT_EQ(e.error_message.rfind("step 2 (torch.gather): ", 0), 0u) << e.error_message;
  EXPECT_FALSE(e.error_clause.empty());
  const std::vector<std::string> lines = explain_program_lines(*c.program, e, trace);
  int blocks = 0;
  for (const std::string& l : lines) blocks += l.rfind("== step ", 0) == 0;
  EXPECT_EQ(blocks, 2);
}

TEST(ProgramReference, ALooseIndexMakesTheRestOfTheProgramUnspecified) {
  // w = scatter(zeros, 0, dup, [[0, 1]] as int64): w[0][0] is one of {0, 1};
  // then gather through w as an index.
  const json inputs = {{"x", t_int64({{0, 0}})},
                       {"i", t_int64({{0, 0}, {0, 0}})},
                       {"s", t_int64({{0, 1}, {1, 0}})},
                       {"d", t_f32({{10, 20}})}};
  const json steps = {step("w", "torch.scatter", {{"dim", 0}}, {{"self", "x"}, {"index", "i"}, {"src", "s"}}),
                      step("z", "torch.gather", {{"dim", 1}}, {{"input", "d"}, {"index", "w"}})};
  const Expectation e = evaluate_program(*load_program(inputs, steps).program);
  EXPECT_TRUE(e.unspecified) << e.summary();
  EXPECT_NE(e.unspecified_reason.find("step 2"), std::string::npos);
  EXPECT_NE(e.unspecified_reason.find("w[0][0]"), std::string::npos) << e.unspecified_reason;
}

TEST(ProgramReference, AFloatSumIntervalFeedsForwardAsUnspecified) {
  // y = scatter_add(x, 0, [[0], [0], [0]], s): y[0][0] adds three floats (an
  // interval); index_select(y, 0, [0, 1]) copies it (unspecified) and row 1 (exact).
  const json inputs = {{"x", t_f32({{0.1}, {0.5}})},
                       {"i", t_int64({{0}, {0}, {0}})},
                       {"s", t_f32({{0.2}, {0.3}, {0.7}})},
                       {"k", t_int64({0, 1})}};
  const json steps = {step("y", "torch.scatter_add", {{"dim", 0}}, {{"self", "x"}, {"index", "i"}, {"src", "s"}}),
                      step("z", "torch.index_select", {{"dim", 0}}, {{"input", "y"}, {"index", "k"}})};
  const Expectation e = evaluate_program(*load_program(inputs, steps, {"z"}).program);
  ASSERT_TRUE(e.outputs) << e.summary();
  const ExpectedTensor& z = e.outputs->at(0);
  ASSERT_TRUE(z.loose.count(0));
  EXPECT_TRUE(z.loose.at(0).unspecified);
  EXPECT_FALSE(z.loose.count(1));
  EXPECT_TRUE(z.allows(1, f32(0.5)));
  EXPECT_FALSE(z.allows(1, f32(0.25)));
}

}  // namespace
}  // namespace sp
