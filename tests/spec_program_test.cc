// spec_program_test.cc — program cases in the spec loader (issue 32 item 2):
// a program loads with every step bound to its op table entry, and every
// problem names the file, the case and the field, down to the step's
// operand (`cases[0].program.steps[1].operands.index`).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/spec_loader.h"
#include "reference/op_table.h"

namespace sp {
namespace {

using json = nlohmann::json;

constexpr const char* kFile = "programs.json";

json t_int64(const json& data) { return {{"dtype", "int64"}, {"data", data}}; }
json t_f32(const json& data) { return {{"dtype", "float32"}, {"data", data}}; }

// y = torch.scatter_add(x, 0, i, s); z = torch.gather(y, 1, j)
json program_case() {
  json steps = json::array();
  steps.push_back({{"let", "y"},
                   {"op", "torch.scatter_add"},
                   {"args", {{"dim", 0}}},
                   {"operands", {{"self", "x"}, {"index", "i"}, {"src", "s"}}}});
  steps.push_back(
      {{"let", "z"}, {"op", "torch.gather"}, {"args", {{"dim", 1}}}, {"operands", {{"input", "y"}, {"index", "j"}}}});
  return {{"id", "p/scatter_add-gather"},
          {"source", {{"document", "test"}}},
          {"program",
           {{"inputs",
             {{"x", t_f32({{0, 0}, {0, 0}})},
              {"i", t_int64({{1, 0}})},
              {"s", t_f32({{1, 2}})},
              {"j", t_int64({{1}, {0}})}}},
            {"steps", steps}}},
          {"expect", {{"unspecified", "loading only"}}}};
}

std::string text_of(const json& c) { return json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(); }

SpecError only_error(const json& c) {
  const LoadReport report = load_spec_text_lenient(text_of(c), kFile);
  EXPECT_EQ(report.errors.size(), 1u) << c.dump();
  if (report.errors.empty()) return SpecError("", "", "", "");
  return report.errors.front();
}

void expect_field(const json& c, const std::string& field, const std::string& words) {
  const SpecError e = only_error(c);
  EXPECT_EQ(e.file(), kFile);
  EXPECT_EQ(e.case_id(), "p/scatter_add-gather");
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_NE(e.message().find(words), std::string::npos) << e.what();
}

TEST(SpecLoaderProgram, LoadsStepsBoundToTheirEntries) {
  const std::vector<Case> cases = load_spec_text(text_of(program_case()), kFile);
  ASSERT_EQ(cases.size(), 1u);
  const Case& c = cases[0];
  ASSERT_TRUE(c.is_program());
  EXPECT_EQ(c.call.op, kProgramOp);
  EXPECT_EQ(c.call.tensors.size(), 4u);  // the inputs
  ASSERT_EQ(c.program->steps.size(), 2u);
  for (const ProgramStep& s : c.program->steps) {
    EXPECT_NE(s.call.spec, nullptr) << s.op;  // bound once, by the loader
    EXPECT_FALSE(needs_signature_check(s.call));
    EXPECT_TRUE(s.call.tensors.empty());
  }
  EXPECT_EQ(c.program->steps[1].operands.at("input"), "y");
  // The default compared names: every step's result, in order.
  EXPECT_EQ(c.program->expect, (std::vector<std::string>{"y", "z"}));
}

TEST(SpecLoaderProgram, AnOperandNamedBeforeItIsDefinedNamesTheOperand) {
  json c = program_case();
  c["program"]["steps"][1]["operands"]["index"] = "k";
  expect_field(c, "cases[0].program.steps[1].operands.index", "not defined before this step");
  c = program_case();
  c["program"]["steps"][0]["operands"]["src"] = "z";  // defined only by the later step
  expect_field(c, "cases[0].program.steps[0].operands.src", "not defined before this step");
}

TEST(SpecLoaderProgram, OpsOperandsAndArgumentsComeFromTheOpTable) {
  json c = program_case();
  c["program"]["steps"][0]["op"] = "torch.scatter_max";
  expect_field(c, "cases[0].program.steps[0].op", "unknown op");
  c = program_case();
  c["program"]["steps"][1]["operands"]["src"] = "x";
  expect_field(c, "cases[0].program.steps[1].operands.src", "has no operand");
  c = program_case();
  c["program"]["steps"][1]["args"]["reduce"] = "sum";
  expect_field(c, "cases[0].program.steps[1].args.reduce", "takes no argument");
  c = program_case();
  c["program"]["steps"][0]["args"]["dim"] = "zero";
  expect_field(c, "cases[0].program.steps[0].args.dim", "integer");
  // The signature check (bind_call): a required operand missing.
  c = program_case();
  c["program"]["steps"][0]["operands"].erase("src");
  const SpecError e = only_error(c);
  EXPECT_EQ(e.field().rfind("cases[0].program.steps[0].", 0), 0u) << e.what();
  c = program_case();
  c["program"]["steps"][0]["op"] = "paddle.scatter";
  expect_field(c, "cases[0].program.steps[0].operands.self", "has no operand");
  c = program_case();
  c["program"]["steps"][0]["op"] = "torch.gather.backward";
  expect_field(c, "cases[0].program.steps[0].op", "backward op");
}

TEST(SpecLoaderProgram, LetIsForResultsAndInPlaceStepsWriteTheirSelf) {
  json c = program_case();
  c["program"]["steps"][1] = {{"let", "w"},
                              {"op", "torch.index_add_"},
                              {"args", {{"dim", 0}}},
                              {"operands", {{"self", "y"}, {"index", "i"}, {"source", "s"}}}};
  expect_field(c, "cases[0].program.steps[1].let", "writes its self in place");
  c["program"]["steps"][1].erase("let");
  c["program"]["inputs"]["i"] = t_int64({1});
  c["program"]["inputs"]["s"] = t_f32({{1, 2}});
  const std::vector<Case> cases = load_spec_text(text_of(c), kFile);
  EXPECT_TRUE(cases[0].program->steps[1].in_place());
  EXPECT_EQ(cases[0].program->steps[1].written(), "y");
  EXPECT_EQ(cases[0].program->expect, (std::vector<std::string>{"y"}));
  c = program_case();
  c["program"]["steps"][1].erase("let");
  expect_field(c, "cases[0].program.steps[1].let", "missing");
  c = program_case();
  c["program"]["steps"][1]["let"] = "x";
  expect_field(c, "cases[0].program.steps[1].let", "already defined");
}

TEST(SpecLoaderProgram, ExpectNamesMustBeDefinedAndOutputsMatchThem) {
  json c = program_case();
  c["program"]["expect"] = {"z", "q"};
  expect_field(c, "cases[0].program.expect[1]", "never defines");
  c = program_case();
  c["program"]["expect"] = {"z"};
  c["expect"] = {{"outputs", {{"y", t_f32({{0, 0}})}}}};
  expect_field(c, "cases[0].expect.outputs.y", "not a compared tensor");
  c["expect"] = {{"output", t_f32({{0}})}};
  expect_field(c, "cases[0].expect.output", "by name");
  c["expect"] = {{"outputs", {{"z", {{"data", {{2}, {0}}}}}}}};  // dtype from z
  const std::vector<Case> cases = load_spec_text(text_of(c), kFile);
  EXPECT_EQ(cases[0].expect.output_names, (std::vector<std::string>{"z"}));
  EXPECT_EQ(cases[0].expect.outputs.at(0).dtype(), DType::Float32);
}

TEST(SpecLoaderProgram, ViewStepsAreCheckedAgainstTheShapesTheyView) {
  json c = program_case();
  c["program"]["steps"][1] = {{"let", "v"},
                              {"op", "view.narrow"},
                              {"args", {{"dim", 1}, {"start", 1}, {"length", 2}}},
                              {"operands", {{"self", "y"}}}};
  expect_field(c, "cases[0].program.steps[1].args", "does not fit dim 1 of size 2");
  c["program"]["steps"][1]["args"]["length"] = 1;
  EXPECT_EQ(load_spec_text(text_of(c), kFile).size(), 1u);
  c["program"]["steps"][1]["args"].erase("start");
  expect_field(c, "cases[0].program.steps[1].args", "needs the int argument start");
  c["program"]["steps"][1] = {
      {"let", "v"}, {"op", "view.transpose"}, {"args", {{"dim0", 0}, {"dim1", 2}}}, {"operands", {{"self", "y"}}}};
  expect_field(c, "cases[0].program.steps[1].args", "out of range");
}

TEST(SpecLoaderProgram, StepCountAndOtherFieldsAreBounded) {
  json c = program_case();
  c["program"]["steps"].erase(1);
  EXPECT_NE(only_error(c).field().find("program.steps"), std::string::npos);
  c = program_case();
  for (int k = 0; k < 3; ++k) c["program"]["steps"].push_back(c["program"]["steps"][1]);
  EXPECT_NE(only_error(c).field().find("program.steps"), std::string::npos);
  c = program_case();
  c["op"] = "torch.gather";
  EXPECT_FALSE(only_error(c).field().empty());
  c = program_case();
  c["program"]["steps"][0]["let"] = "bad name";
  EXPECT_NE(only_error(c).field().find("program.steps[0].let"), std::string::npos);
}

TEST(SpecLoaderProgram, WritesWhatItLoadsExactly) {
  json c = program_case();
  c["program"]["steps"].push_back(
      {{"let", "t"}, {"op", "view.transpose"}, {"args", {{"dim0", 0}, {"dim1", 1}}}, {"operands", {{"self", "z"}}}});
  c["program"]["expect"] = {"t", "y"};
  c["expect"] = {{"outputs", {{"t", t_f32({{2, 0}})}, {"y", t_f32({{0, 2}, {1, 0}})}}}};
  const std::vector<Case> first = load_spec_text(text_of(c), kFile);
  const json written = case_to_json(first[0]);
  EXPECT_EQ(written["program"]["steps"].size(), 3u);
  const std::vector<Case> again = load_spec_text(spec_file_json(first, "round trip").dump(), kFile);
  EXPECT_EQ(case_to_json(again[0]).dump(), written.dump());
  ASSERT_TRUE(again[0].is_program());
  EXPECT_EQ(again[0].program->expect, (std::vector<std::string>{"t", "y"}));
  EXPECT_EQ(again[0].expect.output_names, (std::vector<std::string>{"t", "y"}));
}

}  // namespace
}  // namespace sp
