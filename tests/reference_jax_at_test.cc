// reference_jax_at_test.cc — the reference's x.at[idx] ops (jax.at.*,
// reference/SEMANTICS.md JAX-AT*): the notes campaign expectation entries
// key by.
//
// A clause-keyed campaign entry hides every finding whose answer cites its
// clause, so a note must be written exactly where the deviation it keys
// lives: JAX-AT5 on a scalar index into an axis of size 0 (jax raises
// IndexError there whatever the mode), and on nothing else.
#include <gtest/gtest.h>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::cites;
using test::f32;
using test::i64;
using test::only_output;
using test::values_of;

OpCall at_call(const std::string& op, Tensor x, Tensor indices, std::optional<Tensor> updates,
               std::optional<std::string> mode) {
  std::map<std::string, Tensor> tensors{{"x", std::move(x)}, {"indices", std::move(indices)}};
  if (updates) tensors.emplace("updates", std::move(*updates));
  std::map<std::string, Arg> args;
  if (mode) args.emplace("mode", Arg::of_string(*mode));
  return call_of(op, std::move(tensors), std::move(args));
}

TEST(ReferenceJaxAt, ScalarIndexIntoAnEmptyAxisIsNotedWhateverTheMode) {
  // x.at[0].add(u) on x of shape [0, 2]: the index is out of range.
  const Expectation dropped =
      evaluate(at_call("jax.at.add", f32({0, 2}, {}), i64({1}, {0}), f32({2}, {1, 2}), std::nullopt));
  EXPECT_TRUE(dropped.outputs.has_value()) << dropped.summary() << " " << dropped.error_message;
  EXPECT_TRUE(cites(dropped, "JAX-AT5"));
  // mode='clip' on an axis of size 0: still noted, whatever the answer is.
  const Expectation clipped =
      evaluate(at_call("jax.at.set", f32({0, 2}, {}), i64({1}, {0}), f32({2}, {1, 2}), std::string("clip")));
  EXPECT_TRUE(cites(clipped, "JAX-AT5"));
  // The empty axis second of two indexed: x.at[0, 0] on [3, 0, 2].
  const Expectation second =
      evaluate(at_call("jax.at.get", f32({3, 0, 2}, {}), i64({2}, {0, 0}), std::nullopt, std::nullopt));
  EXPECT_TRUE(cites(second, "JAX-AT5"));
}

TEST(ReferenceJaxAt, OtherCallsDoNotCiteJaxAt5) {
  // An in-range scalar index, mode absent (JAX-AT4 applies, JAX-AT5 not).
  const Expectation in_range =
      evaluate(at_call("jax.at.add", f32({3}, {1, 2, 3}), i64({1}, {1}), f32({}, {10}), std::nullopt));
  EXPECT_EQ(values_of(only_output(in_range).exact), (std::vector<double>{1, 12, 3}));
  EXPECT_FALSE(cites(in_range, "JAX-AT5"));
  // An out-of-range scalar index into a non-empty axis: dropped, not JAX-AT5.
  const Expectation out_of_range =
      evaluate(at_call("jax.at.add", f32({3}, {1, 2, 3}), i64({1}, {7}), f32({}, {10}), std::nullopt));
  EXPECT_EQ(values_of(only_output(out_of_range).exact), (std::vector<double>{1, 2, 3}));
  EXPECT_FALSE(cites(out_of_range, "JAX-AT5"));
  // An index array (rank 2) into an empty axis: jax follows the mode there.
  const Expectation array =
      evaluate(at_call("jax.at.add", f32({0, 2}, {}), i64({1, 1}, {0}), f32({1, 2}, {1, 2}), std::nullopt));
  EXPECT_FALSE(cites(array, "JAX-AT5"));
  // An empty axis that is not indexed: x.at[1] on [2, 0].
  const Expectation unindexed =
      evaluate(at_call("jax.at.get", f32({2, 0}, {}), i64({1}, {1}), std::nullopt, std::nullopt));
  EXPECT_FALSE(cites(unindexed, "JAX-AT5"));
}

// JAX-AT6: a signed index dtype whose maximum is below an indexed axis's
// size, negatives wrapped (jax 0.10.2 raises OverflowError there): noted,
// and answered as any other index.
TEST(ReferenceJaxAt, IndexDtypeBelowAnAxisIsNotedWhileNegativesWrap) {
  const auto set = [](int64_t n, DType index_dtype, std::map<std::string, Arg> args) {
    std::map<std::string, Tensor> tensors{{"x", Tensor::zeros(DType::Int64, {n})},
                                          {"indices", test::tensor_of(index_dtype, {1, 1}, {5})},
                                          {"updates", test::tensor_of(DType::Int64, {1}, {7})}};
    return evaluate(call_of("jax.at.set", std::move(tensors), std::move(args)));
  };
  const Expectation narrow = set(32769, DType::Int16, {});
  ASSERT_TRUE(narrow.outputs.has_value()) << narrow.summary() << " " << narrow.error_message;
  EXPECT_TRUE(cites(narrow, "JAX-AT6"));
  EXPECT_EQ(values_of(only_output(narrow).exact)[5], 7);
  EXPECT_TRUE(cites(set(128, DType::Int8, {}), "JAX-AT6"));
  EXPECT_FALSE(cites(set(127, DType::Int8, {}), "JAX-AT6"));
  EXPECT_FALSE(cites(set(32769, DType::Int16, {{"wrap_negative_indices", Arg::of_bool(false)}}), "JAX-AT6"));
  EXPECT_FALSE(cites(set(300, DType::UInt8, {}), "JAX-AT6"));
  EXPECT_FALSE(cites(set(32769, DType::Int32, {}), "JAX-AT6"));
}

// JAX-AT7: an index value outside int32's range once negatives are wrapped
// (jnp converts x.at[]'s indices to int32).
TEST(ReferenceJaxAt, IndexBeyondInt32IsNoted) {
  const auto add = [](std::vector<double> index, DType t) {
    std::map<std::string, Tensor> tensors{{"x", f32({3}, {1, 2, 3})},
                                          {"indices", test::tensor_of(t, {1, 1}, std::move(index))},
                                          {"updates", f32({1}, {10})}};
    return evaluate(call_of("jax.at.add", std::move(tensors)));
  };
  const Expectation far = add({4294967297.0}, DType::Int64);
  EXPECT_EQ(values_of(only_output(far).exact), (std::vector<double>{1, 2, 3}));  // dropped, as documented
  EXPECT_TRUE(cites(far, "JAX-AT7"));
  EXPECT_TRUE(cites(add({2147483648.0}, DType::Int64), "JAX-AT7"));
  EXPECT_TRUE(cites(add({3000000000.0}, DType::UInt32), "JAX-AT7"));
  EXPECT_FALSE(cites(add({2147483647.0}, DType::Int64), "JAX-AT7"));
  EXPECT_FALSE(cites(add({-2147483648.0}, DType::Int64), "JAX-AT7"));
  EXPECT_FALSE(cites(add({1}, DType::Int64), "JAX-AT7"));
}

}  // namespace
}  // namespace sp
