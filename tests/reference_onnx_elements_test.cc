// reference_onnx_elements_test.cc — the reference's onnx.GatherElements,
// onnx.ScatterElements and onnx.Scatter, clause by clause
// (reference/SEMANTICS.md, ONNX-O*, ONNX-GE*, ONNX-SE*), each rule from both
// sides (a call that keeps it, one that breaks it).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::allows;
using test::call_of;
using test::expect_errors;
using test::expect_exact;
using test::f32;
using test::i32;
using test::i64;
using test::only_output;
using test::tensor_of;
using EC = ErrorCategory;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

OpCall gather(Tensor data, Tensor indices, int64_t axis = 0, int64_t opset = 13) {
  return call_of("onnx.GatherElements", {{"data", data}, {"indices", indices}},
                 {{"axis", Arg::of_int(axis)}, {"opset", Arg::of_int(opset)}});
}
OpCall scatter(Tensor data, Tensor indices, Tensor updates, const std::string& reduction = "none", int64_t axis = 0,
               int64_t opset = 18) {
  return call_of(
      "onnx.ScatterElements", {{"data", data}, {"indices", indices}, {"updates", updates}},
      {{"axis", Arg::of_int(axis)}, {"reduction", Arg::of_string(reduction)}, {"opset", Arg::of_int(opset)}});
}
OpCall old_scatter(Tensor data, Tensor indices, Tensor updates, int64_t opset, int64_t axis = 0) {
  return call_of("onnx.Scatter", {{"data", data}, {"indices", indices}, {"updates", updates}},
                 {{"axis", Arg::of_int(axis)}, {"opset", Arg::of_int(opset)}});
}

// ---- GatherElements -------------------------------------------------------

TEST(ReferenceOnnxGatherElements, DocumentExamples) {
  expect_exact(evaluate(gather(i32({2, 2}, {1, 2, 3, 4}), i64({2, 2}, {0, 0, 1, 0}), 1)), {1, 1, 4, 3});
  expect_exact(evaluate(gather(i32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), i64({2, 3}, {1, 2, 0, 2, 0, 0}), 0)),
               {4, 8, 3, 7, 2, 3});
  expect_exact(evaluate(gather(i32({2, 2}, {1, 2, 3, 4}), i64({2, 2}, {0, 0, 1, 0}), 1, 11)), {1, 1, 4, 3});
}

TEST(ReferenceOnnxGatherElements, NegativeIndicesAndAxisWrap) {  // ONNX-O4, ONNX-O5
  expect_exact(evaluate(gather(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {-1, -3, -2, 0}), 1)), {3, 1, 5, 4});
  expect_exact(evaluate(gather(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 1}, {2, 0}), -1)), {3, 4});
  expect_errors(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({1, 2}, {0, 1}), 2)), {EC::DimOutOfRange});
  expect_errors(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({1, 2}, {0, 1}), -3)), {EC::DimOutOfRange});
  expect_exact(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({1, 2}, {0, 1}), -2)), {1, 4});
}

TEST(ReferenceOnnxGatherElements, IndexBounds) {  // ONNX-GE4
  expect_exact(evaluate(gather(f32({3}, {5, 6, 7}), i64({2}, {2, -3}))), {7, 5});
  expect_errors(evaluate(gather(f32({3}, {5, 6, 7}), i64({1}, {3}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(gather(f32({3}, {5, 6, 7}), i64({1}, {-4}))), {EC::IndexOutOfBounds});
}

TEST(ReferenceOnnxGatherElements, IndexDtype) {  // ONNX-O3
  expect_exact(evaluate(gather(f32({3}, {5, 6, 7}), i32({2}, {2, 0}))), {7, 5});
  expect_errors(evaluate(gather(f32({3}, {5, 6, 7}), tensor_of(DType::Int16, {1}, {0}))), {EC::IndexDtype});
  expect_errors(evaluate(gather(f32({3}, {5, 6, 7}), f32({1}, {0}))), {EC::IndexDtype});
}

TEST(ReferenceOnnxGatherElements, RankAndShapes) {  // ONNX-GE1, ONNX-GE2, ONNX-GE3
  expect_errors(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({2}, {0, 1}))), {EC::RankMismatch});
  expect_errors(evaluate(gather(f32({}, {1}), i64({}, {0}))), {EC::RankMismatch});
  // Longer than data along the axis, shorter elsewhere: output has indices' shape.
  expect_exact(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({1, 4}, {1, 0, 1, 0}), 1)), {2, 1, 2, 1});
  EXPECT_EQ(only_output(evaluate(gather(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({1, 1}, {1}), 1))).exact.shape(),
            (Shape{1, 1}));
  // ONNX-GE3: larger than data off the axis: unspecified.
  EXPECT_TRUE(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({3, 1}, {0, 1, 0}), 1)).unspecified);
  EXPECT_EQ(only_output(evaluate(gather(f32({2, 2}, {1, 2, 3, 4}), i64({2, 0}, {}), 1))).exact.shape(), (Shape{2, 0}));
}

TEST(ReferenceOnnxGatherElements, OpsetsAndDtypes) {  // ONNX-O1, ONNX-O2
  expect_errors(evaluate(gather(f32({2}, {1, 2}), i64({1}, {0}), 0, 10)), {EC::InvalidArgument});
  expect_exact(evaluate(gather(f32({2}, {1, 2}), i64({1}, {1}), 0, 11)), {2});
  const Tensor bf = tensor_of(DType::BFloat16, {2}, {1, 2});
  expect_errors(evaluate(gather(bf, i64({1}, {0}), 0, 12)), {EC::UnsupportedDtype});
  expect_exact(evaluate(gather(bf, i64({2}, {1, 0}), 0, 13)), {2, 1});
  for (DType t : kAllDTypes) {
    if (t == DType::BFloat16) continue;
    const Expectation e = evaluate(gather(tensor_of(t, {2}, {0, 1}), i64({1}, {1}), 0, 11));
    EXPECT_FALSE(e.expects_error()) << dtype_name(t);
  }
}

TEST(ReferenceOnnxGatherElements, CopiesBits) {
  const Expectation e = evaluate(gather(f32({3}, {-0.0, kNaN, 1.5}), i64({2}, {1, 0})));
  EXPECT_TRUE(std::isnan(test::values_of(only_output(e).exact)[0]));
  EXPECT_TRUE(allows(e, 1, DType::Float32, -0.0));
  EXPECT_FALSE(allows(e, 1, DType::Float32, 0.0));
}

// ---- ScatterElements / Scatter --------------------------------------------

TEST(ReferenceOnnxScatterElements, DocumentExamples) {
  const Tensor z = f32({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
  const Tensor idx = i64({2, 3}, {1, 0, 2, 0, 2, 1});
  const Tensor upd = f32({2, 3}, {1.0, 1.1, 1.2, 2.0, 2.1, 2.2});
  const std::vector<double> want = {2.0, 1.1f, 0, 1.0, 0, 2.2f, 0, 2.1f, 1.2f};
  for (int64_t opset : {11, 13, 16, 18}) expect_exact(evaluate(scatter(z, idx, upd, "none", 0, opset)), want);
  expect_exact(evaluate(old_scatter(z, idx, upd, 9)), want);
  expect_exact(evaluate(old_scatter(z, idx, upd, 11)), want);
  expect_exact(evaluate(scatter(f32({1, 5}, {1, 2, 3, 4, 5}), i64({1, 2}, {1, 3}), f32({1, 2}, {1.1, 2.1}), "none", 1)),
               {1, 1.1f, 3, 2.1f, 5});
}

TEST(ReferenceOnnxScatterElements, Negatives) {  // ONNX-O5, ONNX-SE6, ONNX-SE10
  expect_exact(evaluate(scatter(i32({3}, {1, 2, 3}), i64({2}, {-1, -3}), i32({2}, {7, 9}))), {9, 2, 7});
  expect_errors(evaluate(scatter(i32({3}, {1, 2, 3}), i64({1}, {-4}), i32({1}, {7}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(scatter(i32({3}, {1, 2, 3}), i64({1}, {3}), i32({1}, {7}))), {EC::IndexOutOfBounds});
  expect_exact(evaluate(old_scatter(i32({3}, {1, 2, 3}), i64({1}, {-1}), i32({1}, {9}), 11)), {1, 2, 9});
  EXPECT_TRUE(evaluate(old_scatter(i32({3}, {1, 2, 3}), i64({1}, {-1}), i32({1}, {9}), 9)).unspecified);
  EXPECT_TRUE(evaluate(old_scatter(i32({3}, {1, 2, 3}), i64({1}, {3}), i32({1}, {9}), 9)).unspecified);
  expect_exact(evaluate(old_scatter(i32({3}, {1, 2, 3}), i64({1}, {2}), i32({1}, {9}), 9)), {1, 2, 9});
}

TEST(ReferenceOnnxScatterElements, OperandRules) {  // ONNX-O3, ONNX-SE2, ONNX-SE3, ONNX-SE4, ONNX-O4
  const Tensor d = i32({3}, {1, 2, 3});
  expect_exact(evaluate(scatter(d, i32({1}, {2}), i32({1}, {7}))), {1, 2, 7});
  expect_errors(evaluate(scatter(d, f32({1}, {0}), i32({1}, {7}))), {EC::IndexDtype});
  expect_errors(evaluate(scatter(d, i64({1}, {0}), i64({1}, {7}))), {EC::DtypeMismatch});
  expect_errors(evaluate(scatter(d, i64({2}, {0, 1}), i32({1}, {7}))), {EC::ShapeMismatch});
  expect_errors(evaluate(scatter(i32({2, 2}, {1, 2, 3, 4}), i64({1}, {0}), i32({1}, {7}))), {EC::RankMismatch});
  expect_errors(evaluate(scatter(d, i64({1}, {0}), i32({1}, {7}), "none", 1)), {EC::DimOutOfRange});
  expect_exact(evaluate(scatter(d, i64({1}, {0}), i32({1}, {7}), "none", -1)), {7, 2, 3});
  // ONNX-SE5: larger than data off the axis: unspecified.
  EXPECT_TRUE(evaluate(scatter(f32({2, 2}, {1, 2, 3, 4}), i64({3, 1}, {0, 1, 0}), f32({3, 1}, {5, 6, 7}), "none", 1))
                  .unspecified);
}

TEST(ReferenceOnnxScatterElements, DuplicatesWithoutReductionAreUnspecified) {  // ONNX-SE8
  for (int64_t opset : {11, 13, 16, 18}) {
    const Expectation e = evaluate(scatter(i32({3}, {1, 2, 3}), i64({2}, {1, 1}), i32({2}, {7, 9}), "none", 0, opset));
    EXPECT_TRUE(e.unspecified) << opset;
    EXPECT_NE(e.unspecified_reason.find("ONNX-SE8"), std::string::npos);
  }
  EXPECT_NE(evaluate(scatter(i32({3}, {1, 2, 3}), i64({2}, {1, 1}), i32({2}, {7, 9})))
                .unspecified_reason.find("should not have duplicate entries"),
            std::string::npos);
  EXPECT_TRUE(evaluate(scatter(i32({3}, {1, 2, 3}), i64({2}, {-2, 1}), i32({2}, {7, 9}))).unspecified);
  EXPECT_TRUE(evaluate(old_scatter(i32({3}, {1, 2, 3}), i64({2}, {0, 0}), i32({2}, {7, 9}), 11)).unspecified);
}

TEST(ReferenceOnnxScatterElements, ReductionOpsetBoundaries) {  // ONNX-O6
  const Tensor d = i32({2}, {1, 2});
  const Tensor i = i64({2}, {0, 0});
  const Tensor u = i32({2}, {1, 2});
  expect_errors(evaluate(scatter(d, i, u, "add", 0, 13)), {EC::InvalidReduce});
  expect_exact(evaluate(scatter(d, i, u, "add", 0, 16)), {4, 2});
  expect_exact(evaluate(scatter(d, i, u, "mul", 0, 16)), {2, 2});
  expect_errors(evaluate(scatter(d, i, u, "max", 0, 16)), {EC::InvalidReduce});
  expect_errors(evaluate(scatter(d, i, u, "min", 0, 17)), {EC::InvalidReduce});
  expect_exact(evaluate(scatter(d, i, u, "max", 0, 18)), {2, 2});
  expect_exact(evaluate(scatter(d, i, u, "min", 0, 18)), {1, 2});
  expect_errors(evaluate(scatter(d, i, u, "sum", 0, 18)), {EC::InvalidReduce});
  expect_errors(evaluate(scatter(d, i, u, "add", 0, 10)), {EC::InvalidArgument});
}

TEST(ReferenceOnnxScatterElements, ReductionsIncludeData) {  // ONNX-SE9
  expect_exact(evaluate(scatter(i32({3}, {7, 1, 5}), i64({3}, {1, 1, 0}), i32({3}, {3, 5, 2}), "max")), {7, 5, 5});
  expect_exact(evaluate(scatter(f32({3}, {1, 5, 0}), i64({2}, {2, 2}), f32({2}, {-3, 4}), "min")), {1, 5, -3});
  expect_exact(evaluate(scatter(tensor_of(DType::Int8, {2}, {120, 0}), i64({2}, {0, 0}),
                                tensor_of(DType::Int8, {2}, {10, 5}), "add")),
               {-121, 0});
  expect_exact(
      evaluate(scatter(tensor_of(DType::Bool, {2}, {0, 1}), i64({1}, {0}), tensor_of(DType::Bool, {1}, {1}), "add")),
      {1, 1});
  // Float add over >= 2 ops: an interval that holds the in-order sum.
  const Expectation e = evaluate(scatter(f32({3}, {10, 20, 30}), i64({3}, {1, 1, 2}), f32({3}, {1, 2, 3}), "add"));
  EXPECT_TRUE(allows(e, 1, DType::Float32, 23));
  EXPECT_FALSE(allows(e, 1, DType::Float32, 3));
  EXPECT_TRUE(allows(e, 2, DType::Float32, 33));
  EXPECT_TRUE(allows(e, 0, DType::Float32, 10));
}

TEST(ReferenceOnnxScatterElements, Dtypes) {  // ONNX-O2
  const Tensor bf = tensor_of(DType::BFloat16, {2}, {1, 2});
  expect_errors(evaluate(scatter(bf, i64({1}, {0}), tensor_of(DType::BFloat16, {1}, {5}), "none", 0, 12)),
                {EC::UnsupportedDtype});
  expect_exact(evaluate(scatter(bf, i64({1}, {0}), tensor_of(DType::BFloat16, {1}, {5}), "none", 0, 13)), {5, 2});
  expect_errors(evaluate(old_scatter(bf, i64({1}, {0}), tensor_of(DType::BFloat16, {1}, {5}), 11)),
                {EC::UnsupportedDtype});
  for (DType t : kAllDTypes) {
    const Expectation e = evaluate(scatter(tensor_of(t, {2}, {0, 1}), i64({1}, {1}), tensor_of(t, {1}, {0}), "none"));
    EXPECT_FALSE(e.expects_error()) << dtype_name(t);
  }
  expect_exact(evaluate(scatter(f32({2}, {1, -0.0}), i64({0}, {}), f32({0}, {}), "mul")), {1, -0.0});
}

}  // namespace
}  // namespace sp
