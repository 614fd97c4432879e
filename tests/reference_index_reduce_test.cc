// reference_index_reduce_test.cc — the reference's torch.index_reduce_ /
// torch.index_reduce, clause by clause (reference/SEMANTICS.md, T-IR*).
//
// The document's two examples, every reduce with and without self, the
// rules checked from both sides (the call just inside passes, the one just
// outside fails with its category) in LibTorch 1.13's order, the mean's
// count, NaN / signed zeros, and the floating-only domain (T-IR4).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::f32;
using test::f64;
using test::i32;
using test::i64;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;
using test::allows;
using test::expect_errors;
using test::only_output;

OpCall reduce_call(Tensor self, int64_t dim, Tensor index, Tensor source, const std::string& reduce,
                   std::optional<bool> include_self = std::nullopt, const std::string& op = "torch.index_reduce") {
  std::map<std::string, Arg> args{{"dim", Arg::of_int(dim)}, {"reduce", Arg::of_string(reduce)}};
  if (include_self) args.emplace("include_self", Arg::of_bool(*include_self));
  return call_of(op, {{"self", self}, {"index", index}, {"source", source}}, args);
}

// Each element allows `expected` (exact bits, or inside the interval of a
// float reduction of >= 2 ops), and a loose one rejects a value clearly off.
void expect_allowed_values(const Expectation& e, const std::vector<double>& expected) {
  const ExpectedTensor& out = only_output(e);
  const DType t = out.exact.dtype();
  ASSERT_EQ(out.exact.numel(), static_cast<int64_t>(expected.size())) << e.summary();
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto linear = static_cast<int64_t>(k);
    EXPECT_TRUE(out.allows(linear, bits_from_value(t, Value::of_float(expected[k])))) << k << ": " << e.summary();
    if (out.loose.count(linear))
      EXPECT_FALSE(out.allows(linear, bits_from_value(t, Value::of_float(expected[k] * 1.01 + 0.5)))) << k;
    else
      EXPECT_EQ(values_of(out.exact)[k], expected[k]) << k;
  }
}

Tensor twos53() { return f32({5, 3}, std::vector<double>(15, 2.0)); }
Tensor doc_t() { return f32({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}); }

TEST(ReferenceIndexReduce, DocumentExamples) {
  const Tensor index = i64({4}, {0, 4, 2, 0});
  expect_allowed_values(evaluate(reduce_call(twos53(), 0, index, doc_t(), "prod", std::nullopt, "torch.index_reduce_")),
                        {20, 44, 72, 2, 2, 2, 14, 16, 18, 2, 2, 2, 8, 10, 12});
  expect_allowed_values(evaluate(reduce_call(twos53(), 0, index, doc_t(), "prod", false, "torch.index_reduce_")),
                        {10, 22, 36, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6});
}

TEST(ReferenceIndexReduce, EveryReduceWithAndWithoutSelf) {
  // Row 0 gets source rows 0 and 3 (duplicates), row 2 row 2, row 4 row 1;
  // rows 1 and 3 are never named and keep self whatever include_self says.
  const Tensor index = i64({4}, {0, 4, 2, 0});
  const auto run = [&](const std::string& reduce, bool include_self) {
    return evaluate(reduce_call(twos53(), 0, index, doc_t(), reduce, include_self));
  };
  expect_allowed_values(run("amax", true), {10, 11, 12, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6});
  expect_allowed_values(run("amin", true), {1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2});
  expect_allowed_values(run("amin", false), {1, 2, 3, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6});
  // mean with self: (2 + 1 + 10) / 3 = 13/3 is inexact: an interval.
  const Expectation mean = run("mean", true);
  EXPECT_TRUE(allows(mean, 0, DType::Float32, 13.0 / 3.0));
  EXPECT_FALSE(allows(mean, 0, DType::Float32, 11.0 / 2.0));  // self left out of the count
  EXPECT_FALSE(allows(mean, 0, DType::Float32, 13.0 / 2.0));  // self in the sum, not the count
  EXPECT_TRUE(allows(mean, 6, DType::Float32, 4.5));          // (2 + 7) / 2 exactly
  EXPECT_TRUE(allows(mean, 3, DType::Float32, 2.0));
  EXPECT_FALSE(allows(mean, 3, DType::Float32, 1.0));
  // mean without self: (1 + 10) / 2 = 5.5; row 2 is 7 alone; rows 1, 3 keep 2.
  expect_allowed_values(run("mean", false), {5.5, 6.5, 7.5, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6});
  // The default is include_self=True.
  expect_allowed_values(evaluate(reduce_call(twos53(), 0, index, doc_t(), "amin")),
                        values_of(only_output(run("amin", true)).exact));
}

TEST(ReferenceIndexReduce, ReduceIsCheckedFirstAndSumIsNotAReduce) {
  const Tensor index = i64({4}, {0, 4, 2, 0});
  for (const char* bad : {"sum", "Prod", "max", "", "amax "})
    expect_errors(evaluate(reduce_call(twos53(), 0, index, doc_t(), bad)), {EC::InvalidReduce});
  // Before a bad dim and a bad index dtype (LibTorch's meta function).
  expect_errors(evaluate(reduce_call(twos53(), 5, index, doc_t(), "sum")), {EC::InvalidReduce, EC::DimOutOfRange});
  const Expectation both = evaluate(reduce_call(twos53(), 0, f32({4}, {0, 4, 2, 0}), doc_t(), "add"));
  ASSERT_TRUE(both.expects_error());
  EXPECT_EQ(both.errors.front(), EC::InvalidReduce);
}

TEST(ReferenceIndexReduce, DimIndexAndSourceRulesFromBothSides) {
  const Tensor self = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor source = f32({2, 2}, {1, 1, 2, 2});
  EXPECT_TRUE(evaluate(reduce_call(self, -2, i64({2}, {0, 2}), source, "prod")).outputs.has_value());
  expect_errors(evaluate(reduce_call(self, 2, i64({2}, {0, 2}), source, "prod")), {EC::DimOutOfRange});
  expect_errors(evaluate(reduce_call(self, 0, i64({2, 1}, {0, 2}), source, "prod")), {EC::InvalidArgument});
  EXPECT_TRUE(evaluate(reduce_call(self, 0, i32({2}, {0, 2}), source, "prod")).outputs.has_value());
  expect_errors(evaluate(reduce_call(self, 0, tensor_of(DType::Int16, {2}, {0, 2}), source, "prod")), {EC::IndexDtype});
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 2}), f64({2, 2}, {1, 1, 2, 2}), "prod")),
                {EC::DtypeMismatch});
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 2}), f32({3, 2}, {1, 1, 2, 2, 3, 3}), "prod")),
                {EC::ShapeMismatch});
  // Slices that only broadcast are refused (the document; LibTorch deviates, T-IR11).
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 2}), f32({2, 1}, {1, 2}), "prod")), {EC::ShapeMismatch});
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 2}), f32({2}, {1, 2}), "amax")), {EC::ShapeMismatch});
}

TEST(ReferenceIndexReduce, BoundsNegativeValuesAndEmptyIndex) {
  const Tensor self = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor source = f32({2, 2}, {1, 1, 2, 2});
  EXPECT_TRUE(evaluate(reduce_call(self, 0, i64({2}, {2, 2}), source, "amin", false)).outputs.has_value());
  for (bool include_self : {true, false}) {
    expect_errors(evaluate(reduce_call(self, 0, i64({2}, {-1, 0}), source, "amin", include_self)),
                  {EC::IndexOutOfBounds});
    expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 3}), source, "amin", include_self)),
                  {EC::IndexOutOfBounds});
  }
  // A bad value and a mis-shaped source: either may be reported.
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 3}), f32({2, 3}, std::vector<double>(6, 1.0)), "amin")),
                {EC::ShapeMismatch, EC::IndexOutOfBounds});
  // Empty index: a rank >= 2 self skips the shape rule, a rank-1 self does not.
  expect_allowed_values(evaluate(reduce_call(self, 0, i64({0}, {}), f32({0, 7}, {}), "mean", false)),
                        {1, 2, 3, 4, 5, 6});
  expect_errors(evaluate(reduce_call(f32({3}, {1, 2, 3}), 0, i64({0}, {}), f32({0, 2}, {}), "mean")),
                {EC::ShapeMismatch});
  expect_errors(evaluate(reduce_call(self, 0, f32({0}, {}), f32({0, 2}, {}), "mean")), {EC::IndexDtype});
  // 0-d self: shape [1], so only index value 0.
  expect_allowed_values(evaluate(reduce_call(f32({}, {3}), 0, i64({2}, {0, 0}), f32({2}, {2, 5}), "prod")), {30});
  expect_errors(evaluate(reduce_call(f32({}, {3}), 0, i64({1}, {1}), f32({1}, {2}), "prod")), {EC::IndexOutOfBounds});
}

TEST(ReferenceIndexReduce, NanPropagatesAndSignedZeros) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Expectation amax = evaluate(reduce_call(f32({2}, {1, 1}), 0, i64({2}, {0, 0}), f32({2}, {nan, 2}), "amax"));
  EXPECT_TRUE(only_output(amax).loose.count(0) && only_output(amax).loose.at(0).any_nan);
  EXPECT_FALSE(allows(amax, 0, DType::Float32, 2.0));
  // include_self=False leaves self's NaN out.
  expect_allowed_values(
      evaluate(reduce_call(f64({2}, {nan, 1}), 0, i64({2}, {0, 0}), f64({2}, {3, -2}), "amin", false)), {-2, 1});
  // -inf alone stays -inf; amin of a lone -0.0 (identity +inf) is -0.0.
  expect_allowed_values(
      evaluate(reduce_call(f32({1}, {0}), 0, i64({2}, {0, 0}), f32({2}, {-inf, -inf}), "amax", false)), {-inf});
  const Expectation zero = evaluate(reduce_call(f32({1}, {5}), 0, i64({1}, {0}), f32({1}, {-0.0}), "amin", false));
  EXPECT_TRUE(only_output(zero).allows(0, bits_from_value(DType::Float32, Value::of_float(-0.0))));
  EXPECT_FALSE(only_output(zero).allows(0, bits_from_value(DType::Float32, Value::of_float(0.0))));
  // mean: an untouched NaN may come back as any NaN (T-IR10).
  const Expectation mean = evaluate(reduce_call(f32({2}, {nan, 1}), 0, i64({1}, {1}), f32({1}, {3}), "mean"));
  EXPECT_TRUE(only_output(mean).loose.count(0) && only_output(mean).loose.at(0).any_nan);
  EXPECT_TRUE(allows(mean, 1, DType::Float32, 2.0));
}

TEST(ReferenceIndexReduce, NonFloatingSelfIsUnspecified) {
  // "This function only supports floating point tensors" (T-IR4): any
  // answer, even over an error the call also has.
  EXPECT_TRUE(evaluate(reduce_call(i64({2}, {-7, 7}), 0, i64({2}, {0, 1}), i64({2}, {0, 0}), "mean")).unspecified);
  EXPECT_TRUE(evaluate(reduce_call(tensor_of(DType::Bool, {2}, {1, 0}), 0, i64({1}, {0}),
                                   tensor_of(DType::Bool, {1}, {1}), "prod"))
                  .unspecified);
  EXPECT_TRUE(evaluate(reduce_call(i32({2}, {1, 2}), 0, i64({1}, {5}), i32({1}, {3}), "amax")).unspecified);
  // 16-bit floats are floating point: specified.
  const Expectation half = evaluate(reduce_call(tensor_of(DType::Float16, {2}, {1, 0.5}), 0, i64({2}, {0, 0}),
                                                tensor_of(DType::Float16, {2}, {2, 6}), "mean"));
  EXPECT_FALSE(half.unspecified);
  EXPECT_TRUE(allows(half, 0, DType::Float16, 3.0));
}

TEST(ReferenceIndexReduce, InPlaceChecksOverlapOutOfPlaceDoesNot) {
  const Tensor expanded = test::relaid(f32({3}, {1, 1, 1}), test::Layout::Expanded);
  ASSERT_TRUE(expanded.has_internal_overlap());
  expect_errors(
      evaluate(reduce_call(expanded, 0, i64({1}, {0}), f32({1}, {2}), "prod", std::nullopt, "torch.index_reduce_")),
      {EC::OverlappingOutput});
  EXPECT_TRUE(evaluate(reduce_call(expanded, 0, i64({1}, {0}), f32({1}, {2}), "prod")).outputs.has_value());
}

}  // namespace
}  // namespace sp
