// reference_take_along_dim_test.cc — the reference's torch.take_along_dim,
// clause by clause (reference/SEMANTICS.md, T-TA*).
//
// Each rule is tested from both sides: what LibTorch 1.13 accepts is
// accepted with its exact result (a value one off is rejected), what it
// refuses is refused with its category and clause, and where the document
// is silent (negative indices T-TA7, a 0-d input with a dim T-TA9) both the
// error and the result are allowed and nothing else.
#include <gtest/gtest.h>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::expect_error;
using test::expect_exact;
using test::f32;
using test::i32;
using test::i64;
using test::only_output;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;

OpCall take_call(Tensor input, Tensor indices, std::optional<int64_t> dim) {
  std::map<std::string, Arg> args;
  if (dim) args["dim"] = Arg::of_int(*dim);
  return call_of("torch.take_along_dim", {{"input", std::move(input)}, {"indices", std::move(indices)}},
                 std::move(args));
}

// A result with no error allowed.
void expect_only(const Expectation& e, const Shape& shape, const std::vector<double>& expected) {
  EXPECT_TRUE(e.errors.empty()) << e.summary();
  expect_exact(e, shape, expected);
}

// The 2x3 matrix 0..5.
Tensor m23() { return f32({2, 3}, {0, 1, 2, 3, 4, 5}); }

TEST(ReferenceTakeAlongDim, DocumentExamples) {
  const Tensor t = i64({2, 3}, {10, 30, 20, 60, 40, 50});
  // take_along_dim(t, argmax(t)) -> tensor([60]): dim None, a 0-d indices.
  expect_only(evaluate(take_call(t, i64({}, {3}), std::nullopt)), {1}, {60});
  // take_along_dim(t, argsort(t, dim=1), dim=1) -> [[10, 20, 30], [40, 50, 60]].
  expect_only(evaluate(take_call(t, i64({2, 3}, {0, 2, 1, 1, 2, 0}), 1)), {2, 3}, {10, 20, 30, 40, 50, 60});
}

TEST(ReferenceTakeAlongDim, BroadcastsBothSidesApartFromDim) {
  // T-TA1, T-TA2, T-TA5 (LibTorch 1.13's results).
  expect_only(evaluate(take_call(m23(), i64({1, 1}, {2}), 1)), {2, 1}, {2, 5});
  expect_only(evaluate(take_call(m23(), i64({1, 3}, {1, 0, 1}), 0)), {1, 3}, {3, 1, 5});
  expect_only(evaluate(take_call(m23(), i64({1, 1}, {1}), 0)), {1, 3}, {3, 4, 5});
  expect_only(evaluate(take_call(f32({1, 3}, {0, 1, 2}), i64({3, 1}, {0, 2, 1}), 1)), {3, 1}, {0, 2, 1});
  expect_only(evaluate(take_call(f32({3, 1}, {0, 1, 2}), i64({2, 2}, {0, 2, 1, 1}), 0)), {2, 2}, {0, 2, 1, 1});
  // Both sides at once, 3-D: input [1, 3, 2], indices [2, 1, 1], dim 2.
  expect_only(evaluate(take_call(f32({1, 3, 2}, {0, 1, 2, 3, 4, 5}), i64({2, 1, 1}, {1, 0}), 2)), {2, 3, 1},
              {1, 3, 5, 0, 2, 4});
  // Longer than input along dim is fine; dim -1 is the last.
  expect_only(evaluate(take_call(m23(), i64({2, 4}, {0, 0, 2, 1, 2, 2, 2, 0}), -1)), {2, 4}, {0, 0, 2, 1, 5, 5, 5, 3});
  // The op table's output shape agrees (what a plugin host preallocates).
  const OpCall c = take_call(f32({1, 3, 2}, {0, 1, 2, 3, 4, 5}), i64({2, 1, 5}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), 2);
  EXPECT_EQ(*output_shape_of(op_spec(c.op), c), (Shape{2, 3, 5}));
  const OpCall none = take_call(m23(), i64({2, 2, 1}, {0, 0, 0, 0}), std::nullopt);
  EXPECT_EQ(*output_shape_of(op_spec(none.op), none), (Shape{4}));
  const OpCall bad = take_call(m23(), i64({3, 1}, {0, 0, 0}), 1);
  EXPECT_FALSE(output_shape_of(op_spec(bad.op), bad).has_value());
}

TEST(ReferenceTakeAlongDim, SizesThatDoNotBroadcast) {
  // T-TA5: equal or a 1 on either side; 0 vs 2 does not broadcast either.
  expect_error(evaluate(take_call(m23(), i64({3, 1}, {0, 0, 0}), 1)), {EC::ShapeMismatch}, "T-TA5");
  expect_error(evaluate(take_call(m23(), i64({2, 2}, {0, 0, 0, 0}), 0)), {EC::ShapeMismatch}, "T-TA5");
  expect_error(evaluate(take_call(m23(), i64({0, 1}, {}), 1)), {EC::ShapeMismatch}, "T-TA5");
  // 1 vs 0 broadcasts to 0: nothing is read, so no bound applies (T-TA6).
  expect_only(evaluate(take_call(f32({1, 3}, {0, 1, 2}), i64({0, 1}, {}), 1)), {0, 1}, {});
  expect_only(evaluate(take_call(f32({0, 3}, {}), i64({1, 2}, {1, 7}), 1)), {0, 2}, {});
}

TEST(ReferenceTakeAlongDim, RankDtypeAndDimInLibTorchOrder) {
  // T-TA3 (physical ranks), T-TA4 (int64 only, empty too), T-D1.
  expect_error(evaluate(take_call(m23(), i64({2}, {0, 1}), 1)), {EC::RankMismatch}, "T-TA3");
  expect_error(evaluate(take_call(f32({2}, {1, 2}), i64({}, {1}), 0)), {EC::RankMismatch}, "T-TA3");
  for (DType t : kAllDTypes) {
    if (t == DType::Int64) continue;
    expect_error(evaluate(take_call(m23(), tensor_of(t, {2, 1}, {0, 1}), 1)), {EC::IndexDtype}, "T-TA4");
    expect_error(evaluate(take_call(m23(), tensor_of(t, {2, 0}, {}), 1)), {EC::IndexDtype}, "T-TA4");
    // Empty without dim: the same rule, cited as T-TA12 (LibTorch 1.13 accepts it there).
    expect_error(evaluate(take_call(m23(), tensor_of(t, {0}, {}), std::nullopt)), {EC::IndexDtype}, "T-TA12");
    expect_error(evaluate(take_call(m23(), tensor_of(t, {1}, {0}), std::nullopt)), {EC::IndexDtype}, "T-TA4");
  }
  expect_error(evaluate(take_call(m23(), i64({2, 1}, {0, 0}), 2)), {EC::DimOutOfRange}, "T-D1");
  expect_error(evaluate(take_call(m23(), i64({2, 1}, {0, 0}), -3)), {EC::DimOutOfRange}, "T-D1");
  // Every violated rule is listed, in LibTorch 1.13's order; the broadcast
  // rule runs only when rank and dim hold, the bounds whenever the dim holds
  // (C-1: a backend may check them first; every value then counts).
  expect_error(evaluate(take_call(m23(), i32({3}, {9, 9, 9}), 4)),
               {EC::RankMismatch, EC::IndexDtype, EC::DimOutOfRange}, "T-TA3");
  expect_error(evaluate(take_call(m23(), i32({3, 1}, {9, 9, 9}), 1)),
               {EC::IndexDtype, EC::ShapeMismatch, EC::IndexOutOfBounds}, "T-TA4");
  expect_error(evaluate(take_call(m23(), i64({3, 1}, {9, 9, 9}), 1)), {EC::ShapeMismatch, EC::IndexOutOfBounds},
               "T-TA5");
  expect_error(evaluate(take_call(m23(), i64({3, 1}, {0, 1, 2}), 1)), {EC::ShapeMismatch}, "T-TA5");
}

TEST(ReferenceTakeAlongDim, BoundsAndNegativeIndices) {
  // T-TA6: [-s, s) along dim; outside is an error.
  expect_only(evaluate(take_call(m23(), i64({2, 2}, {0, 2, 2, 0}), 1)), {2, 2}, {0, 2, 5, 3});
  for (double bad : {3.0, -4.0})
    expect_error(evaluate(take_call(m23(), i64({2, 1}, {0, bad}), 1)), {EC::IndexOutOfBounds}, "T-TA6");
  expect_error(evaluate(take_call(m23(), i64({1, 1}, {2}), 0)), {EC::IndexOutOfBounds}, "T-TA6");
  expect_error(evaluate(take_call(f32({2, 0}, {}), i64({2, 1}, {0, 0}), 1)), {EC::IndexOutOfBounds}, "T-TA6");
  // An out-of-range value beats a negative one: still an error.
  expect_error(evaluate(take_call(m23(), i64({2, 1}, {-1, 3}), 1)), {EC::IndexOutOfBounds}, "T-TA6");
  // T-TA7: [-s, 0) is either LibTorch's error or the wrapped result.
  for (double v : {-1.0, -3.0}) {
    const Expectation e = evaluate(take_call(m23(), i64({2, 1}, {v, 0}), 1));
    EXPECT_FALSE(e.expects_error()) << e.summary();
    EXPECT_FALSE(e.unspecified) << e.summary();
    EXPECT_TRUE(e.allows_error(EC::IndexOutOfBounds)) << e.summary();
    EXPECT_FALSE(e.allows_error(EC::ShapeMismatch)) << e.summary();
    EXPECT_EQ(e.error_clause, "T-TA7");
    expect_exact(e, {2, 1}, {v + 3, 3});
  }
  const Expectation none = evaluate(take_call(m23(), i64({2}, {-6, -1}), std::nullopt));
  EXPECT_TRUE(none.allows_error(EC::IndexOutOfBounds)) << none.summary();
  expect_exact(none, {2}, {0, 5});
  expect_error(evaluate(take_call(m23(), i64({1}, {-7}), std::nullopt)), {EC::IndexOutOfBounds}, "T-TA6");
  expect_error(evaluate(take_call(m23(), i64({1}, {6}), std::nullopt)), {EC::IndexOutOfBounds}, "T-TA6");
}

TEST(ReferenceTakeAlongDim, DimNoneFlattensBoth) {
  // T-TA8: input.flatten()[indices.flatten()], 1-D, any ranks.
  const Tensor x3 = f32({2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  expect_only(evaluate(take_call(x3, i64({2, 2}, {11, 0, 7, 3}), std::nullopt)), {4}, {11, 0, 7, 3});
  expect_only(evaluate(take_call(m23(), i64({2, 1, 1}, {1, 4}), std::nullopt)), {2}, {1, 4});
  expect_only(evaluate(take_call(f32({}, {7}), i64({3}, {0, 0, 0}), std::nullopt)), {3}, {7, 7, 7});
  expect_only(evaluate(take_call(f32({}, {7}), i64({}, {0}), std::nullopt)), {1}, {7});
  expect_only(evaluate(take_call(m23(), i64({2, 0}, {}), std::nullopt)), {0}, {});
  expect_error(evaluate(take_call(f32({0, 3}, {}), i64({1}, {0}), std::nullopt)), {EC::IndexOutOfBounds}, "T-TA6");
  // A transposed input is read in its logical row-major order.
  const Tensor t = test::relaid(m23(), test::Layout::Transposed);
  expect_only(evaluate(take_call(t, i64({3}, {1, 3, 5}), std::nullopt)), {3}, {1, 3, 5});
}

TEST(ReferenceTakeAlongDim, ZeroDimInputWithADim) {
  // T-TA9: the T-D2 result (0-d out) or a dim error, nothing else.
  const Tensor scalar = f32({}, {5.5});
  for (int64_t dim : {0, -1}) {
    const Expectation e = evaluate(take_call(scalar, i64({}, {0}), dim));
    expect_exact(e, {}, {5.5});
    EXPECT_TRUE(e.allows_error(EC::DimOutOfRange)) << e.summary();
    EXPECT_TRUE(e.allows_error(EC::ShapeMismatch)) << e.summary();
    EXPECT_FALSE(e.allows_error(EC::IndexOutOfBounds)) << e.summary();
  }
  const Expectation oob = evaluate(take_call(scalar, i64({}, {1}), 0));
  ASSERT_TRUE(oob.expects_error()) << oob.summary();
  EXPECT_EQ(oob.errors, (std::vector<EC>{EC::IndexOutOfBounds, EC::DimOutOfRange, EC::ShapeMismatch}));
  expect_error(evaluate(take_call(scalar, i64({}, {0}), 1)), {EC::DimOutOfRange}, "T-D1");
}

TEST(ReferenceTakeAlongDim, BitsAreCopiedExactlyForEveryDtype) {
  // T-TA10, C-4: NaN payloads and -0.0 survive.
  Tensor input = Tensor::zeros(DType::Float32, {1, 3});
  input.set_bits_at({0, 0}, 0x7fc00001);
  input.set_bits_at({0, 1}, 0x80000000);
  input.set_bits_at({0, 2}, 0x7f800001);
  const Expectation e = evaluate(take_call(input, i64({2, 2}, {2, 1, 0, 1}), 1));
  const ExpectedTensor& out = only_output(e);
  EXPECT_EQ(out.exact.to_bits(), (std::vector<uint64_t>{0x7f800001, 0x80000000, 0x7fc00001, 0x80000000}));
  EXPECT_FALSE(out.allows(2, 0x7fc00000));
  EXPECT_FALSE(out.allows(1, 0));
  for (DType t : kAllDTypes) {
    const Expectation each = evaluate(take_call(tensor_of(t, {2}, {1, 0}), i64({2}, {1, 1}), 0));
    expect_exact(each, {2}, {0, 0});
    EXPECT_EQ(only_output(each).exact.dtype(), t);
    // C-7: torch documents no uint16/32/64: unsupported_dtype is allowed beside the result.
    const bool undocumented = t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
    EXPECT_EQ(each.errors, undocumented ? std::vector<EC>{EC::UnsupportedDtype} : std::vector<EC>{}) << dtype_name(t);
  }
}

}  // namespace
}  // namespace sp
