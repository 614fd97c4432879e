// reference_index_fill_test.cc — the reference's torch.index_fill_ /
// torch.index_fill, clause by clause (reference/SEMANTICS.md, T-IF*).
//
// Every rule is tested from both sides; the value conversion against the
// values LibTorch 1.13.1 stores; what the document leaves open (negative
// index values, an aliased in-place self) is unspecified and nothing else
// is.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::f32;
using test::i32;
using test::i64;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;
using test::expect_errors;
using test::expect_exact;
using test::only_output;

OpCall fill_call(Tensor self, int64_t dim, Tensor index, Scalar value, const std::string& op = "torch.index_fill") {
  return call_of(op, {{"self", self}, {"index", index}}, {{"dim", Arg::of_int(dim)}, {"value", Arg::of_scalar(value)}});
}

Tensor zeros34() { return f32({3, 4}, std::vector<double>(12, 0.0)); }

TEST(ReferenceIndexFill, DocumentExample) {
  const Tensor x = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (const char* op : {"torch.index_fill_", "torch.index_fill"})
    expect_exact(evaluate(fill_call(x, 1, i64({2}, {0, 2}), Scalar::of_int(-1), op)),
                 {-1, 2, -1, -1, 5, -1, -1, 8, -1});
}

TEST(ReferenceIndexFill, DimsZeroDAndDuplicates) {
  expect_exact(evaluate(fill_call(zeros34(), 0, i64({2}, {2, 2}), Scalar::of_int(5))),
               {0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5});
  expect_exact(evaluate(fill_call(zeros34(), -1, i64({}, {3}), Scalar::of_int(5))),
               {0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5});
  expect_exact(evaluate(fill_call(f32({}, {1}), 0, i64({2}, {0, 0}), Scalar::of_int(3))), {3});
  expect_errors(evaluate(fill_call(f32({}, {1}), 1, i64({1}, {0}), Scalar::of_int(3))), {EC::DimOutOfRange});
  expect_errors(evaluate(fill_call(f32({}, {1}), 0, i64({1}, {1}), Scalar::of_int(3))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(fill_call(zeros34(), 2, i64({1}, {0}), Scalar::of_int(3))), {EC::DimOutOfRange});
  // Size-0 dims elsewhere: nothing to fill.
  expect_exact(evaluate(fill_call(f32({0, 3}, {}), 1, i64({1}, {2}), Scalar::of_int(3))), {});
}

TEST(ReferenceIndexFill, IndexDtypeBeforeDimThenRank) {
  expect_errors(evaluate(fill_call(zeros34(), 0, i32({1}, {0}), Scalar::of_int(1))), {EC::IndexDtype});
  expect_errors(evaluate(fill_call(zeros34(), 0, i32({0}, {}), Scalar::of_int(1))), {EC::IndexDtype});
  expect_errors(evaluate(fill_call(zeros34(), 7, tensor_of(DType::Int16, {1}, {0}), Scalar::of_int(1))),
                {EC::IndexDtype, EC::DimOutOfRange});
  expect_errors(evaluate(fill_call(zeros34(), 0, i64({1, 1}, {0}), Scalar::of_int(1))), {EC::InvalidArgument});
  expect_errors(evaluate(fill_call(zeros34(), 0, i64({1, 0}, {}), Scalar::of_int(1))), {EC::InvalidArgument});
  // The rank beats the value; the value and the bounds may come in either
  // order (C-1: any violated rule); an empty index has no bounds to break.
  expect_errors(evaluate(fill_call(tensor_of(DType::Int8, {3}, {0, 0, 0}), 0, i64({1, 1}, {0}), Scalar::of_int(300))),
                {EC::InvalidArgument});
  expect_errors(evaluate(fill_call(tensor_of(DType::Int8, {3}, {0, 0, 0}), 0, i64({1}, {9}), Scalar::of_int(300))),
                {EC::ValueOutOfRange, EC::IndexOutOfBounds});
  expect_errors(evaluate(fill_call(tensor_of(DType::Int8, {3}, {0, 0, 0}), 0, i64({0}, {}), Scalar::of_int(300))),
                {EC::ValueOutOfRange});
  // A size-0 dim: every value is out of range, and LibTorch may report that first.
  expect_errors(evaluate(fill_call(tensor_of(DType::Int8, {0}, {}), 0, i64({1}, {0}), Scalar::of_int(40000))),
                {EC::ValueOutOfRange, EC::IndexOutOfBounds});
}

TEST(ReferenceIndexFill, ValueConvertsAsScatterValue) {
  expect_exact(evaluate(fill_call(i64({3}, {0, 0, 0}), 0, i64({1}, {1}), Scalar::of_float(2.7))), {0, 2, 0});
  expect_exact(evaluate(fill_call(i32({3}, {0, 0, 0}), 0, i64({1}, {1}), Scalar::of_float(-2.7))), {0, -2, 0});
  expect_exact(evaluate(fill_call(tensor_of(DType::UInt8, {2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_int(-1))),
               {0, 255});
  expect_errors(evaluate(fill_call(tensor_of(DType::UInt8, {2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_int(-256))),
                {EC::ValueOutOfRange});
  expect_errors(evaluate(fill_call(tensor_of(DType::Float16, {2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_float(1e6))),
                {EC::ValueOutOfRange});
  expect_errors(evaluate(fill_call(i32({2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_float(std::nan("")))),
                {EC::ValueOutOfRange});
  expect_exact(evaluate(fill_call(tensor_of(DType::Bool, {2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_float(0.5))),
               {0, 1});
  expect_exact(evaluate(fill_call(f32({2}, {0, 0}), 0, i64({1}, {0}), Scalar::of_bool(true))), {1, 0});
  // 0.1 rounds once to float16's nearest (0.0999755859375, LibTorch 1.13.1).
  expect_exact(evaluate(fill_call(tensor_of(DType::Float16, {1}, {0}), 0, i64({1}, {0}), Scalar::of_float(0.1))),
               {0.0999755859375});
  // A float >= 2^63 into int64 is undefined in c10 (T-V2).
  EXPECT_TRUE(evaluate(fill_call(i64({2}, {0, 0}), 0, i64({1}, {1}), Scalar::of_float(0x1p63))).unspecified);
}

TEST(ReferenceIndexFill, NegativeValuesUnspecifiedBeyondRangeErrors) {
  // In [-size, 0): the document is silent (T-IF6).
  for (double v : {-1.0, -3.0}) {
    const Expectation e = evaluate(fill_call(zeros34(), 0, i64({1}, {v}), Scalar::of_int(5)));
    EXPECT_TRUE(e.unspecified) << v << " " << e.summary();
  }
  EXPECT_TRUE(evaluate(fill_call(f32({}, {1}), 0, i64({1}, {-1}), Scalar::of_int(5))).unspecified);
  // Below -size or at size: an error, wrapped or not (T-IF5).
  expect_errors(evaluate(fill_call(zeros34(), 0, i64({1}, {-4}), Scalar::of_int(5))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(fill_call(zeros34(), 0, i64({2}, {-1, 3}), Scalar::of_int(5))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(fill_call(zeros34(), 1, i64({1}, {4}), Scalar::of_int(5))), {EC::IndexOutOfBounds});
  // A self with no elements: the error or the unchanged tensor; a size-0 dim
  // refuses every value (-1 included).
  const Expectation e = evaluate(fill_call(f32({0}, {}), 0, i64({1}, {-1}), Scalar::of_int(5)));
  EXPECT_FALSE(e.unspecified);
  EXPECT_TRUE(e.allows_error(EC::IndexOutOfBounds));
  EXPECT_TRUE(e.outputs.has_value());
}

TEST(ReferenceIndexFill, AliasedSelfInPlaceUnspecifiedOutOfPlaceExact) {
  Tensor expanded = Tensor::view(DType::Float32, {3}, {0}, 0, f32({1}, {0}).storage());
  EXPECT_TRUE(evaluate(fill_call(expanded, 0, i64({1}, {1}), Scalar::of_int(1), "torch.index_fill_")).unspecified);
  // An empty index writes nothing, aliased or not.
  expect_exact(evaluate(fill_call(expanded, 0, i64({0}, {}), Scalar::of_int(1), "torch.index_fill_")), {0, 0, 0});
  expect_exact(evaluate(fill_call(expanded, 0, i64({1}, {1}), Scalar::of_int(1))), {0, 1, 0});
  EXPECT_EQ(values_of(expanded), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace sp
