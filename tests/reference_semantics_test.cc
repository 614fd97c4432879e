// reference_semantics_test.cc — the reference's semantics, rule by rule.
//
// Every validation rule is tested from both sides of its boundary (so the
// test fails if the rule is removed or loosened/tightened), every worked
// example of the seed documents is checked value by value, and the kinds of
// Expectation (exact, one-of set, interval, unspecified, error list) are
// checked where the semantics produce them. Clause ids: reference/SEMANTICS.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using EC = ErrorCategory;

using test::f32;
using test::i32;
using test::i64;
using test::tensor_of;

OpCall make_call(const std::string& op, std::map<std::string, Tensor> tensors, std::optional<int64_t> dim) {
  OpCall c;
  c.op = op;
  c.tensors = std::move(tensors);
  if (dim) c.set_arg("dim", Arg::of_int(*dim));
  return c;
}
OpCall scatter(const std::string& op, int64_t dim, Tensor self, Tensor index, Tensor src) {
  return make_call(op, {{"self", self}, {"index", index}, {"src", src}}, dim);
}
OpCall scatter_value(const std::string& op, int64_t dim, Tensor self, Tensor index, Scalar value) {
  OpCall c = make_call(op, {{"self", self}, {"index", index}}, dim);
  c.set_arg("value", Arg::of_scalar(value));
  return c;
}
OpCall gather(int64_t dim, Tensor input, Tensor index) {
  return make_call("torch.gather", {{"input", input}, {"index", index}}, dim);
}
OpCall paddle(Tensor x, Tensor index, Tensor updates, bool overwrite) {
  OpCall c = make_call("paddle.scatter", {{"x", x}, {"index", index}, {"updates", updates}}, std::nullopt);
  c.set_arg("overwrite", Arg::of_bool(overwrite));
  return c;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (uint64_t b : t.to_bits()) out.push_back(value_from_bits(t.dtype(), b).as_double());
  return out;
}

// Success with every element exact, equal to `expected` (row-major).
void expect_exact(const Expectation& e, const Shape& shape, const std::vector<double>& expected) {
  ASSERT_TRUE(e.outputs.has_value()) << e.summary() << " " << e.error_message;
  ASSERT_EQ(e.outputs->size(), 1u);
  const ExpectedTensor& out = e.outputs->front();
  EXPECT_EQ(out.exact.shape(), shape);
  EXPECT_EQ(values(out.exact), expected);
  EXPECT_TRUE(out.loose.empty()) << e.summary();
  EXPECT_TRUE(e.errors.empty());
}
void expect_errors(const Expectation& e, const std::vector<EC>& categories) {
  EXPECT_TRUE(e.expects_error()) << e.summary();
  EXPECT_EQ(e.errors, categories) << e.summary() << " — " << e.error_message;
}
bool succeeds(const Expectation& e) { return e.outputs.has_value() && e.errors.empty() && !e.unspecified; }

// ---------------------------------------------------------------- torch.gather
TEST(ReferenceTorchGather, Seed000Examples) {
  expect_exact(evaluate(gather(1, i64({2, 2}, {1, 2, 3, 4}), i64({2, 2}, {0, 0, 1, 0}))), {2, 2}, {1, 1, 4, 3});
  const Tensor t = i64({3, 2}, {1, 2, 3, 4, 6, 8});
  expect_exact(evaluate(gather(0, t, i64({3, 2}, {1, 0, 0, 2, 2, 1}))), {3, 2}, {3, 2, 1, 8, 6, 4});
  expect_exact(evaluate(gather(1, t, i64({3, 2}, {1, 0, 0, 1, 1, 1}))), {3, 2}, {2, 1, 3, 4, 8, 8});
  // T-G5: index wider than input along dim.
  expect_exact(evaluate(gather(1, t, i64({3, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 1}))), {3, 3}, {2, 1, 1, 3, 3, 4, 6, 8, 8});
  const Expectation e = evaluate(gather(1, t, i64({2, 2}, {1, 0, 0, 2})));
  expect_errors(e, {EC::IndexOutOfBounds});
  EXPECT_EQ(e.error_message, "index 2 is out of bounds for dimension 1 with size 2");
  EXPECT_EQ(e.error_clause, "T-B1");
}

TEST(ReferenceTorchGather, DimRange) {
  const Tensor t = f32({2, 2}, {1, 2, 3, 4}), idx = i64({1, 1}, {0});
  EXPECT_TRUE(succeeds(evaluate(gather(1, t, idx))));
  EXPECT_TRUE(succeeds(evaluate(gather(-2, t, idx))));
  expect_errors(evaluate(gather(2, t, idx)), {EC::DimOutOfRange});
  expect_errors(evaluate(gather(-3, t, idx)), {EC::DimOutOfRange});
}

TEST(ReferenceTorchGather, IndexDtypeRankAndShape) {
  const Tensor t = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_errors(evaluate(gather(0, t, i32({1, 1}, {0}))), {EC::IndexDtype});
  expect_errors(evaluate(gather(0, t, i64({1}, {0}))), {EC::RankMismatch});
  EXPECT_TRUE(succeeds(evaluate(gather(1, t, i64({2, 1}, {0, 0})))));
  expect_errors(evaluate(gather(1, t, i64({3, 1}, {0, 0, 0}))), {EC::ShapeMismatch});  // T-G4, d != dim
  // All violations collected in check order; bounds not checked then.
  const Expectation e = evaluate(gather(5, t, i32({1}, {99})));
  expect_errors(e, {EC::DimOutOfRange, EC::IndexDtype, EC::RankMismatch});
  EXPECT_EQ(e.error_clause, "T-D1");
}

TEST(ReferenceTorchGather, BoundsBothSides) {
  const Tensor t = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_exact(evaluate(gather(1, t, i64({1, 1}, {2}))), {1, 1}, {3});
  expect_errors(evaluate(gather(1, t, i64({1, 1}, {3}))), {EC::IndexOutOfBounds});
  expect_errors(evaluate(gather(1, t, i64({1, 1}, {-1}))), {EC::IndexOutOfBounds});
}

TEST(ReferenceTorchGather, EmptyIndexAndRankZero) {
  // T-E1: an empty int32 index of another rank is fine; out has its shape.
  expect_exact(evaluate(gather(0, f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({0, 4, 4}, {}))), {0, 4, 4}, {});
  expect_errors(evaluate(gather(2, f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({0}, {}))), {EC::DimOutOfRange});
  // T-D2: a rank-0 input counts as shape [1].
  expect_exact(evaluate(gather(0, f32({}, {7}), i64({3}, {0, 0, 0}))), {3}, {7, 7, 7});
  expect_errors(evaluate(gather(1, f32({}, {7}), i64({}, {0}))), {EC::DimOutOfRange});
}

TEST(ReferenceTorchGather, CopiesExactBits) {
  Tensor t = f32({2}, {0, 0});
  const uint64_t nan_payload = 0x7fc01234, neg_zero = 0x80000000;
  t.set_bits_at({0}, nan_payload);
  t.set_bits_at({1}, neg_zero);
  const Expectation e = evaluate(gather(0, t, i64({2}, {0, 1})));
  ASSERT_TRUE(e.outputs);
  EXPECT_EQ(e.outputs->front().exact.to_bits(), (std::vector<uint64_t>{nan_payload, neg_zero}));
}

// ---------------------------------------------------------------- torch.scatter_
const Tensor kSrc2x5 = i64({2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});

TEST(ReferenceTorchScatter, Seed002Examples) {
  const Tensor zeros = i64({3, 5}, std::vector<double>(15, 0));
  expect_exact(evaluate(scatter("torch.scatter_", 0, zeros, i64({1, 4}, {0, 1, 2, 0}), kSrc2x5)), {3, 5},
               {1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0});
  expect_exact(evaluate(scatter("torch.scatter_", 1, zeros, i64({2, 3}, {0, 1, 2, 0, 1, 4}), kSrc2x5)), {3, 5},
               {1, 2, 3, 0, 0, 6, 7, 0, 0, 8, 0, 0, 0, 0, 0});
  const Tensor twos = f32({2, 4}, std::vector<double>(8, 2));
  const double mul = 2.0f * 1.23f, add = 2.0f + 1.23f;
  OpCall c = scatter_value("torch.scatter_", 1, twos, i64({2, 1}, {2, 3}), Scalar::of_float(1.23));
  c.set_arg("reduce", Arg::of_string("multiply"));
  expect_exact(evaluate(c), {2, 4}, {2, 2, mul, 2, 2, 2, 2, mul});
  c.set_arg("reduce", Arg::of_string("add"));
  expect_exact(evaluate(c), {2, 4}, {2, 2, add, 2, 2, 2, 2, add});
}

TEST(ReferenceTorchScatter, Seed001ErratumOnlyIndexPositionsVisited) {
  const Expectation e = evaluate(scatter("torch.scatter_", 0, f32({2, 3}, {0, 0, 0, 0, 0, 0}), i64({1, 3}, {1, 1, 1}),
                                         f32({2, 3}, {1, 2, 3, 4, 5, 6})));
  expect_exact(e, {2, 3}, {0, 0, 0, 1, 2, 3});  // not 4, 5, 6 as 001 claims
}

TEST(ReferenceTorchScatter, RankRules) {
  const Tensor self = f32({2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter_", 0, self, i64({1, 1}, {0}), f32({1, 1}, {1})))));
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, i64({1}, {0}), f32({1}, {1}))), {EC::RankMismatch});
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, i64({1, 1}, {0}), f32({1}, {1}))), {EC::RankMismatch});
}

TEST(ReferenceTorchScatter, ShapeRules) {
  const Tensor self = f32({2, 3}, std::vector<double>(6, 0));
  // T-S3: index.size(d) <= src.size(d), every d (boundary: equal is fine).
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter_", 0, self, i64({2, 1}, {0, 1}), f32({2, 1}, {1, 2})))));
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, i64({2, 1}, {0, 1}), f32({1, 3}, {1, 2, 3}))),
                {EC::ShapeMismatch});
  // T-S4: index.size(d) <= self.size(d) for d != dim ...
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter_", 0, self, i64({1, 3}, {0, 0, 0}), f32({1, 3}, {1, 2, 3})))));
  const Expectation e =
      evaluate(scatter("torch.scatter_", 0, self, i64({1, 4}, {0, 0, 0, 0}), f32({2, 4}, std::vector<double>(8, 1))));
  expect_errors(e, {EC::ShapeMismatch});
  EXPECT_EQ(e.error_message,
            "Expected index [1, 4] to be smaller than self [2, 3] apart from dimension 0 and to be smaller size than "
            "src [2, 4]");
  // ... but not along dim.
  EXPECT_TRUE(succeeds(
      evaluate(scatter("torch.scatter_", 0, self, i64({3, 1}, {0, 1, 0}), f32({3, 3}, std::vector<double>(9, 1))))));
}

TEST(ReferenceTorchScatter, DtypeAndReduceRules) {
  const Tensor self = f32({2}, {0, 0}), idx = i64({1}, {0});
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, idx, tensor_of(DType::Float64, {1}, {1}))),
                {EC::DtypeMismatch});
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, i32({1}, {0}), f32({1}, {1}))), {EC::IndexDtype});
  OpCall c = scatter("torch.scatter_", 0, self, idx, f32({1}, {3}));
  c.set_arg("reduce", Arg::of_string("mul"));
  expect_errors(evaluate(c), {EC::InvalidReduce});
  c.set_arg("reduce", Arg::of_string("multiply"));
  expect_exact(evaluate(c), {2}, {0, 0});
  c.set_arg("reduce", Arg::of_string("add"));
  expect_exact(evaluate(c), {2}, {3, 0});
}

TEST(ReferenceTorchScatter, InternalOverlapOnlyInPlace) {
  auto storage = std::make_shared<std::vector<std::byte>>(4);
  const Tensor expanded = Tensor::view(DType::Float32, {3}, {0}, 0, storage);
  expect_errors(evaluate(scatter("torch.scatter_", 0, expanded, i64({1}, {0}), f32({1}, {1}))),
                {EC::OverlappingOutput});
  expect_exact(evaluate(scatter("torch.scatter", 0, expanded, i64({1}, {0}), f32({1}, {1}))), {3}, {1, 0, 0});
  const Tensor contiguous_one = Tensor::view(DType::Float32, {1}, {0}, 0, storage);  // size 1: no overlap
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter_", 0, contiguous_one, i64({1}, {0}), f32({1}, {1})))));
}

TEST(ReferenceTorchScatter, EmptyIndexSkipsIndexRulesOnly) {
  const Tensor self = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_exact(evaluate(scatter("torch.scatter_", 0, self, i32({0}, {}), f32({3}, {1, 2, 3}))), {2, 3},
               {1, 2, 3, 4, 5, 6});
  expect_errors(evaluate(scatter("torch.scatter_", 0, self, i64({0}, {}), tensor_of(DType::Float64, {1}, {1}))),
                {EC::DtypeMismatch});
  expect_errors(evaluate(scatter("torch.scatter_", 2, self, i64({0}, {}), f32({1}, {1}))), {EC::DimOutOfRange});
  expect_exact(evaluate(scatter_value("torch.scatter_", 0, tensor_of(DType::Int8, {1}, {5}), i64({0}, {}),
                                      Scalar::of_int(1000))),
               {1}, {5});
}

TEST(ReferenceTorchScatter, IndexBounds) {
  const Tensor self = f32({2, 3}, std::vector<double>(6, 0)), src = f32({1, 1}, {9});
  expect_exact(evaluate(scatter("torch.scatter_", 1, self, i64({1, 1}, {2}), src)), {2, 3}, {0, 0, 9, 0, 0, 0});
  const Expectation e = evaluate(scatter("torch.scatter_", 1, self, i64({1, 1}, {3}), src));
  expect_errors(e, {EC::IndexOutOfBounds});
  EXPECT_EQ(e.error_message, "index 3 is out of bounds for dimension 1 with size 3");
  expect_errors(evaluate(scatter("torch.scatter_", -1, self, i64({1, 1}, {-1}), src)), {EC::IndexOutOfBounds});
  // The bounds rule is evaluated while another rule fails (C-1: a backend
  // may report either; one that checks the bounds first is not failed).
  const Tensor src64 = tensor_of(DType::Float64, {1, 1}, {1});
  expect_errors(evaluate(scatter("torch.scatter_", 1, self, i64({1, 1}, {99}), src64)),
                {EC::DtypeMismatch, EC::IndexOutOfBounds});
  expect_errors(evaluate(scatter("torch.scatter_", 1, self, i64({1, 1}, {2}), src64)), {EC::DtypeMismatch});
  // ... but not where the values cannot be compared with a bound: a bad dim,
  // a float index.
  expect_errors(evaluate(scatter("torch.scatter_", 5, self, i64({1, 1}, {99}), src)), {EC::DimOutOfRange});
  expect_errors(evaluate(scatter("torch.scatter_", 1, self, tensor_of(DType::Float32, {1, 1}, {99}), src)),
                {EC::IndexDtype});
}

TEST(ReferenceTorchScatter, OnlyAStrideZeroSelfIsAnOverlapErrorOtherOverlapIsUnspecified) {
  const auto storage = std::make_shared<std::vector<std::byte>>(3 * 4);
  const Tensor expanded = Tensor::view(DType::Float32, {2, 2}, {0, 1}, 0, storage);  // T-O1: LibTorch detects it
  const Tensor sliding = Tensor::view(DType::Float32, {2, 2}, {1, 1}, 0, storage);   // T-O2: LibTorch cannot
  const Tensor src = f32({1, 1}, {9});
  expect_errors(evaluate(scatter("torch.scatter_", 0, expanded, i64({1, 1}, {0}), src)), {EC::OverlappingOutput});
  const Expectation e = evaluate(scatter("torch.scatter_", 0, sliding, i64({1, 1}, {0}), src));
  EXPECT_TRUE(e.unspecified) << e.summary();
  // Another broken rule still makes it an error, and a backend that detects
  // the overlap may report it (C-1); out of place, self is only read.
  expect_errors(evaluate(scatter("torch.scatter_", 0, sliding, i64({1, 1}, {5}), src)),
                {EC::IndexOutOfBounds, EC::OverlappingOutput});
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter", 0, sliding, i64({1, 1}, {0}), src))));
}

TEST(ReferenceTorchScatter, DuplicatesAreASetAndReductionsAnInterval) {
  const Tensor self = f32({2}, {0, 0}), idx = i64({2}, {0, 0}), src = f32({2}, {5, 7});
  const Expectation e = evaluate(scatter("torch.scatter_", 0, self, idx, src));
  ASSERT_TRUE(e.outputs);
  const ExpectedTensor& out = e.outputs->front();
  ASSERT_EQ(out.loose.count(0), 1u);
  EXPECT_TRUE(out.allows(0, bits_from_value(DType::Float32, Value::of_float(5))));
  EXPECT_TRUE(out.allows(0, bits_from_value(DType::Float32, Value::of_float(7))));
  EXPECT_FALSE(out.allows(0, bits_from_value(DType::Float32, Value::of_float(12))));
  EXPECT_EQ(out.loose.count(1), 0u);

  OpCall add = scatter("torch.scatter_", 0, self, idx, f32({2}, {0.1, 0.2}));
  add.set_arg("reduce", Arg::of_string("add"));
  const Expectation sum = evaluate(add);
  ASSERT_TRUE(sum.outputs);
  ASSERT_EQ(sum.outputs->front().loose.count(0), 1u);
  EXPECT_TRUE(sum.outputs->front().loose.at(0).has_interval);
}

TEST(ReferenceTorchScatter, IntegerMultiplyWraps) {
  OpCall c = scatter("torch.scatter_", 0, tensor_of(DType::Int8, {1}, {16}), i64({2}, {0, 0}),
                     tensor_of(DType::Int8, {2}, {16, 16}));
  c.set_arg("reduce", Arg::of_string("multiply"));
  expect_exact(evaluate(c), {1}, {0});  // 4096 wraps to 0, exact in any order
}

TEST(ReferenceTorchScatter, ValueConversion) {
  const auto one = [](DType t, Scalar v) {
    return evaluate(scatter_value("torch.scatter_", 0, tensor_of(t, {1}, {0}), i64({1}, {0}), v));
  };
  expect_exact(one(DType::Int64, Scalar::of_float(1.5)), {1}, {1});
  expect_exact(one(DType::Int64, Scalar::of_float(-1.5)), {1}, {-1});
  expect_exact(one(DType::Float32, Scalar::of_bool(true)), {1}, {1});
  expect_exact(one(DType::Int8, Scalar::of_int(127)), {1}, {127});
  expect_errors(one(DType::Int8, Scalar::of_int(128)), {EC::ValueOutOfRange});
  expect_errors(one(DType::Int8, Scalar::of_float(127.9)), {EC::ValueOutOfRange});  // untruncated test
  expect_exact(one(DType::UInt8, Scalar::of_int(-1)), {1}, {255});
  expect_exact(one(DType::UInt8, Scalar::of_int(-255)), {1}, {1});
  expect_errors(one(DType::UInt8, Scalar::of_int(-256)), {EC::ValueOutOfRange});
  expect_errors(one(DType::UInt8, Scalar::of_float(-0.5)), {EC::ValueOutOfRange});
  expect_exact(one(DType::Float16, Scalar::of_float(65504)), {1}, {65504});
  expect_errors(one(DType::Float16, Scalar::of_float(65519)), {EC::ValueOutOfRange});
  expect_errors(one(DType::Int32, Scalar::of_float(NAN)), {EC::ValueOutOfRange});
  expect_exact(one(DType::Bool, Scalar::of_int(2)), {1}, {1});
  expect_exact(one(DType::Bool, Scalar::of_float(0.0)), {1}, {0});
  EXPECT_TRUE(one(DType::Float32, Scalar::of_float(INFINITY)).outputs.has_value());
  EXPECT_TRUE(one(DType::Int64, Scalar::of_float(0x1p63)).unspecified);
  EXPECT_TRUE(succeeds(one(DType::Int64, Scalar::of_float(0x1p62))));
  // Half goes through float: 1 + 2^-11 + 2^-40 rounds to the tie 1 + 2^-11
  // in float, then to even (1.0) in half; a single rounding would give 1 + 2^-10.
  expect_exact(one(DType::Float16, Scalar::of_float(1.0 + 0x1p-11 + 0x1p-40)), {1}, {1.0});
}

TEST(ReferenceTorchScatter, UntouchedAndCopiedElementsKeepExactBits) {
  Tensor self = f32({3}, {0, 0, 0});
  self.set_bits_at({0}, 0x80000000);  // -0.0
  self.set_bits_at({2}, 0x7fa00001);  // signalling NaN payload
  Tensor src = f32({1}, {0});
  src.set_bits_at({0}, 0xffc0beef);  // negative quiet NaN payload
  const Expectation e = evaluate(scatter("torch.scatter_", 0, self, i64({1}, {1}), src));
  ASSERT_TRUE(e.outputs);
  EXPECT_EQ(e.outputs->front().exact.to_bits(), (std::vector<uint64_t>{0x80000000, 0xffc0beef, 0x7fa00001}));
  EXPECT_TRUE(e.outputs->front().loose.empty());
}

TEST(ReferenceTorchScatter, OutOfPlaceLeavesSelfAndNamesOut) {
  const Tensor self = f32({2}, {1, 2});
  const OpCall c = scatter("torch.scatter", 0, self, i64({1}, {1}), f32({1}, {9}));
  const Expectation e = evaluate(c);
  expect_exact(e, {2}, {1, 9});
  EXPECT_EQ(e.outputs->front().name, "out");
  EXPECT_EQ(values(self), (std::vector<double>{1, 2}));
  EXPECT_EQ(evaluate(scatter("torch.scatter_", 0, self, i64({1}, {1}), f32({1}, {9}))).outputs->front().name, "self");
}

TEST(ReferenceTorchScatter, RankZeroCountsAsRankOne) {
  expect_exact(evaluate(scatter("torch.scatter_", 0, f32({}, {0}), i64({1}, {0}), f32({1}, {5}))), {}, {5});
  expect_exact(evaluate(scatter("torch.scatter_", -1, f32({}, {0}), i64({}, {0}), f32({}, {5}))), {}, {5});
  expect_errors(evaluate(scatter("torch.scatter_", 1, f32({}, {0}), i64({}, {0}), f32({}, {5}))), {EC::DimOutOfRange});
  expect_errors(evaluate(scatter("torch.scatter_", 0, f32({}, {0}), i64({}, {1}), f32({}, {5}))),
                {EC::IndexOutOfBounds});
}

TEST(ReferenceTorchScatter, AllViolationsCollectedInOrder) {
  OpCall c = scatter("torch.scatter_", 3, f32({2}, {0, 0}), i32({1, 1}, {0}), tensor_of(DType::Float64, {1}, {1}));
  c.set_arg("reduce", Arg::of_string("max"));
  const Expectation e = evaluate(c);
  expect_errors(e, {EC::DimOutOfRange, EC::IndexDtype, EC::DtypeMismatch, EC::RankMismatch, EC::InvalidReduce});
  EXPECT_EQ(e.error_message, "Dimension out of range (expected to be in range of [-1, 0], but got 3)");
}

// ---------------------------------------------------------------- torch.scatter_add_
TEST(ReferenceTorchScatterAdd, SumsEqualScatterReduceAdd) {
  const Tensor self = i64({3}, {1, 1, 1}), idx = i64({4}, {0, 2, 0, 0}), src = i64({4}, {1, 2, 3, 4});
  expect_exact(evaluate(scatter("torch.scatter_add_", 0, self, idx, src)), {3}, {9, 1, 3});
  OpCall as_reduce = scatter("torch.scatter_", 0, self, idx, src);
  as_reduce.set_arg("reduce", Arg::of_string("add"));
  expect_exact(evaluate(as_reduce), {3}, {9, 1, 3});
  expect_exact(evaluate(scatter("torch.scatter_add", 0, self, idx, src)), {3}, {9, 1, 3});
  EXPECT_EQ(values(self), (std::vector<double>{1, 1, 1}));
}

TEST(ReferenceTorchScatterAdd, Rules) {
  const Tensor self = f32({2, 2}, {0, 0, 0, 0});
  EXPECT_TRUE(succeeds(evaluate(scatter("torch.scatter_add_", 1, self, i64({1, 1}, {1}), f32({1, 1}, {1})))));
  expect_errors(evaluate(scatter("torch.scatter_add_", 1, self, i64({1, 1}, {2}), f32({1, 1}, {1}))),
                {EC::IndexOutOfBounds});
  expect_errors(evaluate(scatter("torch.scatter_add_", 1, self, i32({1, 1}, {1}), f32({1, 1}, {1}))), {EC::IndexDtype});
  expect_errors(evaluate(scatter("torch.scatter_add_", 1, self, i64({1}, {1}), f32({1, 1}, {1}))), {EC::RankMismatch});
  expect_errors(evaluate(scatter("torch.scatter_add_", 1, self, i64({1, 2}, {1, 1}), f32({1, 1}, {1}))),
                {EC::ShapeMismatch});
  auto storage = std::make_shared<std::vector<std::byte>>(4);
  const Tensor expanded = Tensor::view(DType::Float32, {2, 2}, {0, 0}, 0, storage);
  expect_errors(evaluate(scatter("torch.scatter_add_", 1, expanded, i64({1, 1}, {1}), f32({1, 1}, {1}))),
                {EC::OverlappingOutput});
  const Expectation floats =
      evaluate(scatter("torch.scatter_add_", 0, f32({1}, {0}), i64({3}, {0, 0, 0}), f32({3}, {0.1, 0.2, 0.3})));
  ASSERT_TRUE(floats.outputs);
  EXPECT_TRUE(floats.outputs->front().loose.at(0).has_interval);
}

// ---------------------------------------------------------------- mindspore.scatter_
OpCall ms(int64_t dim, Tensor self, Tensor index, Tensor src) {
  return scatter("mindspore.scatter_", dim, self, index, src);
}
OpCall ms_value(int64_t dim, Tensor self, Tensor index, Scalar v) {
  return scatter_value("mindspore.scatter_", dim, self, index, v);
}
const Tensor kMsSelf = f32({2, 2}, {1, 2, 3, 4});

TEST(ReferenceMindSpore, Seed003Examples) {
  expect_exact(evaluate(ms(1, kMsSelf, i64({2, 2}, {1, 0, 1, 0}), f32({2, 2}, {4, 3, 2, 1}))), {2, 2}, {3, 4, 1, 2});
  OpCall add = ms(1, kMsSelf, i64({2, 2}, {1, 0, 1, 0}), f32({2, 2}, {4, 3, 2, 1}));
  add.set_arg("reduce", Arg::of_string("add"));
  expect_exact(evaluate(add), {2, 2}, {4, 6, 4, 6});
  expect_exact(evaluate(ms_value(0, kMsSelf, i64({2, 1}, {0, 1}), Scalar::of_int(10))), {2, 2}, {10, 2, 10, 4});
  OpCall mul = ms_value(0, kMsSelf, i64({2, 1}, {0, 1}), Scalar::of_int(3));
  mul.set_arg("reduce", Arg::of_string("multiply"));
  expect_exact(evaluate(mul), {2, 2}, {3, 2, 9, 4});
}

TEST(ReferenceMindSpore, DimRankLimitAndDtypes) {
  EXPECT_TRUE(succeeds(evaluate(ms(-2, kMsSelf, i64({1, 1}, {0}), f32({1, 1}, {9})))));
  expect_errors(evaluate(ms(-3, kMsSelf, i64({1, 1}, {0}), f32({1, 1}, {9}))), {EC::DimOutOfRange});
  expect_errors(evaluate(ms(2, kMsSelf, i64({1, 1}, {0}), f32({1, 1}, {9}))), {EC::DimOutOfRange});
  expect_errors(evaluate(ms(0, f32({}, {1}), i64({}, {0}), f32({}, {9}))), {EC::DimOutOfRange});  // no rank-0 promotion
  const Shape eight(8, 1), nine(9, 1);
  EXPECT_TRUE(succeeds(evaluate(ms(0, f32(eight, {0}), i64(eight, {0}), f32(eight, {1})))));
  expect_errors(evaluate(ms(0, f32(nine, {0}), i64(nine, {0}), f32(nine, {1}))), {EC::RankLimit});
  EXPECT_TRUE(succeeds(evaluate(ms(0, kMsSelf, i32({1, 1}, {0}), f32({1, 1}, {9})))));
  expect_errors(evaluate(ms(0, kMsSelf, tensor_of(DType::Int16, {1, 1}, {0}), f32({1, 1}, {9}))), {EC::IndexDtype});
  expect_errors(evaluate(ms(0, kMsSelf, i64({1, 1}, {0}), tensor_of(DType::Float64, {1, 1}, {9}))),
                {EC::DtypeMismatch});
  OpCall bad = ms(0, kMsSelf, i64({1, 1}, {0}), f32({1, 1}, {9}));
  bad.set_arg("reduce", Arg::of_string("sum"));
  expect_errors(evaluate(bad), {EC::InvalidReduce});
}

TEST(ReferenceMindSpore, RankAndShapeFollowTheLetter) {
  expect_errors(evaluate(ms(0, kMsSelf, i64({1}, {0}), f32({1}, {9}))), {EC::RankMismatch});
  expect_errors(evaluate(ms(0, kMsSelf, i64({1, 1}, {0}), f32({1}, {9}))), {EC::RankMismatch});
  // MS-S3 applies along dim too (stricter than torch's T-S4).
  EXPECT_TRUE(succeeds(evaluate(ms(0, kMsSelf, i64({2, 1}, {0, 1}), f32({2, 1}, {7, 8})))));
  expect_errors(evaluate(ms(0, kMsSelf, i64({3, 1}, {0, 1, 0}), f32({3, 1}, {7, 8, 9}))), {EC::ShapeMismatch});
  expect_errors(evaluate(ms(0, kMsSelf, i64({2, 1}, {0, 1}), f32({1, 1}, {7}))), {EC::ShapeMismatch});  // MS-S2
  // MS-E1: empty index returns self even with another rank.
  expect_exact(evaluate(ms(0, kMsSelf, i64({0}, {}), f32({3}, {1, 2, 3}))), {2, 2}, {1, 2, 3, 4});
}

TEST(ReferenceMindSpore, NegativeAndUndefinedIndices) {
  const Tensor self = f32({3}, {0, 0, 0});
  expect_exact(evaluate(ms(0, self, i64({1}, {-1}), f32({1}, {5}))), {3}, {0, 0, 5});
  expect_exact(evaluate(ms(0, self, i64({1}, {-3}), f32({1}, {5}))), {3}, {5, 0, 0});
  EXPECT_TRUE(evaluate(ms(0, self, i64({1}, {-4}), f32({1}, {5}))).unspecified);
  EXPECT_TRUE(evaluate(ms(0, self, i64({1}, {3}), f32({1}, {5}))).unspecified);
  expect_exact(evaluate(ms(0, self, i64({1}, {2}), f32({1}, {5}))), {3}, {0, 0, 5});
  OpCall newer = ms(0, self, i64({1}, {-1}), f32({1}, {5}));
  newer.framework_version = "r2.10";
  EXPECT_TRUE(evaluate(newer).unspecified);
  newer.framework_version = "r2.9";
  EXPECT_TRUE(succeeds(evaluate(newer)));
  newer.framework_version = "latest";
  EXPECT_THROW(evaluate(newer), std::invalid_argument);
}

TEST(ReferenceMindSpore, ValueOverloadsAndVersions) {
  OpCall c = ms_value(0, kMsSelf, i64({1, 1}, {0}), Scalar::of_float(2.5));
  c.framework_version = "2.9";
  expect_exact(evaluate(c), {2, 2}, {2.5, 2, 3, 4});
  c.framework_version = "r2.10";
  expect_errors(evaluate(c), {EC::InvalidArgument});
  expect_errors(evaluate(ms_value(0, tensor_of(DType::Int8, {1}, {0}), i64({1}, {0}), Scalar::of_int(300))),
                {EC::ValueOutOfRange});
  expect_exact(evaluate(ms_value(0, tensor_of(DType::Int32, {1}, {0}), i64({1}, {0}), Scalar::of_float(-2.7))), {1},
               {-2});
}

TEST(ReferenceMindSpore, OverlapUnspecifiedAndDuplicatesUncertain) {
  auto storage = std::make_shared<std::vector<std::byte>>(4);
  const Tensor expanded = Tensor::view(DType::Float32, {2}, {0}, 0, storage);
  EXPECT_TRUE(evaluate(ms(0, expanded, i64({1}, {0}), f32({1}, {1}))).unspecified);
  const Expectation e = evaluate(ms(0, f32({2}, {0, 0}), i64({2}, {1, 1}), f32({2}, {3, 4})));
  ASSERT_TRUE(e.outputs);
  EXPECT_EQ(e.outputs->front().loose.at(1).bits.size(), 2u);
}

// ---------------------------------------------------------------- paddle.scatter
const Tensor kPdX = f32({3, 2}, {1, 1, 2, 2, 3, 3});
const Tensor kPdIndex = i64({4}, {2, 1, 0, 1});
const Tensor kPdUpdates = f32({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});

TEST(ReferencePaddle, Seed004Examples) {
  const Expectation acc = evaluate(paddle(kPdX, kPdIndex, kPdUpdates, false));
  ASSERT_TRUE(acc.outputs);
  const ExpectedTensor& a = acc.outputs->front();
  EXPECT_EQ(values(a.exact), (std::vector<double>{3, 3, 6, 6, 1, 1}));
  EXPECT_EQ(a.loose.size(), 2u);  // row 1: two terms on zero, order unspecified
  EXPECT_TRUE(a.allows(2, bits_from_value(DType::Float32, Value::of_float(6))));
  EXPECT_FALSE(a.allows(2, bits_from_value(DType::Float32, Value::of_float(8))));  // x's old 2 is not included

  const Expectation ow = evaluate(paddle(kPdX, kPdIndex, kPdUpdates, true));
  ASSERT_TRUE(ow.outputs);
  const ExpectedTensor& o = ow.outputs->front();
  EXPECT_EQ(values(o.exact), (std::vector<double>{3, 3, 4, 4, 1, 1}));            // CPU: last writer
  EXPECT_TRUE(o.allows(2, bits_from_value(DType::Float32, Value::of_float(2))));  // GPU alternative
  EXPECT_FALSE(o.allows(2, bits_from_value(DType::Float32, Value::of_float(1))));
  EXPECT_EQ(values(kPdX), (std::vector<double>{1, 1, 2, 2, 3, 3}));
}

TEST(ReferencePaddle, ArgumentRules) {
  expect_errors(evaluate(paddle(f32({}, {1}), i64({1}, {0}), f32({1}, {1}), true)), {EC::InvalidArgument});
  // PD-I3: an [N, 1] index allows the error and the 1-D reading; a [1, 2] one only the error.
  const Expectation column = evaluate(paddle(kPdX, i64({1, 1}, {0}), f32({1, 2}, {5, 5}), true));
  ASSERT_TRUE(column.outputs.has_value()) << column.summary();
  EXPECT_EQ(test::values_of(column.outputs->front().exact), (std::vector<double>{5, 5, 2, 2, 3, 3}));
  EXPECT_TRUE(column.allows_error(EC::InvalidArgument));
  expect_errors(evaluate(paddle(kPdX, i64({1, 2}, {0, 1}), f32({2, 2}, {1, 1, 2, 2}), true)), {EC::InvalidArgument});
  expect_errors(evaluate(paddle(kPdX, tensor_of(DType::Int16, {1}, {0}), f32({1, 2}, {1, 1}), true)), {EC::IndexDtype});
  EXPECT_TRUE(succeeds(evaluate(paddle(kPdX, i32({1}, {0}), f32({1, 2}, {5, 5}), true))));
  expect_errors(evaluate(paddle(kPdX, i64({1}, {0}), tensor_of(DType::Float64, {1, 2}, {1, 1}), true)),
                {EC::DtypeMismatch});
  // PD-S1: [n] + x.shape[1:] with n >= len(index) ("The length of index
  // cannot exceed updates's length"); rows past len(index) are not read.
  expect_errors(evaluate(paddle(kPdX, kPdIndex, f32({3, 2}, {1, 1, 2, 2, 3, 3}), true)), {EC::ShapeMismatch});
  expect_errors(evaluate(paddle(kPdX, kPdIndex, f32({4, 3}, std::vector<double>(12, 1)), true)), {EC::ShapeMismatch});
  expect_errors(evaluate(paddle(kPdX, kPdIndex, f32({4}, {1, 2, 3, 4}), true)), {EC::ShapeMismatch});
  expect_exact(evaluate(paddle(kPdX, i64({2}, {2, 0}), f32({3, 2}, {7, 7, 8, 8, 9, 9}), true)), {3, 2},
               {8, 8, 2, 2, 7, 7});
  expect_exact(evaluate(paddle(kPdX, i64({0}, {}), f32({3, 2}, {7, 7, 8, 8, 9, 9}), true)), {3, 2}, {1, 1, 2, 2, 3, 3});
}

TEST(ReferencePaddle, IndexValues) {
  expect_exact(evaluate(paddle(kPdX, i64({1}, {2}), f32({1, 2}, {9, 9}), true)), {3, 2}, {1, 1, 2, 2, 9, 9});
  expect_errors(evaluate(paddle(kPdX, i64({1}, {3}), f32({1, 2}, {9, 9}), true)), {EC::IndexOutOfBounds});
  EXPECT_TRUE(evaluate(paddle(kPdX, i64({1}, {-1}), f32({1, 2}, {9, 9}), true)).unspecified);
}

TEST(ReferencePaddle, UndocumentedDtypeAllowsResultOrError) {
  const Expectation e =
      evaluate(paddle(tensor_of(DType::Int32, {2}, {1, 2}), i64({1}, {0}), tensor_of(DType::Int32, {1}, {7}), true));
  ASSERT_TRUE(e.outputs);
  EXPECT_EQ(values(e.outputs->front().exact), (std::vector<double>{7, 2}));
  EXPECT_EQ(e.errors, std::vector<EC>{EC::UnsupportedDtype});
  EXPECT_FALSE(e.expects_error());
  EXPECT_TRUE(
      evaluate(paddle(tensor_of(DType::Float64, {2}, {1, 2}), i64({1}, {0}), tensor_of(DType::Float64, {1}, {7}), true))
          .errors.empty());
}

TEST(ReferencePaddle, UnindexedRowsKeepBitsAndSingleTermIsExact) {
  Tensor x = f32({3}, {0, 5, 0});
  x.set_bits_at({0}, 0x80000000);
  x.set_bits_at({2}, 0x7fc00abc);
  const Expectation e = evaluate(paddle(x, i64({1}, {1}), f32({1}, {2.5}), false));
  ASSERT_TRUE(e.outputs);
  EXPECT_EQ(e.outputs->front().exact.to_bits(), (std::vector<uint64_t>{0x80000000, 0x40200000, 0x7fc00abc}));
  EXPECT_TRUE(e.outputs->front().loose.empty());
}

// ---------------------------------------------------------------- dispatch + explain
TEST(ReferenceDispatch, MalformedCallsThrow) {
  OpCall missing = make_call("torch.scatter_", {{"self", f32({1}, {0})}}, 0);
  EXPECT_THROW(evaluate(missing), std::invalid_argument);
  OpCall both = scatter("torch.scatter_", 0, f32({1}, {0}), i64({1}, {0}), f32({1}, {1}));
  both.set_arg("value", Arg::of_scalar(Scalar::of_int(1)));
  EXPECT_THROW(evaluate(both), std::invalid_argument);
  OpCall reduce_on_add = scatter("torch.scatter_add_", 0, f32({1}, {0}), i64({1}, {0}), f32({1}, {1}));
  reduce_on_add.set_arg("reduce", Arg::of_string("add"));
  EXPECT_THROW(evaluate(reduce_on_add), std::invalid_argument);
  EXPECT_THROW(evaluate(make_call("torch.index_add", {}, 0)), std::invalid_argument);
}

TEST(ReferenceDispatch, ExplainNamesChecksWritesAndResult) {
  const OpCall c = scatter("torch.scatter_", 0, i64({2, 1}, {0, 0}), i64({2, 1}, {0, 1}), i64({2, 1}, {3, 4}));
  Trace trace;
  const Expectation e = evaluate(c, &trace);
  const std::vector<std::string> lines = explain_lines(c, e, trace);
  const auto has = [&](const std::string& s) {
    for (const std::string& l : lines)
      if (l.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("index.size(0)=2 <= src.size(0)=2 [T-S3] ok"));
  EXPECT_TRUE(has("src[1][0]=4 -> self[1][0] because index[1][0]=1 on dim 0: self[1][0] = 4"));
  EXPECT_EQ(lines.back(), "result: " + e.summary());
  Trace failing;
  evaluate(gather(1, i64({1, 2}, {1, 2}), i64({1, 1}, {2})), &failing);
  ASSERT_FALSE(failing.checks.empty());
  EXPECT_EQ(failing.checks.back(),
            "index[0][0]=2 in [0, 2) [T-B1] VIOLATED: index 2 is out of bounds for dimension 1 with size 2");
}

}  // namespace
}  // namespace sp
