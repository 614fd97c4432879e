// The notes campaign expectation entries key by on torch ops
// (reference/SEMANTICS.md T-I2, T-IR7): an expanded int32 index (a
// stride-0 dim of size > 1) from torch 2.8 on, and an index_reduce 16-bit
// prod whose source slices repeat one element, on every answer, errors
// included; neither where the condition does not hold.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::cites;
using test::f32;
using test::i64;
using test::tensor_of;

// A [rows, cols] int32 index holding `row_values[r]` across each row, the
// row's values shared through a stride-0 column dim.
Tensor expanded_int32_index(const std::vector<double>& row_values, int64_t cols) {
  const Tensor column = tensor_of(DType::Int32, {static_cast<int64_t>(row_values.size())}, row_values);
  return Tensor::view(DType::Int32, {static_cast<int64_t>(row_values.size()), cols}, {1, 0}, 0, column.storage());
}

OpCall gather(Tensor index, const std::string& version) {
  OpCall c = test::call_of("torch.gather", {{"input", f32({3, 2}, {0, 1, 2, 3, 4, 5})}, {"index", std::move(index)}},
                           {{"dim", Arg::of_int(0)}});
  c.framework_version = version;
  return c;
}

TEST(ReferenceTorchNotes, AnExpandedInt32IndexIsNotedFromTorch28) {
  const Tensor expanded = expanded_int32_index({2, 0}, 2);
  EXPECT_TRUE(cites(evaluate(gather(expanded, "2.15.0")), "T-I2"));
  const Expectation bad = evaluate(gather(expanded_int32_index({2, 7}, 2), "2.15.0"));
  EXPECT_TRUE(bad.expects_error()) << bad.summary();
  EXPECT_TRUE(cites(bad, "T-I2")) << bad.summary();
  // Not before 2.8 (int32 refused, T-I1), not for a contiguous int32 index, not for int64.
  EXPECT_FALSE(cites(evaluate(gather(expanded, "2.4.1")), "T-I2"));
  EXPECT_FALSE(cites(evaluate(gather(tensor_of(DType::Int32, {2, 2}, {2, 2, 0, 0}), "2.15.0")), "T-I2"));
  EXPECT_FALSE(cites(evaluate(gather(i64({2, 2}, {2, 2, 0, 0}), "2.15.0")), "T-I2"));
}

OpCall index_reduce(DType t, const Shape& self_shape, Tensor source, double last_index) {
  OpCall c =
      test::call_of("torch.index_reduce",
                    {{"self", tensor_of(t, self_shape, std::vector<double>(checked_numel(self_shape), 2))},
                     {"index", i64({source.size(0)}, std::vector<double>(static_cast<size_t>(source.size(0)), 0.0))},
                     {"source", std::move(source)}},
                    {{"dim", Arg::of_int(0)}, {"reduce", Arg::of_string("prod")}});
  Tensor& index = c.tensors["index"];
  index.set_bits_at({index.size(0) - 1},
                    bits_from_value(DType::Int64, Value::of_int(static_cast<int64_t>(last_index))));
  c.framework_version = "2.15.0";
  return c;
}

TEST(ReferenceTorchNotes, ASixteenBitProdOverRepeatedSourceSlicesIsNoted) {
  // A [3, 1] source: one-element slices; with an index value out of bounds the answer is an error, still noted.
  const Tensor one = tensor_of(DType::Float16, {3, 1}, {1, 2, 3});
  EXPECT_TRUE(cites(evaluate(index_reduce(DType::Float16, {1, 1}, one, 0)), "T-IR7"));
  const Expectation bad = evaluate(index_reduce(DType::Float16, {1, 1}, one, -1));
  EXPECT_TRUE(bad.expects_error()) << bad.summary();
  EXPECT_TRUE(cites(bad, "T-IR7"));
  // A [3, 4] source expanded along its columns (stride 0): noted; a contiguous one or float32: not.
  const Tensor row = tensor_of(DType::BFloat16, {3}, {1, 2, 3});
  const Tensor expanded = Tensor::view(DType::BFloat16, {3, 4}, {1, 0}, 0, row.storage());
  EXPECT_TRUE(cites(evaluate(index_reduce(DType::BFloat16, {2, 4}, expanded, 1)), "T-IR7"));
  const Tensor full = tensor_of(DType::BFloat16, {3, 4}, std::vector<double>(12, 1));
  EXPECT_FALSE(cites(evaluate(index_reduce(DType::BFloat16, {2, 4}, full, 1)), "T-IR7"));
  EXPECT_FALSE(
      cites(evaluate(index_reduce(DType::Float32, {1, 1}, tensor_of(DType::Float32, {3, 1}, {1, 2, 3}), 0)), "T-IR7"));
}

}  // namespace
}  // namespace sp
