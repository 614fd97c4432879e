// cpu_onnx_test.cc — the cpu backend's ONNX kernels (onnx.GatherElements,
// onnx.ScatterElements, onnx.Scatter, onnx.GatherND, onnx.ScatterND) on
// exact results from ONNX's operator documentation and a few of our own,
// every operand in every test layout (contiguous, transposed, gapped,
// expanded), plus the errors: opset, reduction at the opset, bounds.
#include <gtest/gtest.h>

#include <memory>

#include "backends/backend.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i32;
using test::i64;
using test::kLayouts;
using test::Layout;
using test::relaid;
using test::values_of;

class CpuOnnxTest : public ::testing::Test {
 protected:
  Backend& cpu() {
    if (!backend_) {
      std::string why;
      backend_ = make_backend("cpu", BackendOptions{2, false}, &why);
      if (!backend_) ADD_FAILURE() << why;
    }
    return *backend_;
  }
  // Runs `c` with every tensor operand in each layout; the output must be
  // `expected` every time.
  void expect_values(const OpCall& c, const std::vector<double>& expected) {
    for (Layout layout : kLayouts) {
      OpCall laid = c;
      for (auto& [name, t] : laid.tensors) t = relaid(t, layout);
      const Outcome o = cpu().run(laid);
      ASSERT_EQ(o.kind, Outcome::Kind::Outputs) << c.op << " layout " << static_cast<int>(layout) << ": " << o.message;
      ASSERT_EQ(o.outputs.size(), 1u);
      EXPECT_EQ(values_of(o.outputs[0]), expected) << c.op << " layout " << static_cast<int>(layout);
    }
  }
  void expect_error(const OpCall& c, ErrorCategory category) {
    const Outcome o = cpu().run(c);
    ASSERT_EQ(o.kind, Outcome::Kind::Error) << c.op;
    EXPECT_EQ(o.error, category) << o.message;
  }
  std::unique_ptr<Backend> backend_;
};

Arg I(int64_t v) { return Arg::of_int(v); }
Arg Str(const char* s) { return Arg::of_string(s); }

TEST_F(CpuOnnxTest, GatherElementsDocExamplesAndNegatives) {
  // ONNX example 1 (axis 1) and example 2 (axis 0).
  expect_values(
      test::call_of("onnx.GatherElements",
                    {{"data", f32({2, 2}, {1, 2, 3, 4})}, {"indices", i64({2, 2}, {0, 0, 1, 0})}}, {{"axis", I(1)}}),
      {1, 1, 4, 3});
  expect_values(test::call_of("onnx.GatherElements", {{"data", f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                                                      {"indices", i32({2, 3}, {1, 2, 0, 2, 0, 0})}}),
                {4, 8, 3, 7, 2, 3});
  // Negative indices wrap; axis -1.
  expect_values(test::call_of("onnx.GatherElements",
                              {{"data", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"indices", i64({2, 2}, {-1, -3, 2, -2})}},
                              {{"axis", I(-1)}}),
                {3, 1, 6, 5});
  expect_error(
      test::call_of("onnx.GatherElements", {{"data", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"indices", i64({1, 1}, {-4})}},
                    {{"axis", I(1)}}),
      ErrorCategory::IndexOutOfBounds);
  expect_error(test::call_of("onnx.GatherElements", {{"data", f32({2}, {1, 2})}, {"indices", i64({1}, {0})}},
                             {{"opset", I(10)}}),
               ErrorCategory::InvalidArgument);
}

TEST_F(CpuOnnxTest, ScatterElementsReductions) {
  const Tensor data = f32({1, 5}, {1, 2, 3, 4, 5});
  const Tensor idx = i64({1, 2}, {1, 3});
  const Tensor upd = f32({1, 2}, {1.5, 2.5});
  // ONNX example 2 (axis 1, none).
  expect_values(
      test::call_of("onnx.ScatterElements", {{"data", data}, {"indices", idx}, {"updates", upd}}, {{"axis", I(1)}}),
      {1, 1.5, 3, 2.5, 5});
  // Duplicates combine into the existing value (example: add).
  const Tensor dup = i64({1, 2}, {1, -4});
  const Tensor two = f32({1, 2}, {1.5, 2});
  const auto with = [&](const char* r) {
    return test::call_of("onnx.ScatterElements", {{"data", data}, {"indices", dup}, {"updates", two}},
                         {{"axis", I(1)}, {"reduction", Str(r)}});
  };
  expect_values(with("add"), {1, 5.5, 3, 4, 5});
  expect_values(with("mul"), {1, 6, 3, 4, 5});
  expect_values(with("max"), {1, 2, 3, 4, 5});
  expect_values(with("min"), {1, 1.5, 3, 4, 5});
  // Integer mul stays exact beyond 2^24.
  expect_values(
      test::call_of("onnx.ScatterElements",
                    {{"data", i64({2}, {16777217, 1})}, {"indices", i64({1}, {0})}, {"updates", i64({1}, {3})}},
                    {{"reduction", Str("mul")}}),
      {50331651, 1});
  // max / min arrive at opset 18, add / mul at 16.
  OpCall at16 = with("max");
  at16.args["opset"] = I(16);
  expect_error(at16, ErrorCategory::InvalidReduce);
  OpCall at13 = with("add");
  at13.args["opset"] = I(13);
  expect_error(at13, ErrorCategory::InvalidReduce);
  expect_error(
      test::call_of("onnx.ScatterElements",
                    {{"data", data}, {"indices", i64({1, 1}, {5})}, {"updates", f32({1, 1}, {0})}}, {{"axis", I(1)}}),
      ErrorCategory::IndexOutOfBounds);
  // onnx.Scatter: as ScatterElements without reduction.
  expect_values(test::call_of("onnx.Scatter", {{"data", data}, {"indices", idx}, {"updates", upd}}, {{"axis", I(1)}}),
                {1, 1.5, 3, 2.5, 5});
}

TEST_F(CpuOnnxTest, GatherNDDocExamples) {
  const Tensor d22 = i64({2, 2}, {0, 1, 2, 3});
  expect_values(test::call_of("onnx.GatherND", {{"data", d22}, {"indices", i64({2, 2}, {0, 0, 1, 1})}}), {0, 3});
  expect_values(test::call_of("onnx.GatherND", {{"data", d22}, {"indices", i64({2, 1}, {1, 0})}}), {2, 3, 0, 1});
  const Tensor d222 = f32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  expect_values(test::call_of("onnx.GatherND", {{"data", d222}, {"indices", i64({2, 2}, {0, 1, 1, 0})}}), {2, 3, 4, 5});
  expect_values(test::call_of("onnx.GatherND", {{"data", d222}, {"indices", i64({2, 1, 2}, {0, 1, 1, 0})}}),
                {2, 3, 4, 5});
  // Example 5: batch_dims 1.
  expect_values(
      test::call_of("onnx.GatherND", {{"data", d222}, {"indices", i64({2, 1}, {1, 0})}}, {{"batch_dims", I(1)}}),
      {2, 3, 4, 5});
  // Negative components wrap.
  expect_values(test::call_of("onnx.GatherND", {{"data", d22}, {"indices", i64({2, 2}, {-2, -1, -1, 0})}}), {1, 2});
  expect_error(test::call_of("onnx.GatherND", {{"data", d22}, {"indices", i64({1, 2}, {0, 2})}}),
               ErrorCategory::IndexOutOfBounds);
  expect_error(test::call_of("onnx.GatherND", {{"data", d22}, {"indices", i64({2, 1}, {0, 1})}},
                             {{"batch_dims", I(1)}, {"opset", I(11)}}),
               ErrorCategory::InvalidArgument);
}

TEST_F(CpuOnnxTest, ScatterNDDocExamplesAndReductions) {
  // Example 1.
  expect_values(test::call_of("onnx.ScatterND", {{"data", f32({8}, {1, 2, 3, 4, 5, 6, 7, 8})},
                                                 {"indices", i64({4, 1}, {4, 3, 1, 7})},
                                                 {"updates", f32({4}, {9, 10, 11, 12})}}),
                {1, 11, 3, 10, 9, 6, 7, 12});
  // Slices, duplicates reduced into the existing value, negative index.
  const Tensor data = i64({2, 2}, {1, 2, 3, 4});
  const Tensor idx = i64({2, 1}, {1, -1});
  const Tensor upd = i64({2, 2}, {10, 20, 5, 1});
  const auto with = [&](const char* r) {
    return test::call_of("onnx.ScatterND", {{"data", data}, {"indices", idx}, {"updates", upd}},
                         {{"reduction", Str(r)}});
  };
  expect_values(with("add"), {1, 2, 18, 25});
  expect_values(with("mul"), {1, 2, 150, 80});
  expect_values(with("max"), {1, 2, 10, 20});
  expect_values(with("min"), {1, 2, 3, 1});
  expect_error(test::call_of("onnx.ScatterND",
                             {{"data", data}, {"indices", i64({1, 1}, {2})}, {"updates", i64({1, 2}, {0, 0})}}),
               ErrorCategory::IndexOutOfBounds);
  expect_error(test::call_of("onnx.ScatterND",
                             {{"data", data}, {"indices", i64({1, 1}, {0})}, {"updates", i64({1, 3}, {0, 0, 0})}}),
               ErrorCategory::ShapeMismatch);
}

}  // namespace
}  // namespace sp
