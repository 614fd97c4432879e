// reference_index_select_test.cc — the reference's torch.index_select,
// clause by clause (reference/SEMANTICS.md, T-IS*).
//
// Each rule is tested from both sides: the calls LibTorch 1.13 accepts are
// accepted with its exact result (and a value one off is rejected), and the
// calls it refuses are refused with its category and clause, so loosening
// or tightening a rule fails a test.
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

OpCall select_call(Tensor input, int64_t dim, Tensor index) {
  return call_of("torch.index_select", {{"input", std::move(input)}, {"index", std::move(index)}},
                 {{"dim", Arg::of_int(dim)}});
}

// The 3x4 matrix 0..11.
Tensor m34() { return f32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}); }

TEST(ReferenceIndexSelect, DocumentExample) {
  const Tensor x = f32(
      {3, 4}, {0.1427, 0.0231, -0.5414, -1.0009, -0.4664, 0.2647, -0.1228, -1.1068, -1.1734, -0.6571, 0.7230, -0.6004});
  const Expectation rows = evaluate(select_call(x, 0, i64({2}, {0, 2})));
  EXPECT_EQ(only_output(rows).exact.to_bits(),
            f32({2, 4}, {0.1427, 0.0231, -0.5414, -1.0009, -1.1734, -0.6571, 0.7230, -0.6004}).to_bits());
  const Expectation cols = evaluate(select_call(x, 1, i64({2}, {0, 2})));
  EXPECT_EQ(only_output(cols).exact.to_bits(),
            f32({3, 2}, {0.1427, -0.5414, -0.4664, -0.1228, -1.1734, 0.7230}).to_bits());
}

TEST(ReferenceIndexSelect, FormulaAlongEveryDimAndShape) {
  // T-IS1, T-IS2: out[i][j][k] = input[i][index[j]][k]; dim's size becomes len(index).
  const Tensor a = tensor_of(DType::Int64, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  expect_exact(evaluate(select_call(a, 0, i64({3}, {1, 0, 1}))), {3, 3, 2},
               {6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  expect_exact(evaluate(select_call(a, 1, i64({2}, {2, 0}))), {2, 2, 2}, {4, 5, 0, 1, 10, 11, 6, 7});
  expect_exact(evaluate(select_call(a, -1, i32({3}, {1, 1, 0}))), {2, 3, 3},
               {1, 1, 0, 3, 3, 2, 5, 5, 4, 7, 7, 6, 9, 9, 8, 11, 11, 10});
  // The index may be longer than input along dim; duplicates copy again (T-IS8).
  expect_exact(evaluate(select_call(f32({1, 2}, {1, 2}), 1, i64({4}, {1, 1, 0, 1}))), {1, 4}, {2, 2, 1, 2});
  // The op table's output shape agrees with the reference.
  const OpCall c = select_call(a, 1, i64({5}, {0, 0, 0, 0, 0}));
  EXPECT_EQ(*output_shape_of(op_spec(c.op), c), (Shape{2, 5, 2}));
}

TEST(ReferenceIndexSelect, BitsAreCopiedExactly) {
  // T-IS8 / C-4: NaN payloads, signalling NaNs and -0.0 survive.
  Tensor input = Tensor::zeros(DType::Float32, {3});
  input.set_bits_at({0}, 0x7fc00001);
  input.set_bits_at({1}, 0x80000000);
  input.set_bits_at({2}, 0x7f800001);
  const Expectation e = evaluate(select_call(input, 0, i64({4}, {2, 1, 0, 1})));
  const ExpectedTensor& out = only_output(e);
  EXPECT_EQ(out.exact.to_bits(), (std::vector<uint64_t>{0x7f800001, 0x80000000, 0x7fc00001, 0x80000000}));
  EXPECT_TRUE(out.loose.empty());
  EXPECT_FALSE(out.allows(0, 0x7fc00000));  // a quietened NaN is not the input's bits
  EXPECT_FALSE(out.allows(1, 0));           // +0.0 is not -0.0
}

TEST(ReferenceIndexSelect, DimRange) {
  // T-D1 / T-D2: [-r, r), a 0-d input counts as rank 1.
  for (int64_t dim : {-2, -1, 0, 1}) EXPECT_FALSE(evaluate(select_call(m34(), dim, i64({1}, {0}))).expects_error());
  expect_error(evaluate(select_call(m34(), 2, i64({1}, {0}))), {EC::DimOutOfRange}, "T-D1");
  expect_error(evaluate(select_call(m34(), -3, i64({1}, {0}))), {EC::DimOutOfRange}, "T-D1");
  const Tensor scalar = f32({}, {5.5});
  for (int64_t dim : {-1, 0}) expect_exact(evaluate(select_call(scalar, dim, i64({1}, {0}))), {}, {5.5});
  for (int64_t dim : {-2, 1})
    expect_error(evaluate(select_call(scalar, dim, i64({1}, {0}))), {EC::DimOutOfRange}, "T-D1");
}

TEST(ReferenceIndexSelect, IndexIsAVector) {
  // T-IS3: rank 0 and 1 accepted, rank 2 refused (also [1, 1] and empty).
  expect_exact(evaluate(select_call(m34(), 1, i64({}, {2}))), {3, 1}, {2, 6, 10});
  expect_error(evaluate(select_call(m34(), 1, i64({1, 1}, {1}))), {EC::InvalidArgument}, "T-IS3");
  expect_error(evaluate(select_call(m34(), 1, i64({0, 2}, {}))), {EC::InvalidArgument}, "T-IS3");
}

TEST(ReferenceIndexSelect, IndexDtype) {
  // T-IS4: int32 and int64 only, an empty index too.
  EXPECT_FALSE(evaluate(select_call(m34(), 0, i32({1}, {2}))).expects_error());
  for (DType t : kAllDTypes) {
    if (t == DType::Int32 || t == DType::Int64) continue;
    expect_error(evaluate(select_call(m34(), 0, tensor_of(t, {1}, {1}))), {EC::IndexDtype}, "T-IS4");
    expect_error(evaluate(select_call(m34(), 0, tensor_of(t, {0}, {}))), {EC::IndexDtype}, "T-IS4");
  }
}

TEST(ReferenceIndexSelect, BoundsBothSides) {
  // T-IS6: [0, s) along dim; negative values are refused, never wrapped.
  for (DType t : {DType::Int32, DType::Int64}) {
    expect_exact(evaluate(select_call(m34(), 1, tensor_of(t, {2}, {0, 3}))), {3, 2}, {0, 3, 4, 7, 8, 11});
    expect_exact(evaluate(select_call(m34(), 0, tensor_of(t, {1}, {2}))), {1, 4}, {8, 9, 10, 11});
    for (double bad : {4.0, -1.0, -4.0})
      expect_error(evaluate(select_call(m34(), 1, tensor_of(t, {3}, {0, 1, bad}))), {EC::IndexOutOfBounds}, "T-IS6");
    expect_error(evaluate(select_call(m34(), 0, tensor_of(t, {1}, {3}))), {EC::IndexOutOfBounds}, "T-IS6");
  }
  // A size-0 dim admits no value; another empty dim still checks them.
  expect_error(evaluate(select_call(f32({3, 0}, {}), 1, i64({1}, {0}))), {EC::IndexOutOfBounds}, "T-IS6");
  expect_error(evaluate(select_call(f32({0, 3}, {}), 1, i64({1}, {3}))), {EC::IndexOutOfBounds}, "T-IS6");
  expect_exact(evaluate(select_call(f32({0, 3}, {}), 1, i64({2}, {2, 0}))), {0, 2}, {});
}

TEST(ReferenceIndexSelect, EmptyIndex) {
  // T-IS5: size 0 along dim, no bounds; the argument rules still apply.
  expect_exact(evaluate(select_call(m34(), 1, i64({0}, {}))), {3, 0}, {});
  expect_exact(evaluate(select_call(f32({0, 3}, {}), 0, i32({0}, {}))), {0, 3}, {});
  expect_error(evaluate(select_call(m34(), 5, i64({0}, {}))), {EC::DimOutOfRange}, "T-D1");
}

TEST(ReferenceIndexSelect, ZeroDimInput) {
  // T-IS7: one index value, which must be 0; out is the 0-d input.
  const Tensor scalar = f32({}, {5.5});
  expect_exact(evaluate(select_call(scalar, 0, i64({}, {0}))), {}, {5.5});
  expect_exact(evaluate(select_call(scalar, -1, i32({1}, {0}))), {}, {5.5});
  expect_error(evaluate(select_call(scalar, 0, i64({1}, {1}))), {EC::IndexOutOfBounds}, "T-IS6");
  expect_error(evaluate(select_call(scalar, 0, i64({}, {-1}))), {EC::IndexOutOfBounds}, "T-IS6");
  // Any other length is unspecified (LibTorch 1.13: uninitialised out, or
  // writes past it), but only once the argument rules pass.
  for (const Tensor& index : {i64({0}, {}), i64({3}, {0, 0, 0}), i64({2}, {0, 1})}) {
    const Expectation e = evaluate(select_call(scalar, 0, index));
    EXPECT_TRUE(e.unspecified) << e.summary();
    EXPECT_FALSE(e.expects_error()) << e.summary();
  }
  // With another rule broken, T-IS7's refusal (PyTorch 2.x) may be reported too (C-1).
  expect_error(evaluate(select_call(scalar, 1, i64({3}, {0, 0, 0}))), {EC::DimOutOfRange, EC::InvalidArgument}, "T-D1");
  expect_error(evaluate(select_call(scalar, 0, tensor_of(DType::Int16, {0}, {}))),
               {EC::IndexDtype, EC::InvalidArgument}, "T-IS4");
  expect_error(evaluate(select_call(scalar, 0, i64({1, 2}, {0, 0}))), {EC::InvalidArgument}, "T-IS3");
}

TEST(ReferenceIndexSelect, CheckOrderCollectsEveryViolation) {
  // T-D1, T-IS3, T-IS4 all run; T-IS6 whenever the dim is valid and the
  // values are integers (C-1: a backend may check the bounds first).
  const Expectation all = evaluate(select_call(m34(), 7, tensor_of(DType::Float32, {1, 1}, {9})));
  expect_error(all, {EC::DimOutOfRange, EC::InvalidArgument, EC::IndexDtype}, "T-D1");
  expect_error(evaluate(select_call(m34(), 0, i64({1, 1}, {9}))), {EC::InvalidArgument, EC::IndexOutOfBounds}, "T-IS3");
  expect_error(evaluate(select_call(m34(), 0, tensor_of(DType::Int16, {1}, {9}))),
               {EC::IndexDtype, EC::IndexOutOfBounds}, "T-IS4");
  expect_error(evaluate(select_call(m34(), 0, tensor_of(DType::Int16, {1}, {2}))), {EC::IndexDtype}, "T-IS4");
  // A 0-d input with an index of several values and another broken rule:
  // PyTorch 2.x's T-IS7 refusal is one more allowed error.
  expect_error(evaluate(select_call(tensor_of(DType::Float32, {}, {1}), 0, tensor_of(DType::Float32, {2}, {0, 0}))),
               {EC::IndexDtype, EC::InvalidArgument}, "T-IS4");
}

}  // namespace
}  // namespace sp
