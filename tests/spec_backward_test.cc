// spec_backward_test.cc — the spec format's backward block (FORMAT.md,
// "Backward"): a case asks for `<op>.backward` with grad_output and the
// expected gradients; every misuse names file, case and field; the writer
// round-trips it.
#include <gtest/gtest.h>

#include "harness/spec_loader.h"
#include "reference/op_table.h"

namespace sp {
namespace {

using json = nlohmann::json;

constexpr const char* kFile = "mem.json";

json gather_backward_case() {
  return json::parse(R"({
    "id": "t/gather/backward",
    "op": "torch.gather",
    "source": {"document": "000_bc03f2d9d994437c.txt", "kind": "edge"},
    "args": {"dim": 0},
    "inputs": {
      "input": {"dtype": "float32", "data": [1, 2, 3]},
      "index": {"dtype": "int64", "data": [0, 0, 2]}
    },
    "backward": {
      "grad_output": {"dtype": "float32", "data": [1, 10, 100]},
      "expect": {"grads": {"input": {"data": [11, 0, 100]}}}
    }
  })");
}

json scatter_backward_case() {
  return json::parse(R"({
    "id": "t/scatter/backward",
    "op": "torch.scatter",
    "source": {"document": "002_9301e372f38f2ff8.txt", "kind": "edge"},
    "args": {"dim": 0},
    "inputs": {
      "self": {"dtype": "float64", "data": [0, 0, 0]},
      "index": {"dtype": "int64", "data": [2, 0]},
      "src": {"dtype": "float64", "data": [5, 6]}
    },
    "backward": {
      "grad_output": {"dtype": "float64", "data": [1, 2, 3]},
      "expect": {"grads": {"src": {"data": [3, 1]}, "self": {"data": [0, 2, 0]}}}
    }
  })");
}

std::string text_of(const json& c) { return json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(); }

SpecError load_error(const json& c) {
  try {
    load_spec_text(text_of(c), kFile);
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error: " << c.dump();
  return SpecError("", "", "", "");
}

void expect_error(const json& c, const std::string& field, const std::string& words) {
  const SpecError e = load_error(c);
  EXPECT_EQ(e.file(), kFile) << e.what();
  EXPECT_EQ(e.case_id(), c["id"].get<std::string>()) << e.what();
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_NE(e.message().find(words), std::string::npos) << "message lacks \"" << words << "\": " << e.what();
}

TEST(SpecBackward, TheTableDerivesABackwardOpPerDifferentiableForward) {
  const OpSpec& gather = op_spec("torch.gather");
  const OpSpec* b = backward_op(gather);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->id, "torch.gather.backward");
  EXPECT_EQ(b->backward_of, "torch.gather");
  EXPECT_FALSE(b->in_place);
  ASSERT_NE(b->operand("grad_output"), nullptr);
  EXPECT_EQ(b->operand("out"), nullptr);  // out= is the forward's business
  EXPECT_TRUE(b->operand("input")->differentiable);
  EXPECT_FALSE(b->operand("index")->differentiable);
  // The in-place forward's self is only read by its backward.
  EXPECT_EQ(backward_op(op_spec("torch.scatter_"))->operand("self")->role, OperandRole::Read);
  // Ops without a documented backward have none.
  EXPECT_EQ(backward_op(op_spec("torch.index_select")), nullptr);
  EXPECT_EQ(backward_op(op_spec("onnx.ScatterND")), nullptr);
}

TEST(SpecBackward, LoadsTheBlockAsTheBackwardOp) {
  const std::vector<Case> cases = load_spec_text(text_of(scatter_backward_case()), kFile);
  ASSERT_EQ(cases.size(), 1u);
  const Case& c = cases[0];
  EXPECT_EQ(c.call.op, "torch.scatter.backward");
  ASSERT_NE(c.call.tensor("grad_output"), nullptr);
  EXPECT_EQ(c.call.tensor("grad_output")->dtype(), DType::Float64);
  ASSERT_EQ(c.expect.kind, CaseExpect::Kind::Output);
  // In the forward's operand order, whatever the JSON's key order.
  EXPECT_EQ(c.expect.output_names, (std::vector<std::string>{"grad_self", "grad_src"}));
  ASSERT_EQ(c.expect.outputs.size(), 2u);
  EXPECT_EQ(c.expect.outputs[0].dtype(), DType::Float64);  // the operand's dtype by default
  EXPECT_EQ(c.expect.outputs[1].shape(), (Shape{2}));
  EXPECT_EQ(grad_operands(op_spec(c.call.op), c.call), (std::vector<std::string>{"self", "src"}));
}

TEST(SpecBackward, TheValueOverloadHasNoSourceGradient) {
  json c = scatter_backward_case();
  c["inputs"].erase("src");
  c["args"]["value"] = 1.5;
  c["backward"]["expect"]["grads"].erase("src");
  const Case loaded = load_spec_text(text_of(c), kFile).at(0);
  EXPECT_EQ(loaded.expect.output_names, std::vector<std::string>{"grad_self"});
  c["backward"]["expect"]["grads"]["src"] = json::parse(R"({"data": [3, 1]})");
  expect_error(c, "cases[0].backward.expect.grads.src", "not a differentiable operand of this call");
}

TEST(SpecBackward, EveryMisuseNamesItsField) {
  json c = gather_backward_case();
  c["expect"] = json::parse(R"({"output": {"data": [1]}})");
  expect_error(c, "cases[0]", "");  // the schema: expect and backward are exclusive
  c = gather_backward_case();
  c["backward"]["expect"]["grads"] = json::parse(R"({"index": {"data": [0, 0, 0]}})");
  expect_error(c, "cases[0].backward.expect.grads.index", "not a differentiable operand");
  c = gather_backward_case();
  c["inputs"]["grad_output"] = c["backward"]["grad_output"];
  expect_error(c, "cases[0].inputs", "");  // not an input of any forward op (schema)
  c = gather_backward_case();
  c["op"] = "torch.index_select";
  c["inputs"].erase("index");
  c["inputs"]["index"] = json::parse(R"({"dtype": "int64", "data": [0]})");
  expect_error(c, "cases[0].backward", "has no documented backward");
  c = gather_backward_case();
  c["op"] = "torch.gather.backward";
  expect_error(c, "cases[0].op", "");  // a backward op id is not an op a case names
  c = scatter_backward_case();
  c["backward"]["expect"]["grads"].erase("self");
  expect_error(c, "cases[0].backward.expect.grads", "misses self");
  c = gather_backward_case();
  c["backward"]["grad_output"]["data"] = json::parse("[1, \"x\"]");
  expect_error(c, "cases[0].backward.grad_output.data[1]", "");
}

TEST(SpecBackward, ErrorAndUnspecifiedExpectations) {
  json c = scatter_backward_case();
  c["backward"]["expect"] = json::parse(R"({"error": "shape_mismatch", "message": "src.shape != index.shape"})");
  Case loaded = load_spec_text(text_of(c), kFile).at(0);
  EXPECT_EQ(loaded.expect.kind, CaseExpect::Kind::Error);
  EXPECT_EQ(loaded.expect.error, ErrorCategory::ShapeMismatch);
  c["backward"]["expect"] = json::parse(R"({"unspecified": "no documented gradient"})");
  loaded = load_spec_text(text_of(c), kFile).at(0);
  EXPECT_EQ(loaded.expect.kind, CaseExpect::Kind::Unspecified);
}

TEST(SpecBackward, TheWriterRoundTripsTheBlock) {
  const Case c = load_spec_text(text_of(scatter_backward_case()), kFile).at(0);
  const json written = case_to_json(c);
  EXPECT_EQ(written["op"], "torch.scatter");
  EXPECT_FALSE(written.contains("expect"));
  EXPECT_FALSE(written["inputs"].contains("grad_output"));
  ASSERT_TRUE(written.contains("backward"));
  const Case again = load_spec_text(json{{"format", "scatterproof-spec/1"}, {"cases", {written}}}.dump(), kFile).at(0);
  EXPECT_EQ(again.call.op, c.call.op);
  EXPECT_EQ(again.expect.output_names, c.expect.output_names);
  EXPECT_EQ(again.expect.outputs[1].to_bits(), c.expect.outputs[1].to_bits());
  EXPECT_EQ(again.call.tensor("grad_output")->to_bits(), c.call.tensor("grad_output")->to_bits());
}

}  // namespace
}  // namespace sp
