// reference_scatter_reduce_test.cc — the reference's torch.scatter_reduce_ /
// torch.scatter_reduce, clause by clause (reference/SEMANTICS.md, T-RD*).
//
// Every allowed set is tested from both sides: soundness (what LibTorch
// 1.13 and other legitimate evaluation orders produce is allowed) and
// tightness (a value just outside is rejected), so loosening or tightening
// a rule fails a test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::f32;
using test::i64;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;
using test::expect_errors;
using test::expect_exact;
using test::only_output;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

OpCall reduce_call(Tensor self, int64_t dim, Tensor index, Tensor src, const std::string& reduce,
                   std::optional<bool> include_self = std::nullopt, const std::string& op = "torch.scatter_reduce") {
  std::map<std::string, Arg> args{{"dim", Arg::of_int(dim)}, {"reduce", Arg::of_string(reduce)}};
  if (include_self) args.emplace("include_self", Arg::of_bool(*include_self));
  return call_of(op, {{"self", self}, {"index", index}, {"src", src}}, args);
}

uint64_t bits_of(DType t, double v) {
  return bits_from_value(t, is_floating(t) ? Value::of_float(v) : Value::of_int(static_cast<int64_t>(v)));
}
bool allows(const Expectation& e, int64_t linear, DType t, double v) {
  return only_output(e).allows(linear, bits_of(t, v));
}

// The representative (LibTorch's visit order) equals `expected`, which is
// allowed; float reductions of >= 2 operations may be loose around it.
void expect_values(const Expectation& e, const std::vector<double>& expected) {
  const ExpectedTensor& out = only_output(e);
  EXPECT_EQ(values_of(out.exact), expected);
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_TRUE(out.allows(static_cast<int64_t>(k), bits_of(out.exact.dtype(), expected[k]))) << k;
}

// The document's example: index [0, 1, 0, 1, 2, 1], src 1..6.
Tensor doc_index() { return i64({6}, {0, 1, 0, 1, 2, 1}); }
Tensor doc_src() { return f32({6}, {1, 2, 3, 4, 5, 6}); }

TEST(ReferenceScatterReduce, DocumentExamples) {
  const Tensor input = f32({4}, {1, 2, 3, 4}), input2 = f32({4}, {5, 4, 3, 2});
  expect_values(evaluate(reduce_call(input, 0, doc_index(), doc_src(), "sum")), {5, 14, 8, 4});
  expect_values(evaluate(reduce_call(input, 0, doc_index(), doc_src(), "sum", false)), {4, 12, 5, 4});
  expect_exact(evaluate(reduce_call(input2, 0, doc_index(), doc_src(), "amax")), {5, 6, 5, 2});
  expect_exact(evaluate(reduce_call(input2, 0, doc_index(), doc_src(), "amax", false)), {3, 6, 5, 2});
}

TEST(ReferenceScatterReduce, IncludeSelfDefaultsToTrueAndInPlaceWritesSelf) {
  const Expectation e = evaluate(
      reduce_call(f32({2}, {1, 1}), 0, i64({1}, {0}), f32({1}, {2}), "prod", std::nullopt, "torch.scatter_reduce_"));
  EXPECT_EQ(only_output(e).name, "self");
  expect_exact(e, {2, 1});
  EXPECT_EQ(only_output(evaluate(reduce_call(f32({1}, {1}), 0, i64({1}, {0}), f32({1}, {2}), "prod"))).name, "out");
}

// T-RD2: an element no index points at keeps self even with include_self=False.
TEST(ReferenceScatterReduce, NeverIndexedElementsKeepSelf) {
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    const Expectation e = evaluate(reduce_call(f32({3}, {7, -0.0, 9}), 0, i64({1}, {2}), f32({1}, {1}), reduce, false));
    expect_exact(e, {7, 0, 1});
    EXPECT_TRUE(allows(e, 1, DType::Float32, -0.0)) << reduce;
    EXPECT_FALSE(allows(e, 1, DType::Float32, 0.0)) << reduce << ": untouched -0.0 keeps its bits";
  }
  expect_exact(evaluate(reduce_call(i64({3}, {7, 8, 9}), 0, i64({1}, {1}), i64({1}, {1}), "mean", false)), {7, 1, 9});
}

// T-RD4: a float sum over duplicates admits every order and nothing far off.
TEST(ReferenceScatterReduce, FloatSumOverDuplicatesIsAnIntervalAroundEveryOrder) {
  const Expectation e =
      evaluate(reduce_call(f32({1}, {0}), 0, i64({3}, {0, 0, 0}), f32({3}, {1e8, 1, -1e8}), "sum", false));
  const ExpectedTensor& out = only_output(e);
  ASSERT_EQ(out.loose.size(), 1u);
  const float sequential = (1e8f + 1.0f) - 1e8f;  // LibTorch's visit order: 0
  EXPECT_TRUE(out.allows(0, bits_of(DType::Float32, sequential)));
  EXPECT_TRUE(out.allows(0, bits_of(DType::Float32, 1.0)));  // (1e8 - 1e8) + 1
  EXPECT_FALSE(out.allows(0, bits_of(DType::Float32, 100.0)));
  EXPECT_FALSE(out.allows(0, bits_of(DType::Float32, -100.0)));
  // One term into self: a single correctly rounded add, exact.
  expect_exact(evaluate(reduce_call(f32({1}, {0.5}), 0, i64({1}, {0}), f32({1}, {0.25}), "sum")), {0.75});
}

TEST(ReferenceScatterReduce, FloatSumAndProdAdmitRandomOrders) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-4, 4);
  for (int round = 0; round < 50; ++round) {
    std::vector<double> terms;
    for (int k = 0; k < 6; ++k) terms.push_back(d(rng));
    for (const char* reduce : {"sum", "prod"}) {
      for (bool include_self : {true, false}) {
        const float self = d(rng);
        const Expectation e = evaluate(reduce_call(f32({1}, {self}), 0, i64({6}, std::vector<double>(6, 0)),
                                                   f32({6}, terms), reduce, include_self));
        std::vector<float> order(terms.begin(), terms.end());
        for (int perm = 0; perm < 10; ++perm) {
          std::shuffle(order.begin(), order.end(), rng);
          const bool sum = std::string(reduce) == "sum";
          float acc = include_self ? self : (sum ? 0.0f : 1.0f);
          for (float t : order) acc = sum ? acc + t : acc * t;
          EXPECT_TRUE(allows(e, 0, DType::Float32, acc)) << reduce << " " << acc;
        }
      }
    }
  }
}

// T-RD6: NaN propagates; ±inf compare as numbers; a tie of zeros allows both.
TEST(ReferenceScatterReduce, AmaxAminPropagateNaNAndHandleInfinities) {
  const DType f = DType::Float32;
  const Expectation nan_src = evaluate(reduce_call(f32({1}, {1}), 0, i64({1}, {0}), f32({1}, {kNaN}), "amax"));
  EXPECT_TRUE(only_output(nan_src).allows(0, 0x7fc00001));  // any NaN
  EXPECT_FALSE(allows(nan_src, 0, f, 1));
  const Expectation nan_self = evaluate(reduce_call(f32({1}, {kNaN}), 0, i64({2}, {0, 0}), f32({2}, {3, 2}), "amin"));
  EXPECT_TRUE(allows(nan_self, 0, f, kNaN));
  EXPECT_FALSE(allows(nan_self, 0, f, 2));
  // include_self=False leaves self's NaN out.
  expect_exact(evaluate(reduce_call(f32({1}, {kNaN}), 0, i64({2}, {0, 0}), f32({2}, {3, 2}), "amax", false)), {3});
  const Expectation neg_inf =
      evaluate(reduce_call(f32({1}, {0}), 0, i64({2}, {0, 0}), f32({2}, {-kInf, -kInf}), "amax", false));
  expect_exact(neg_inf, {-kInf});
  EXPECT_FALSE(allows(neg_inf, 0, f, std::numeric_limits<float>::lowest()));
  expect_exact(evaluate(reduce_call(f32({1}, {0}), 0, i64({2}, {0, 0}), f32({2}, {kInf, kInf}), "amin", false)),
               {kInf});
  expect_exact(evaluate(reduce_call(f32({1}, {kInf}), 0, i64({1}, {0}), f32({1}, {3}), "amin")), {3});
  const Expectation tie = evaluate(reduce_call(f32({1}, {0.0}), 0, i64({1}, {0}), f32({1}, {-0.0}), "amax"));
  EXPECT_TRUE(allows(tie, 0, f, 0.0));
  EXPECT_TRUE(allows(tie, 0, f, -0.0));
  const Expectation same_zero = evaluate(reduce_call(f32({1}, {0.0}), 0, i64({1}, {0}), f32({1}, {0.0}), "amax"));
  EXPECT_FALSE(allows(same_zero, 0, f, -0.0));
  expect_exact(evaluate(reduce_call(i64({1}, {0}), 0, i64({2}, {0, 0}), i64({2}, {-9, -5}), "amax", false)), {-5});
}

// Integers compare as integers, not through double (2^62 + 1 > 2^62).
TEST(ReferenceScatterReduce, IntegerAmaxAminCompareExactly) {
  const int64_t big = int64_t{1} << 62;
  Tensor src = Tensor::zeros(DType::Int64, {2});
  src.set_bits_at({0}, static_cast<uint64_t>(big + 1));
  src.set_bits_at({1}, static_cast<uint64_t>(big));
  const Tensor index = i64({2}, {0, 0});
  const Expectation amax = evaluate(reduce_call(i64({1}, {0}), 0, index, src, "amax", false));
  EXPECT_TRUE(only_output(amax).allows(0, static_cast<uint64_t>(big + 1)));
  EXPECT_FALSE(only_output(amax).allows(0, static_cast<uint64_t>(big)));
  const Expectation amin = evaluate(reduce_call(i64({1}, {0}), 0, index, src, "amin", false));
  EXPECT_TRUE(only_output(amin).allows(0, static_cast<uint64_t>(big)));
  EXPECT_FALSE(only_output(amin).allows(0, static_cast<uint64_t>(big + 1)));
}

// T-RD5: the count includes self when include_self.
TEST(ReferenceScatterReduce, MeanCountsSelfWhenIncluded) {
  const DType f = DType::Float32;
  const Expectation with_self = evaluate(reduce_call(f32({2}, {1, 1}), 0, i64({2}, {0, 0}), f32({2}, {2, 3}), "mean"));
  EXPECT_TRUE(allows(with_self, 0, f, 2.0));
  EXPECT_FALSE(allows(with_self, 0, f, 2.5));
  EXPECT_FALSE(allows(with_self, 0, f, std::nextafter(2.0f, 3.0f) + 1e-5));
  EXPECT_TRUE(allows(with_self, 1, f, 1.0));
  const Expectation without =
      evaluate(reduce_call(f32({2}, {1, 1}), 0, i64({2}, {0, 0}), f32({2}, {2, 3}), "mean", false));
  EXPECT_TRUE(allows(without, 0, f, 2.5));
  EXPECT_FALSE(allows(without, 0, f, 2.0));
  expect_exact(evaluate(reduce_call(i64({1}, {1}), 0, i64({2}, {0, 0}), i64({2}, {2, 4}), "mean")), {2});  // 7/3
  expect_exact(evaluate(reduce_call(i64({1}, {1}), 0, i64({2}, {0, 0}), i64({2}, {2, 4}), "mean", false)), {3});
  // One term and no self: that term, exactly.
  expect_exact(evaluate(reduce_call(f32({1}, {9}), 0, i64({1}, {0}), f32({1}, {0.1}), "mean", false)), {0.1f});
}

TEST(ReferenceScatterReduce, FloatMeanAdmitsSumThenDivideAndDivideThenSum) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-100, 100);
  for (int round = 0; round < 100; ++round) {
    std::vector<double> terms;
    for (int k = 0; k < 5; ++k) terms.push_back(d(rng));
    const float self = d(rng);
    const Expectation e =
        evaluate(reduce_call(f32({1}, {self}), 0, i64({5}, std::vector<double>(5, 0)), f32({5}, terms), "mean"));
    std::vector<float> all(terms.begin(), terms.end());
    all.push_back(self);
    double exact = 0;
    for (float t : all) exact += t;
    exact /= 6;
    for (int perm = 0; perm < 5; ++perm) {
      std::shuffle(all.begin(), all.end(), rng);
      float sum = 0, divided = 0;
      for (float t : all) sum += t;
      for (float t : all) divided += t / 6.0f;
      EXPECT_TRUE(allows(e, 0, DType::Float32, sum / 6.0f));
      EXPECT_TRUE(allows(e, 0, DType::Float32, divided));
    }
    const double width = 1e-3 + std::fabs(exact) * 1e-3;
    EXPECT_FALSE(allows(e, 0, DType::Float32, exact + width));
    EXPECT_FALSE(allows(e, 0, DType::Float32, exact - width));
  }
}

TEST(ReferenceScatterReduce, FloatMeanOfLargeHalfValuesAllowsOverflowAndTrueMean) {
  const Tensor self = tensor_of(DType::Float16, {1}, {0});
  const Tensor src = tensor_of(DType::Float16, {2}, {60000, 60000});
  const Expectation e = evaluate(reduce_call(self, 0, i64({2}, {0, 0}), src, "mean", false));
  EXPECT_TRUE(allows(e, 0, DType::Float16, kInf));   // LibTorch: the half sum overflows
  EXPECT_TRUE(allows(e, 0, DType::Float16, 60000));  // a wider accumulator
  EXPECT_FALSE(allows(e, 0, DType::Float16, 30000));
}

// T-RD5: integer mean is floor division (LibTorch 1.13 div_(..., "floor")).
TEST(ReferenceScatterReduce, IntegerMeanFloorsTowardMinusInfinity) {
  const Expectation e = evaluate(reduce_call(i64({2}, {0, 0}), 0, i64({2}, {0, 0}), i64({2}, {-3, -4}), "mean", false));
  expect_exact(e, {-4, 0});
  EXPECT_FALSE(allows(e, 0, DType::Int64, -3));  // truncation
  expect_exact(evaluate(reduce_call(i64({1}, {0}), 0, i64({2}, {0, 0}), i64({2}, {-3, -4}), "mean")), {-3});  // -7/3
  expect_exact(evaluate(reduce_call(i64({1}, {0}), 0, i64({2}, {0, 0}), i64({2}, {3, 4}), "mean", false)), {3});
}

TEST(ReferenceScatterReduce, IntegerMeanWhoseSumWrapsAllowsWrappedAndTrueMean) {
  const Tensor self = tensor_of(DType::Int8, {1}, {0});
  const Tensor src = tensor_of(DType::Int8, {2}, {100, 100});
  const Expectation e = evaluate(reduce_call(self, 0, i64({2}, {0, 0}), src, "mean", false));
  EXPECT_TRUE(allows(e, 0, DType::Int8, -28));  // LibTorch 1.13: (100 + 100) wraps to -56
  EXPECT_TRUE(allows(e, 0, DType::Int8, 100));
  EXPECT_FALSE(allows(e, 0, DType::Int8, 99));
  // Integer sums wrap exactly, as scatter_add_'s do.
  expect_exact(evaluate(reduce_call(self, 0, i64({2}, {0, 0}), src, "sum", false)), {-56});
}

TEST(ReferenceScatterReduce, BoolReductionsAreLogicalAndBoolMeanIsUnsupported) {
  const auto b = [](const Shape& s, const std::vector<double>& v) { return tensor_of(DType::Bool, s, v); };
  const Tensor self = b({2}, {0, 1}), index = i64({3}, {0, 1, 1}), src = b({3}, {1, 0, 1});
  expect_exact(evaluate(reduce_call(self, 0, index, src, "sum")), {1, 1});
  expect_exact(evaluate(reduce_call(self, 0, index, src, "prod")), {0, 0});
  expect_exact(evaluate(reduce_call(self, 0, index, src, "prod", false)), {1, 0});
  expect_exact(evaluate(reduce_call(self, 0, index, src, "amax")), {1, 1});
  expect_exact(evaluate(reduce_call(self, 0, index, src, "amin", false)), {1, 0});
  const Expectation mean = evaluate(reduce_call(self, 0, index, src, "mean"));
  expect_errors(mean, {EC::UnsupportedDtype});
  EXPECT_EQ(mean.error_clause, "T-RD7");
  expect_errors(evaluate(reduce_call(self, 0, i64({0}, {}), b({0}, {}), "mean")), {EC::UnsupportedDtype});
  // With a bad index too, either error: LibTorch dispatches on the dtype
  // first, but with include_self=False its identity fill checks the bounds
  // first. T-RD7 stays the primary error.
  const Expectation both = evaluate(reduce_call(self, 0, i64({1}, {7}), b({1}, {1}), "mean"));
  expect_errors(both, {EC::UnsupportedDtype, EC::IndexOutOfBounds});
  EXPECT_EQ(both.error_clause, "T-RD7");
}

TEST(ReferenceScatterReduce, ReduceMustBeOneOfTheDocumentedStrings) {
  for (const char* bad : {"add", "Sum", "max", "multiply", ""}) {
    const Expectation e = evaluate(reduce_call(f32({1}, {0}), 0, i64({1}, {0}), f32({1}, {1}), bad));
    expect_errors(e, {EC::InvalidReduce});
    EXPECT_EQ(e.error_message, "reduce argument must be either sum, prod, mean, amax or amin.");
    EXPECT_EQ(e.error_clause, "T-RD3");
  }
  // An empty index does not skip it.
  expect_errors(evaluate(reduce_call(f32({1}, {0}), 0, i64({0}, {}), f32({1}, {1}), "add")), {EC::InvalidReduce});
}

TEST(ReferenceScatterReduce, ChecksRunInLibTorchOrder) {
  const Tensor self = f32({3, 4}, std::vector<double>(12, 0)), index = i64({2, 2}, {0, 1, 2, 0});
  const Tensor src = f32({2, 3}, std::vector<double>(6, 1));
  expect_errors(evaluate(reduce_call(self, 2, index, src, "sum")), {EC::DimOutOfRange});
  const Tensor index32 = tensor_of(DType::Int32, {2, 2}, {0, 1, 2, 0});
  const Tensor src64 = tensor_of(DType::Float64, {2, 3}, std::vector<double>(6, 1));
  expect_errors(evaluate(reduce_call(self, 0, index32, src64, "sum")), {EC::IndexDtype, EC::DtypeMismatch});
  expect_errors(evaluate(reduce_call(self, 0, index, src64, "bad")), {EC::DtypeMismatch, EC::InvalidReduce});
  expect_errors(evaluate(reduce_call(self, 0, index, f32({2, 1}, {1, 1}), "sum")), {EC::ShapeMismatch});
  expect_errors(evaluate(reduce_call(f32({1, 1}, {0}), 0, index, src, "sum")),
                {EC::ShapeMismatch, EC::IndexOutOfBounds});
  expect_errors(evaluate(reduce_call(self, 0, i64({2}, {0, 1}), f32({2}, {1, 1}), "sum")), {EC::RankMismatch});
  // Along dim, index may be longer than self (measured).
  expect_values(evaluate(reduce_call(f32({1, 2}, {0, 0}), 0, i64({3, 2}, std::vector<double>(6, 0)),
                                     f32({3, 2}, std::vector<double>(6, 1)), "sum")),
                {3, 3});
  // Bounds whenever the dim is valid (C-1: any violated rule may be
  // reported); negative values are out of bounds.
  expect_errors(evaluate(reduce_call(self, 0, i64({1, 1}, {9}), src, "bad")),
                {EC::InvalidReduce, EC::IndexOutOfBounds});
  expect_errors(evaluate(reduce_call(self, 0, i64({1, 1}, {2}), src, "bad")), {EC::InvalidReduce});
  const Expectation oob = evaluate(reduce_call(self, 0, i64({1, 1}, {-1}), src, "sum"));
  expect_errors(oob, {EC::IndexOutOfBounds});
  EXPECT_EQ(oob.error_message, "index -1 is out of bounds for dimension 0 with size 3");
}

TEST(ReferenceScatterReduce, OverlapIsAnErrorInPlaceOnly) {
  auto storage = std::make_shared<std::vector<std::byte>>(4);
  const Tensor expanded = Tensor::view(DType::Float32, {3}, {0}, 0, storage);
  expect_errors(
      evaluate(reduce_call(expanded, 0, i64({1}, {0}), f32({1}, {1}), "bad", std::nullopt, "torch.scatter_reduce_")),
      {EC::OverlappingOutput, EC::InvalidReduce});
  expect_errors(
      evaluate(reduce_call(expanded, 0, i64({0}, {}), f32({1}, {1}), "sum", std::nullopt, "torch.scatter_reduce_")),
      {EC::OverlappingOutput});
  expect_exact(evaluate(reduce_call(expanded, 0, i64({1}, {0}), f32({1}, {1}), "sum")), {1, 0, 0});
}

// T-E1: an empty index reads and writes nothing, and skips the index rules.
TEST(ReferenceScatterReduce, EmptyIndexIsANoOp) {
  const Tensor self = f32({2, 2}, {1, 2, 3, 4});
  const Tensor empty32 = tensor_of(DType::Int32, {0}, {});
  expect_exact(evaluate(reduce_call(self, 0, empty32, f32({1}, {9}), "amin", false)), {1, 2, 3, 4});
  expect_exact(evaluate(reduce_call(self, 1, i64({0, 5}, {}), f32({1}, {9}), "mean")), {1, 2, 3, 4});
  expect_errors(evaluate(reduce_call(self, 0, i64({0}, {}), tensor_of(DType::Float64, {1}, {9}), "sum")),
                {EC::DtypeMismatch});
  expect_errors(evaluate(reduce_call(self, 7, i64({0}, {}), f32({1}, {9}), "sum")), {EC::DimOutOfRange});
}

// T-D2: rank 0 counts as shape [1].
TEST(ReferenceScatterReduce, RankZeroCountsAsOneElement) {
  const Tensor self = tensor_of(DType::Float32, {}, {5}), zero = i64({}, {0}), two = tensor_of(DType::Float32, {}, {2});
  expect_exact(evaluate(reduce_call(self, 0, zero, two, "sum")), {7});
  expect_values(evaluate(reduce_call(self, -1, zero, two, "mean")), {3.5});
  expect_exact(evaluate(reduce_call(self, 0, zero, two, "amin", false)), {2});
  expect_exact(evaluate(reduce_call(self, 0, i64({1}, {0}), f32({1}, {2}), "prod")), {10});
  expect_errors(evaluate(reduce_call(self, 1, zero, two, "amax")), {EC::DimOutOfRange});
  expect_errors(evaluate(reduce_call(self, 0, i64({}, {1}), two, "amax")), {EC::IndexOutOfBounds});
}

// A lone -0.0 with include_self=False: LibTorch starts from +0 (+0 + -0 = +0).
TEST(ReferenceScatterReduce, LoneNegativeZeroSumAllowsEitherZero) {
  for (const char* reduce : {"sum", "mean"}) {
    const Expectation e = evaluate(reduce_call(f32({1}, {5}), 0, i64({1}, {0}), f32({1}, {-0.0}), reduce, false));
    EXPECT_TRUE(allows(e, 0, DType::Float32, 0.0)) << reduce;
    EXPECT_TRUE(allows(e, 0, DType::Float32, -0.0)) << reduce;
    EXPECT_FALSE(allows(e, 0, DType::Float32, 5.0)) << reduce;
  }
  const Expectation prod = evaluate(reduce_call(f32({1}, {5}), 0, i64({1}, {0}), f32({1}, {-0.0}), "prod", false));
  EXPECT_FALSE(allows(prod, 0, DType::Float32, 0.0));  // 1 * -0 = -0
}

// T-RD10: only "mean" may change an untouched NaN (LibTorch divides every
// element by its count, 1 there); other reductions keep its exact bits.
TEST(ReferenceScatterReduce, MeanMayRequietAnUntouchedNaNOtherReductionsMayNot) {
  const uint64_t snan = 0x7f800001, quieted = 0x7fc00001;
  Tensor self = f32({2}, {0, 0});
  self.set_bits_at({0}, snan);
  for (const char* reduce : {"sum", "prod", "amax", "amin", "mean"}) {
    const Expectation e = evaluate(reduce_call(self, 0, i64({1}, {1}), f32({1}, {1}), reduce));
    EXPECT_TRUE(only_output(e).allows(0, snan)) << reduce;
    EXPECT_EQ(only_output(e).allows(0, quieted), std::string(reduce) == "mean") << reduce;
  }
  const Expectation empty = evaluate(reduce_call(self, 0, i64({0}, {}), f32({1}, {1}), "mean"));
  EXPECT_TRUE(only_output(empty).allows(0, quieted));
  EXPECT_FALSE(only_output(empty).allows(1, bits_of(DType::Float32, -0.0)));  // 0 / 1 stays +0
}

TEST(ReferenceScatterReduce, LayoutsDoNotChangeTheAnswer) {
  const Tensor self = f32({2, 3}, {1, 2, 3, 4, 5, 6}), index = i64({2, 2}, {1, 0, 0, 1});
  const Tensor src = f32({2, 2}, {10, 20, 30, 40});
  const std::vector<double> expected = values_of(only_output(evaluate(reduce_call(self, 0, index, src, "amax"))).exact);
  EXPECT_EQ(expected, (std::vector<double>{30, 20, 3, 10, 40, 6}));
  for (test::Layout layout : test::kLayouts) {
    const Expectation e = evaluate(
        reduce_call(test::relaid(self, layout), 0, test::relaid(index, layout), test::relaid(src, layout), "amax"));
    EXPECT_EQ(values_of(only_output(e).exact), expected);
  }
}

TEST(ReferenceScatterReduce, ExplainTracesEveryTerm) {
  Trace trace;
  const Expectation e = evaluate(reduce_call(f32({2}, {1, 1}), 0, i64({2}, {0, 0}), f32({2}, {2, 3}), "mean"), &trace);
  ASSERT_EQ(trace.writes.size(), 2u);
  EXPECT_EQ(trace.writes[1].source, "src[1]=3.0");
  EXPECT_EQ(trace.writes[1].effect, "out[0] mean+= 3.0");
  const std::vector<std::string> lines =
      explain_lines(reduce_call(f32({2}, {1, 1}), 0, i64({2}, {0, 0}), f32({2}, {2, 3}), "mean"), e, trace);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("T-RD3") != std::string::npos; }));
}

}  // namespace
}  // namespace sp
