// reference_mindspore_elements_backward_test.cc — the backward of MindSpore's
// element-wise index ops (reference/mindspore_*_backward.cc), clause by
// clause (reference/SEMANTICS.md, "Gradients / MindSpore": MS-GEG*).
//
// Soundness: what MindSpore returns is allowed. Values marked "measured"
// were taken on MindSpore 2.10.0 CPU with mindspore.vjp
// (specs/edge/mindspore-elements-backward.json holds the same cases).
// Tightness: a wrong gradient is rejected — a duplicate not accumulated, a
// negative index value's gradient not at v + s, an unread element not +0.0.
#include <gtest/gtest.h>

#include <string>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::allows_all;
using test::f32;
using test::grad;
using test::i64;
using test::output_names;
using test::tensor_of;
using EC = ErrorCategory;

OpCall backward_call(const std::string& op, std::map<std::string, Tensor> tensors, Tensor grad_output,
                     std::map<std::string, Arg> args) {
  tensors.emplace(std::string(kGradOutput), std::move(grad_output));
  return test::call_of(op + ".backward", std::move(tensors), std::move(args));
}
std::map<std::string, Arg> dim(int64_t d) { return {{"dim", Arg::of_int(d)}}; }

// ---- mindspore.ops.gather_elements.backward (MS-GEG*) ----

Expectation gather_elements(const Tensor& input, const Tensor& index, const Tensor& g, int64_t d) {
  return evaluate(backward_call("mindspore.ops.gather_elements", {{"input", input}, {"index", index}}, g, dim(d)));
}

TEST(ReferenceMindsporeElementsBackward, GatherElementsScatterAddsGradOutputWhereItRead) {
  // index [[1, 0, 1], [1, 1, 1]] along dim 0. measured: [[0, 2, 0], [5, 5, 9]].
  const Expectation e = gather_elements(f32({2, 3}, {0, 1, 2, 3, 4, 5}), i64({2, 3}, {1, 0, 1, 1, 1, 1}),
                                        f32({2, 3}, {1, 2, 3, 4, 5, 6}), 0);
  EXPECT_EQ(output_names(e), std::vector<std::string>{"grad_input"});
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_TRUE(allows_all(g, {0, 2, 0, 5, 5, 9}));
  EXPECT_TRUE(test::cites(e, "MS-GEG4"));
  EXPECT_FALSE(allows_all(g, {0, 2, 0, 4, 5, 6}));     // duplicates not accumulated (the last term alone)
  EXPECT_FALSE(allows_all(g, {0, 2, 0, 1, 5, 3}));     // the first term alone
  EXPECT_FALSE(allows_all(g, {-0.0, 2, 0, 5, 5, 9}));  // an unread element is a fresh +0.0
  EXPECT_FALSE(allows_all(g, {5, 2, 9, 0, 5, 0}));     // scattered to the index position, not the value
}

TEST(ReferenceMindsporeElementsBackward, GatherElementsNegativeIndexGradientGoesToVPlusS) {
  // index [[-1, 0], [-3, -1]] along dim 1 of a [2, 3] input. measured:
  // [[2, 0, 1], [3, 0, 4]] (GatherD also rewrites the index: a listed deviation).
  const Expectation e =
      gather_elements(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {-1, 0, -3, -1}), f32({2, 2}, {1, 2, 3, 4}), 1);
  EXPECT_TRUE(allows_all(grad(e, "grad_input"), {2, 0, 1, 3, 0, 4}));
  EXPECT_FALSE(allows_all(grad(e, "grad_input"), {2, 0, 1, 3, 0, 0}));  // -1 not wrapped
  EXPECT_TRUE(test::cites(e, "MS-GEG5"));
  // Noted on an error answer too (a value below -s: the forward's MS-GE6).
  const Expectation bad = gather_elements(f32({1, 3}, {1, 2, 3}), i64({1, 1}, {-4}), f32({1, 1}, {1}), 1);
  test::expect_errors(bad, {EC::IndexOutOfBounds});
  EXPECT_EQ(bad.error_clause, "MS-GE6");
  EXPECT_TRUE(test::cites(bad, "MS-GEG5"));
  // No negative value, no note.
  EXPECT_FALSE(test::cites(gather_elements(f32({1, 3}, {1, 2, 3}), i64({1, 1}, {2}), f32({1, 1}, {1}), 1), "MS-GEG5"));
}

TEST(ReferenceMindsporeElementsBackward, GatherElementsFloat16SumIsAnInterval) {
  // input[0] read three times: 0.1 + 0.2 + 0.3 in float16, in any order.
  // measured: 0.60009765625.
  const Expectation e = gather_elements(tensor_of(DType::Float16, {2}, {1, 2}), i64({4}, {0, 0, 0, 1}),
                                        tensor_of(DType::Float16, {4}, {0.1, 0.2, 0.3, 65504}), 0);
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_TRUE(allows_all(g, {0.60009765625, 65504}));
  EXPECT_FALSE(allows_all(g, {0.7, 65504}));
  EXPECT_FALSE(allows_all(g, {0.60009765625, 65472}));  // a single term is exact
}

TEST(ReferenceMindsporeElementsBackward, GatherElementsChecksTheForwardThenTheGradients) {
  const Tensor input = f32({2, 2}, {1, 2, 3, 4});
  // MS-GEG2: an int32 input (measured: MindSpore returns int32 gradients, a listed deviation).
  const Expectation ints =
      gather_elements(test::i32({2, 2}, {1, 2, 3, 4}), i64({1, 2}, {1, 0}), test::i32({1, 2}, {1, 2}), 0);
  test::expect_errors(ints, {EC::UnsupportedDtype});
  EXPECT_EQ(ints.error_clause, "MS-GEG2");
  // MS-GEG3: grad_output shaped like index, typed like input.
  const Expectation shape = gather_elements(input, i64({1, 2}, {1, 0}), f32({2, 2}, {1, 2, 3, 4}), 0);
  test::expect_errors(shape, {EC::ShapeMismatch});
  EXPECT_EQ(shape.error_clause, "MS-GEG3");
  const Expectation dtype = gather_elements(input, i64({1, 2}, {1, 0}), test::f64({1, 2}, {1, 2}), 0);
  test::expect_errors(dtype, {EC::DtypeMismatch});
  EXPECT_EQ(dtype.error_clause, "MS-GEG3");
  // MS-GEG1: the forward's errors carry over (MS-GE5: index larger than input apart from dim).
  const Expectation fwd = gather_elements(input, i64({1, 3}, {0, 1, 0}), f32({1, 3}, {1, 2, 3}), 0);
  test::expect_errors(fwd, {EC::ShapeMismatch});
  EXPECT_EQ(fwd.error_clause, "MS-GE5");
  // An empty index: nothing read, every element +0.0.
  const Expectation empty = gather_elements(input, i64({0, 2}, {}), f32({0, 2}, {}), 0);
  EXPECT_TRUE(allows_all(grad(empty, "grad_input"), {0, 0, 0, 0}));
  EXPECT_FALSE(allows_all(grad(empty, "grad_input"), {1, 2, 3, 4}));
}

}  // namespace
}  // namespace sp
