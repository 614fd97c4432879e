// reference_onnx_nd_test.cc — the reference's onnx.GatherND and
// onnx.ScatterND, clause by clause (reference/SEMANTICS.md, ONNX-GN*,
// ONNX-SN*). Each rule is tested from both sides: a call just inside it
// passes, one just outside fails with the documented category.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::expect_errors;
using test::expect_exact;
using test::f32;
using test::f64;
using test::i32;
using test::i64;
using test::only_output;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

OpCall gnd(Tensor data, Tensor indices, int64_t batch_dims = 0, int64_t opset = 13) {
  return call_of("onnx.GatherND", {{"data", data}, {"indices", indices}},
                 {{"batch_dims", Arg::of_int(batch_dims)}, {"opset", Arg::of_int(opset)}});
}
OpCall snd(Tensor data, Tensor indices, Tensor updates, const std::string& reduction = "none", int64_t opset = 18) {
  return call_of("onnx.ScatterND", {{"data", data}, {"indices", indices}, {"updates", updates}},
                 {{"reduction", Arg::of_string(reduction)}, {"opset", Arg::of_int(opset)}});
}
Tensor d3() { return i64({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}); }
bool allows(const Expectation& e, int64_t linear, DType t, double v) {
  return only_output(e).allows(
      linear, bits_from_value(t, is_floating(t) ? Value::of_float(v) : Value::of_int(static_cast<int64_t>(v))));
}

// ---- GatherND -------------------------------------------------------------

TEST(ReferenceOnnxGatherND, DocumentExamples) {
  const Tensor d2 = i64({2, 2}, {0, 1, 2, 3});
  expect_exact(evaluate(gnd(d2, i64({2, 2}, {0, 0, 1, 1}))), {0, 3});
  expect_exact(evaluate(gnd(d2, i64({2, 1}, {1, 0}))), {2, 3, 0, 1});
  expect_exact(evaluate(gnd(d3(), i64({2, 2}, {0, 1, 1, 0}))), {2, 3, 4, 5});
  const Expectation e4 = evaluate(gnd(d3(), i64({2, 1, 2}, {0, 1, 1, 0})));
  expect_exact(e4, {2, 3, 4, 5});
  EXPECT_EQ(only_output(e4).exact.shape(), (Shape{2, 1, 2}));
  const Expectation e5 = evaluate(gnd(d3(), i64({2, 1}, {1, 0}), 1));  // Example 5, batch_dims = 1
  expect_exact(e5, {2, 3, 4, 5});
  EXPECT_EQ(only_output(e5).exact.shape(), (Shape{2, 2}));
}

// ONNX-GN1: versions 11, 12, 13; below 11 there is no schema.
TEST(ReferenceOnnxGatherND, OpsetBoundaries) {
  const Tensor d2 = i64({2, 2}, {0, 1, 2, 3});
  expect_errors(evaluate(gnd(d2, i64({1, 2}, {0, 1}), 0, 10)), {EC::InvalidArgument});
  for (int64_t opset : {11, 12, 13, 21}) expect_exact(evaluate(gnd(d2, i64({1, 2}, {0, 1}), 0, opset)), {1});
}

// ONNX-GN2: bfloat16 joins T at version 13.
TEST(ReferenceOnnxGatherND, DataDtypePerVersion) {
  const Tensor bf = tensor_of(DType::BFloat16, {2}, {1, 2});
  expect_errors(evaluate(gnd(bf, i64({1, 1}, {1}), 0, 12)), {EC::UnsupportedDtype});
  expect_exact(evaluate(gnd(bf, i64({1, 1}, {1}), 0, 13)), {2});
  for (DType t : kAllDTypes) {
    if (t == DType::BFloat16) continue;
    EXPECT_FALSE(evaluate(gnd(tensor_of(t, {2}, {0, 1}), i64({1, 1}, {1}), 0, 11)).expects_error()) << dtype_name(t);
  }
}

// ONNX-GN3: r >= 1 and q >= 1.
TEST(ReferenceOnnxGatherND, RanksAtLeastOne) {
  expect_errors(evaluate(gnd(i64({}, {5}), i64({1, 1}, {0}))), {EC::InvalidArgument});
  expect_errors(evaluate(gnd(i64({2}, {5, 6}), i64({}, {0}))), {EC::InvalidArgument});
  expect_exact(evaluate(gnd(i64({2}, {5, 6}), i64({1}, {1}))), {6});  // q = 1: one tuple, rank-0 output
  EXPECT_EQ(only_output(evaluate(gnd(i64({2}, {5, 6}), i64({1}, {1})))).exact.rank(), 0);
}

// ONNX-GN4: indices is tensor(int64) only.
TEST(ReferenceOnnxGatherND, IndicesInt64Only) {
  expect_errors(evaluate(gnd(i64({2}, {5, 6}), i32({1, 1}, {0}))), {EC::IndexDtype});
  expect_exact(evaluate(gnd(i64({2}, {5, 6}), i64({1, 1}, {0}))), {5});
}

// ONNX-GN5 / GN6 / GN7: batch_dims from version 12, b < min(q, r), batch shapes equal.
TEST(ReferenceOnnxGatherND, BatchDims) {
  expect_errors(evaluate(gnd(d3(), i64({2, 1}, {1, 0}), 1, 11)), {EC::InvalidArgument});
  expect_exact(evaluate(gnd(d3(), i64({2, 1}, {1, 0}), 1, 12)), {2, 3, 4, 5});
  expect_errors(evaluate(gnd(d3(), i64({2, 1}, {1, 0}), 2)), {EC::InvalidArgument});   // b = q
  expect_errors(evaluate(gnd(d3(), i64({2, 1}, {1, 0}), -1)), {EC::InvalidArgument});  // b counts dims
  expect_errors(evaluate(gnd(d3(), i64({3, 1}, {1, 0, 1}), 1)), {EC::ShapeMismatch});
  // b = 2 on r = 3, q = 3: k = 1 = r - b, scalar gathers.
  const Expectation e = evaluate(gnd(d3(), i64({2, 2, 1}, {1, 0, 0, -1}), 2));
  expect_exact(e, {1, 2, 4, 7});
  EXPECT_EQ(only_output(e).exact.shape(), (Shape{2, 2}));
}

// ONNX-GN8: k in [1, r - b].
TEST(ReferenceOnnxGatherND, TupleLength) {
  expect_errors(evaluate(gnd(d3(), i64({1, 4}, {0, 0, 0, 0}))), {EC::ShapeMismatch});
  expect_exact(evaluate(gnd(d3(), i64({1, 3}, {1, 1, 1}))), {7});
  expect_errors(evaluate(gnd(d3(), i64({2, 3}, {1, 0, 0, 0, 0, 0}), 1)), {EC::ShapeMismatch});   // k = 3 > r-b = 2
  expect_errors(evaluate(gnd(d3(), tensor_of(DType::Int64, {2, 0}, {}))), {EC::ShapeMismatch});  // k = 0
}

// ONNX-GN9: values in [-s, s-1], negatives wrap.
TEST(ReferenceOnnxGatherND, IndexBoundsAndNegatives) {
  const Tensor d = i64({3, 2}, {0, 1, 2, 3, 4, 5});
  expect_exact(evaluate(gnd(d, i64({2, 2}, {-3, -2, 2, 1}))), {0, 5});
  expect_errors(evaluate(gnd(d, i64({1, 2}, {-4, 0}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(gnd(d, i64({1, 2}, {0, 2}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(gnd(d, i64({1, 2}, {0, -3}))), {EC::IndexOutOfBounds});
  // The bounds are those of the dims after the batch dims.
  expect_errors(evaluate(gnd(d, i64({3, 1}, {0, 2, 1}), 1)), {EC::IndexOutOfBounds});
  expect_exact(evaluate(gnd(d, i64({3, 1}, {0, -1, 1}), 1)), {0, 3, 5});
}

TEST(ReferenceOnnxGatherND, ExactBitsAndEmptyEdges) {
  const Expectation e = evaluate(gnd(f32({3}, {-0.0, kNaN, 1}), i64({2, 1}, {0, 1})));
  EXPECT_TRUE(std::signbit(values_of(only_output(e).exact)[0]));
  EXPECT_TRUE(std::isnan(values_of(only_output(e).exact)[1]));
  EXPECT_TRUE(only_output(e).loose.empty());
  // No tuples: output [0, 2]; an empty slice: output [2, 0]; neither reads a bound.
  EXPECT_EQ(only_output(evaluate(gnd(f32({2, 2}, {0, 1, 2, 3}), tensor_of(DType::Int64, {0, 1}, {})))).exact.shape(),
            (Shape{0, 2}));
  EXPECT_EQ(only_output(evaluate(gnd(tensor_of(DType::Float32, {2, 0}, {}), i64({2, 1}, {1, 0})))).exact.shape(),
            (Shape{2, 0}));
  // An empty slice still bound-checks the tuple's values.
  expect_errors(evaluate(gnd(tensor_of(DType::Float32, {2, 0}, {}), i64({1, 1}, {2}))), {EC::IndexOutOfBounds});
  // A zero-size indexed dim: every index value is out of bounds ([-0, -1] is empty).
  expect_errors(evaluate(gnd(tensor_of(DType::Float32, {0, 2}, {}), i64({1, 1}, {0}))), {EC::IndexOutOfBounds});
}

TEST(ReferenceOnnxGatherND, CollectsEveryViolation) {
  expect_errors(evaluate(gnd(tensor_of(DType::BFloat16, {}, {1}), i32({1}, {0}), 0, 11)),
                (std::vector<EC>{EC::UnsupportedDtype, EC::InvalidArgument, EC::IndexDtype}));
}

// ---- ScatterND ------------------------------------------------------------

TEST(ReferenceOnnxScatterND, DocumentExamples) {
  expect_exact(evaluate(snd(f32({8}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({4, 1}, {4, 3, 1, 7}), f32({4}, {9, 10, 11, 12}))),
               {1, 11, 3, 10, 9, 6, 7, 12});
  std::vector<double> data, upd, want;
  for (int i = 0; i < 64; ++i) data.push_back(i);
  for (int i = 0; i < 32; ++i) upd.push_back(100 + i);
  want = data;
  for (int i = 0; i < 16; ++i) want[i] = 100 + i, want[32 + i] = 116 + i;
  for (int64_t opset : {11, 13, 16, 18})
    expect_exact(evaluate(snd(i64({4, 4, 4}, data), i64({2, 1}, {0, 2}), i64({2, 4, 4}, upd), "none", opset)), want);
}

// ONNX-SN1 / SN2: versions 11, 13, 16, 18; bfloat16 from 13.
TEST(ReferenceOnnxScatterND, OpsetAndDtype) {
  expect_errors(evaluate(snd(f32({2}, {1, 2}), i64({1, 1}, {0}), f32({1}, {5}), "none", 10)), {EC::InvalidArgument});
  expect_exact(evaluate(snd(f32({2}, {1, 2}), i64({1, 1}, {0}), f32({1}, {5}), "none", 11)), {5, 2});
  const Tensor bf = tensor_of(DType::BFloat16, {2}, {1, 2}), bu = tensor_of(DType::BFloat16, {1}, {5});
  expect_errors(evaluate(snd(bf, i64({1, 1}, {0}), bu, "none", 12)), {EC::UnsupportedDtype});
  expect_exact(evaluate(snd(bf, i64({1, 1}, {0}), bu, "none", 13)), {5, 2});
}

// ONNX-SN3 / SN4 / SN5.
TEST(ReferenceOnnxScatterND, RanksAndDtypes) {
  expect_errors(evaluate(snd(f32({}, {1}), i64({1, 0}, {}), f32({1}, {5}))), {EC::InvalidArgument});
  expect_errors(evaluate(snd(f32({2}, {1, 2}), i64({}, {0}), f32({}, {5}))), {EC::InvalidArgument});
  expect_errors(evaluate(snd(f32({2}, {1, 2}), i32({1, 1}, {0}), f32({1}, {5}))), {EC::IndexDtype});
  expect_errors(evaluate(snd(f32({2}, {1, 2}), i64({1, 1}, {0}), f64({1}, {5}))), {EC::DtypeMismatch});
  // q = 1: one tuple; updates has rank q + r - k - 1 = 0.
  expect_exact(evaluate(snd(f32({2}, {1, 2}), i64({1}, {1}), f32({}, {5}))), {1, 5});
}

// ONNX-SN6 / SN7: k <= r; updates.shape == indices.shape[:-1] ++ data.shape[k:].
TEST(ReferenceOnnxScatterND, Shapes) {
  const Tensor d = f32({2, 2}, {1, 2, 3, 4});
  expect_errors(evaluate(snd(d, i64({1, 3}, {0, 0, 0}), f32({1}, {5}))), {EC::ShapeMismatch});
  expect_exact(evaluate(snd(d, i64({1, 2}, {1, 1}), f32({1}, {5}))), {1, 2, 3, 5});
  expect_errors(evaluate(snd(d, i64({1, 1}, {0}), f32({1, 3}, {5, 6, 7}))), {EC::ShapeMismatch});
  expect_errors(evaluate(snd(d, i64({1, 1}, {0}), f32({2}, {5, 6}))), {EC::RankMismatch});
  expect_exact(evaluate(snd(d, i64({1, 1}, {0}), f32({1, 2}, {5, 6}))), {5, 6, 3, 4});
  // k = 0: each 0-tuple addresses all of data (the formula's output[()]).
  expect_exact(evaluate(snd(d, tensor_of(DType::Int64, {1, 0}, {}), f32({1, 2, 2}, {5, 6, 7, 8}))), {5, 6, 7, 8});
  EXPECT_TRUE(
      evaluate(snd(d, tensor_of(DType::Int64, {2, 0}, {}), f32({2, 2, 2}, {5, 6, 7, 8, 5, 6, 7, 8}))).unspecified);
}

// ONNX-SN8: reduction per version.
TEST(ReferenceOnnxScatterND, ReductionPerVersion) {
  const Tensor d = f32({2}, {1, 2}), i = i64({1, 1}, {0}), u = f32({1}, {3});
  for (const char* r : {"add", "mul", "max", "min"}) {
    expect_errors(evaluate(snd(d, i, u, r, 11)), {EC::InvalidReduce});
    expect_errors(evaluate(snd(d, i, u, r, 15)), {EC::InvalidReduce});
  }
  expect_exact(evaluate(snd(d, i, u, "add", 16)), {4, 2});
  expect_exact(evaluate(snd(d, i, u, "mul", 17)), {3, 2});
  expect_errors(evaluate(snd(d, i, u, "max", 17)), {EC::InvalidReduce});
  expect_exact(evaluate(snd(d, i, u, "max", 18)), {3, 2});
  expect_exact(evaluate(snd(d, i, u, "min", 18)), {1, 2});
  expect_errors(evaluate(snd(d, i, u, "sum", 18)), {EC::InvalidReduce});
  expect_errors(evaluate(snd(d, i, u, "None", 18)), {EC::InvalidReduce});
}

// ONNX-SN9: values in [-s, s-1] per indexed dim; negatives wrap.
TEST(ReferenceOnnxScatterND, IndexBoundsAndNegatives) {
  const Tensor d = f32({3, 2}, {0, 1, 2, 3, 4, 5});
  expect_exact(evaluate(snd(d, i64({2, 2}, {-3, -2, 2, -1}), f32({2}, {8, 9}))), {8, 1, 2, 3, 4, 9});
  expect_errors(evaluate(snd(d, i64({1, 2}, {-4, 0}), f32({1}, {8}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(snd(d, i64({1, 2}, {3, 0}), f32({1}, {8}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(snd(d, i64({1, 2}, {0, 2}), f32({1}, {8}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(snd(d, i64({1, 2}, {0, -3}), f32({1}, {8}))), {EC::IndexOutOfBounds});
}

// ONNX-SN11: reduction "none" with duplicate tuples is unspecified, citing the text.
TEST(ReferenceOnnxScatterND, DuplicatesWithoutReductionAreUnspecified) {
  const Tensor d = f32({3}, {0, 0, 0});
  for (int64_t opset : {11, 13, 16, 18}) {
    const Expectation e = evaluate(snd(d, i64({2, 1}, {1, 1}), f32({2}, {1, 2}), "none", opset));
    ASSERT_TRUE(e.unspecified) << opset;
    EXPECT_NE(e.unspecified_reason.find("ONNX-SN11"), std::string::npos);
    EXPECT_NE(e.unspecified_reason.find("should not have duplicate entries"), std::string::npos);
    EXPECT_EQ(e.unspecified_reason.find("any writer"), std::string::npos);
  }
  EXPECT_NE(
      evaluate(snd(d, i64({2, 1}, {1, 1}), f32({2}, {1, 2}), "none", 11)).unspecified_reason.find("is not supported"),
      std::string::npos);
  EXPECT_NE(evaluate(snd(d, i64({2, 1}, {1, 1}), f32({2}, {1, 2}))).unspecified_reason.find("not specified"),
            std::string::npos);
  EXPECT_TRUE(evaluate(snd(d, i64({2, 1}, {1, -2}), f32({2}, {1, 2}))).unspecified);  // -2 wraps to 1
  expect_exact(evaluate(snd(d, i64({2, 1}, {1, -1}), f32({2}, {1, 2}))), {0, 1, 2});
  // Slices: equal tuples are duplicates even when the slices are whole rows.
  EXPECT_TRUE(evaluate(snd(f32({2, 2}, {0, 0, 0, 0}), i64({2, 1}, {0, 0}), f32({2, 2}, {1, 2, 3, 4}))).unspecified);
  // Duplicates with a reduction are defined.
  EXPECT_FALSE(evaluate(snd(d, i64({2, 1}, {1, 1}), f32({2}, {1, 2}), "add")).unspecified);
}

// ONNX-SN12: reductions start from data's value; order unspecified.
TEST(ReferenceOnnxScatterND, ReductionsIncludeData) {
  expect_exact(evaluate(snd(i64({3}, {10, 20, 30}), i64({3, 1}, {1, 1, 2}), i64({3}, {1, 2, 3}), "add")), {10, 23, 33});
  expect_exact(evaluate(snd(i64({2}, {2, 3}), i64({3, 1}, {0, 0, 1}), i64({3}, {4, 5, -1}), "mul")), {40, -3});
  expect_exact(evaluate(snd(i32({3}, {5, 5, 5}), i64({3, 1}, {0, 0, 2}), i32({3}, {1, 7, 3}), "max")), {7, 5, 5});
  expect_exact(evaluate(snd(f32({3}, {5, 5, 5}), i64({3, 1}, {0, 0, 2}), f32({3}, {1, 7, -3}), "min")), {1, 5, -3});
  // Integers wrap; bool add is or, mul is and.
  expect_exact(evaluate(snd(tensor_of(DType::Int8, {1}, {120}), i64({2, 1}, {0, 0}),
                            tensor_of(DType::Int8, {2}, {5, 10}), "add")),
               {-121});
  expect_exact(evaluate(snd(tensor_of(DType::Bool, {2}, {0, 1}), i64({2, 1}, {0, 0}),
                            tensor_of(DType::Bool, {2}, {1, 0}), "add")),
               {1, 1});
  expect_exact(evaluate(snd(tensor_of(DType::Bool, {2}, {1, 1}), i64({2, 1}, {1, 1}),
                            tensor_of(DType::Bool, {2}, {1, 0}), "mul")),
               {1, 0});
  // max propagates NaN.
  const Expectation nan = evaluate(snd(f32({1}, {1}), i64({1, 1}, {0}), f32({1}, {kNaN}), "max"));
  EXPECT_TRUE(std::isnan(values_of(only_output(nan).exact)[0]));
}

TEST(ReferenceOnnxScatterND, FloatAddOfSeveralOpsIsAnInterval) {
  // One op (data + one update): exact.
  expect_exact(evaluate(snd(f32({1}, {1}), i64({1, 1}, {0}), f32({1}, {0.1}), "add")),
               {static_cast<double>(1.0f + 0.1f)});
  // 1e8 + 1 + 1 (float32): left to right 1e8; 1e8 + (1 + 1) = 100000002. Both allowed.
  const Expectation e = evaluate(snd(f32({1}, {1e8}), i64({2, 1}, {0, 0}), f32({2}, {1, 1}), "add"));
  EXPECT_TRUE(allows(e, 0, DType::Float32, 1e8));
  EXPECT_TRUE(allows(e, 0, DType::Float32, 100000002));
  EXPECT_FALSE(allows(e, 0, DType::Float32, 1e9));
  const Expectation m = evaluate(snd(f64({1}, {3}), i64({2, 1}, {0, 0}), f64({2}, {0.1, 10}), "mul"));
  EXPECT_TRUE(allows(m, 0, DType::Float64, 3 * 0.1 * 10));
  EXPECT_FALSE(allows(m, 0, DType::Float64, 4));
}

TEST(ReferenceOnnxScatterND, EmptyEdgesAndUntouchedBits) {
  // No tuples: output = data, bits kept.
  expect_exact(evaluate(snd(f32({2}, {-0.0, 2}), tensor_of(DType::Int64, {0, 1}, {}),
                            tensor_of(DType::Float32, {0}, {}), "mul")),
               {-0.0, 2});
  EXPECT_TRUE(std::signbit(
      values_of(only_output(evaluate(snd(f32({2}, {-0.0, 2}), i64({1, 1}, {1}), f32({1}, {7})))).exact)[0]));
  // Empty slices: nothing written. The duplicate rule reads indices alone
  // ("if idx1 != idx2, then indices[idx1] != indices[idx2]"), so equal
  // tuples stay unspecified even where the slice is empty.
  expect_exact(
      evaluate(snd(tensor_of(DType::Float32, {2, 0}, {}), i64({2, 1}, {0, 1}), tensor_of(DType::Float32, {2, 0}, {}))),
      {});
  EXPECT_TRUE(
      evaluate(snd(tensor_of(DType::Float32, {2, 0}, {}), i64({2, 1}, {0, 0}), tensor_of(DType::Float32, {2, 0}, {})))
          .unspecified);
  // A zero-size indexed dim: any index is out of bounds.
  expect_errors(evaluate(snd(tensor_of(DType::Float32, {0}, {}), i64({1, 1}, {0}), f32({1}, {1}))),
                {EC::IndexOutOfBounds});
}

}  // namespace
}  // namespace sp
