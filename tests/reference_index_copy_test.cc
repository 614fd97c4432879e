// reference_index_copy_test.cc — the reference's torch.index_copy_ /
// torch.index_copy, clause by clause (reference/SEMANTICS.md, T-IC*).
//
// Every rule is tested from both sides (the call just inside passes, the one
// just outside fails with its category); duplicate writers give a set that
// holds every writer and nothing else.
#include <gtest/gtest.h>

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

OpCall copy_call(Tensor self, int64_t dim, Tensor index, Tensor source, const std::string& op = "torch.index_copy") {
  return call_of(op, {{"self", self}, {"index", index}, {"source", source}}, {{"dim", Arg::of_int(dim)}});
}

Tensor zeros34() { return f32({3, 4}, std::vector<double>(12, 0.0)); }

TEST(ReferenceIndexCopy, DocumentExample) {
  const Tensor x = f32({5, 3}, std::vector<double>(15, 0.0));
  const Tensor t = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (const char* op : {"torch.index_copy_", "torch.index_copy"})
    expect_exact(evaluate(copy_call(x, 0, i64({3}, {0, 4, 2}), t, op)), {1, 2, 3, 0, 0, 0, 7, 8, 9, 0, 0, 0, 4, 5, 6});
}

TEST(ReferenceIndexCopy, AlongEveryDimAndZeroD) {
  // dim 1 and -1: self[:, index[i]] = source[:, i].
  for (int64_t dim : {1, -1})
    expect_exact(evaluate(copy_call(zeros34(), dim, i64({2}, {3, 0}), f32({3, 2}, {1, 2, 3, 4, 5, 6}))),
                 {2, 0, 0, 1, 4, 0, 0, 3, 6, 0, 0, 5});
  // 0-d self / index / source count as [1] (T-D2).
  expect_exact(evaluate(copy_call(f32({}, {5}), 0, i64({}, {0}), f32({}, {7}))), {7});
  expect_exact(evaluate(copy_call(f32({3}, {0, 0, 0}), 0, i64({}, {2}), f32({}, {4}))), {0, 0, 4});
  expect_errors(evaluate(copy_call(f32({}, {5}), 1, i64({1}, {0}), f32({1}, {7}))), {EC::DimOutOfRange});
  expect_errors(evaluate(copy_call(f32({}, {5}), 0, i64({1}, {1}), f32({1}, {7}))), {EC::IndexOutOfBounds});
}

TEST(ReferenceIndexCopy, DuplicatesAllowEveryWriterOnly) {
  const Expectation e = evaluate(copy_call(i64({3}, {0, 0, 0}), 0, i64({3}, {1, 1, 1}), i64({3}, {1, 2, 3})));
  const ExpectedTensor& out = only_output(e);
  ASSERT_EQ(out.loose.size(), 1u);
  for (int64_t v : {1, 2, 3}) EXPECT_TRUE(out.allows(1, static_cast<uint64_t>(v))) << v;
  for (int64_t v : {0, 4, 6}) EXPECT_FALSE(out.allows(1, static_cast<uint64_t>(v))) << v;
  EXPECT_TRUE(out.allows(0, 0));
  EXPECT_FALSE(out.allows(0, 1));
  // A 0-d self with two writers: either.
  const Expectation z = evaluate(copy_call(f32({}, {5}), 0, i64({2}, {0, 0}), f32({2}, {1, 2})));
  EXPECT_TRUE(only_output(z).allows(0, bits_from_value(DType::Float32, Value::of_float(1))));
  EXPECT_TRUE(only_output(z).allows(0, bits_from_value(DType::Float32, Value::of_float(2))));
  EXPECT_FALSE(only_output(z).allows(0, bits_from_value(DType::Float32, Value::of_float(5))));
}

TEST(ReferenceIndexCopy, IndexRankAndDtype) {
  const Tensor src = f32({1, 4}, {1, 2, 3, 4});
  expect_exact(evaluate(copy_call(zeros34(), 0, i64({}, {1}), src)), {0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({1, 1}, {1}), src)), {EC::InvalidArgument});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({0, 1}, {}), f32({0, 4}, {}))), {EC::InvalidArgument});
  // int64 only (T-IC3), also when empty.
  expect_errors(evaluate(copy_call(zeros34(), 0, i32({1}, {1}), src)), {EC::IndexDtype});
  expect_errors(evaluate(copy_call(zeros34(), 0, i32({0}, {}), f32({0, 4}, {}))), {EC::IndexDtype});
  expect_errors(evaluate(copy_call(zeros34(), 0, tensor_of(DType::Bool, {1}, {1}), src)), {EC::IndexDtype});
}

TEST(ReferenceIndexCopy, SourceDtypeAndShape) {
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({1}, {0}), test::f64({1, 4}, {1, 2, 3, 4}))), {EC::DtypeMismatch});
  // Other dims, broadcastable shapes, length, rank, 0-d source: all shape_mismatch (T-IC5).
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({2}, {0, 1}), f32({2, 5}, std::vector<double>(10, 1)))),
                {EC::ShapeMismatch});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({2}, {0, 1}), f32({2, 1}, {1, 2}))), {EC::ShapeMismatch});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({2}, {0, 1}), f32({3, 4}, std::vector<double>(12, 1)))),
                {EC::ShapeMismatch});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({1}, {0}), f32({4}, {1, 2, 3, 4}))), {EC::ShapeMismatch});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({1}, {0}), f32({}, {1}))), {EC::ShapeMismatch});
  expect_errors(evaluate(copy_call(f32({3}, {0, 0, 0}), 0, i64({2}, {0, 1}), f32({}, {1}))), {EC::ShapeMismatch});
  // Empty index: the shape is still checked; a right one is a no-op (T-IC6).
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({0}, {}), f32({0, 7}, {}))), {EC::ShapeMismatch});
  expect_exact(evaluate(copy_call(zeros34(), 0, i64({0}, {}), f32({0, 4}, {}))), std::vector<double>(12, 0.0));
  // Every violation is listed, in LibTorch's order.
  expect_errors(evaluate(copy_call(zeros34(), 0, i32({1}, {0}), test::f64({1, 5}, {1, 2, 3, 4, 5}))),
                {EC::IndexDtype, EC::DtypeMismatch, EC::ShapeMismatch});
}

TEST(ReferenceIndexCopy, BoundsNegativesAreErrors) {
  const Tensor src = f32({2, 4}, std::vector<double>(8, 1));
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({2}, {-1, 0}), src)), {EC::IndexOutOfBounds});
  expect_errors(evaluate(copy_call(zeros34(), 0, i64({2}, {0, 3}), src)), {EC::IndexOutOfBounds});
  expect_exact(evaluate(copy_call(zeros34(), 0, i64({2}, {2, 0}), src)), {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
  // A dim check beats a bad value; bounds run only when the arguments pass.
  expect_errors(evaluate(copy_call(zeros34(), 2, i64({2}, {-1, 0}), src)), {EC::DimOutOfRange});
  // A self with no elements: the error or the unchanged tensor.
  const Expectation e = evaluate(copy_call(f32({0, 3}, {}), 1, i64({1}, {5}), f32({0, 1}, {})));
  EXPECT_TRUE(e.allows_error(EC::IndexOutOfBounds));
  ASSERT_TRUE(e.outputs.has_value());
  EXPECT_EQ(e.outputs->front().exact.shape(), (Shape{0, 3}));
  expect_errors(evaluate(copy_call(f32({2, 3}, std::vector<double>(6, 0)), 1, i64({1}, {5}), f32({2, 1}, {1, 2}))),
                {EC::IndexOutOfBounds});
}

TEST(ReferenceIndexCopy, InPlaceOverlapOutOfPlaceLeavesSelf) {
  Tensor expanded = Tensor::view(DType::Float32, {3}, {0}, 0, f32({1}, {0}).storage());
  expect_errors(evaluate(copy_call(expanded, 0, i64({1}, {0}), f32({1}, {1}), "torch.index_copy_")),
                {EC::OverlappingOutput});
  expect_errors(evaluate(copy_call(expanded, 0, i32({1}, {0}), f32({1}, {1}), "torch.index_copy_")),
                {EC::OverlappingOutput, EC::IndexDtype});
  const Expectation e = evaluate(copy_call(expanded, 0, i64({1}, {1}), f32({1}, {1})));
  EXPECT_EQ(values_of(only_output(e).exact), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values_of(expanded), (std::vector<double>{0, 0, 0}));
}

TEST(ReferenceIndexCopy, EveryDtypeKeepsBits) {
  for (DType t : kAllDTypes) {
    const Tensor self = tensor_of(t, {3}, {0, 0, 0});
    const Tensor src = tensor_of(t, {2}, {1, 0});
    expect_exact(evaluate(copy_call(self, 0, i64({2}, {2, 0}), src, "torch.index_copy_")), {0, 0, 1});
  }
  // -0.0 and a NaN payload survive the copy.
  Tensor src = test::f64({2}, {0, 0});
  src.set_bits_at({0}, 0x8000000000000000ull);
  src.set_bits_at({1}, 0x7ff8000000000001ull);
  const Expectation e = evaluate(copy_call(test::f64({2}, {1, 1}), 0, i64({2}, {1, 0}), src));
  EXPECT_EQ(only_output(e).exact.bits_at({0}), 0x7ff8000000000001ull);
  EXPECT_EQ(only_output(e).exact.bits_at({1}), 0x8000000000000000ull);
}

}  // namespace
}  // namespace sp
