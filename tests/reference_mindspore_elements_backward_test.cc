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

#include <optional>
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

// ---- mindspore.ops.tensor_scatter_elements.backward (MS-TSEG*) ----

OpCall tse_call(const Tensor& indices, const Tensor& updates, const std::string& reduction,
                const std::string& doc_version = "") {
  OpCall call =
      backward_call("mindspore.ops.tensor_scatter_elements",
                    {{"input_x", f32({1, 5}, {1, 2, 3, 4, 5})}, {"indices", indices}, {"updates", updates}},
                    f32({1, 5}, {1, 2, 3, 4, 5}), {{"axis", Arg::of_int(1)}, {"reduction", Arg::of_string(reduction)}});
  call.framework_version = doc_version;
  return call;
}

TEST(ReferenceMindsporeElementsBackward, TensorScatterElementsNoneZeroesWrittenAndGathers) {
  // The page's example, indices [[2, 4]], updates [[8, 8]], axis 1.
  // measured: grad_input_x [[1, 2, 0, 4, 0]], grad_updates [[3, 5]].
  const Expectation e = evaluate(tse_call(i64({1, 2}, {2, 4}), f32({1, 2}, {8, 8}), "none"));
  EXPECT_EQ(output_names(e), (std::vector<std::string>{"grad_input_x", "grad_updates"}));
  EXPECT_TRUE(allows_all(grad(e, "grad_input_x"), {1, 2, 0, 4, 0}));
  EXPECT_TRUE(allows_all(grad(e, "grad_input_x"), {1, 2, -0.0, 4, -0.0}));  // a masked zero of either sign
  EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {3, 5}));
  EXPECT_FALSE(allows_all(grad(e, "grad_input_x"), {1, 2, 3, 4, 5}));  // a written element not zeroed
  EXPECT_FALSE(allows_all(grad(e, "grad_updates"), {0, 5}));           // a single writer's gradient is not optional
  // Duplicates: indices [[2, 2]]: each writer gets the slot's gradient or 0 (measured: both get 3).
  const Expectation dup = evaluate(tse_call(i64({1, 2}, {2, 2}), f32({1, 2}, {8, 9}), "none"));
  EXPECT_TRUE(allows_all(grad(dup, "grad_updates"), {3, 3}));
  EXPECT_TRUE(allows_all(grad(dup, "grad_updates"), {0, 3}));
  EXPECT_FALSE(allows_all(grad(dup, "grad_updates"), {3, 4}));  // another slot's gradient
}

TEST(ReferenceMindsporeElementsBackward, TensorScatterElementsAddPassesGradOutputThrough) {
  // measured: grad_input_x [[1, 2, 3, 4, 5]], grad_updates [[3, 5]]; duplicates all get the gradient.
  const Expectation e = evaluate(tse_call(i64({1, 3}, {2, 4, 2}), f32({1, 3}, {8, 8, 8}), "add"));
  EXPECT_TRUE(allows_all(grad(e, "grad_input_x"), {1, 2, 3, 4, 5}));
  EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {3, 5, 3}));
  EXPECT_FALSE(allows_all(grad(e, "grad_input_x"), {1, 2, 0, 4, 0}));  // "add" masks nothing
  EXPECT_FALSE(allows_all(grad(e, "grad_updates"), {3, 5, 0}));        // every term gets its gradient
  // MS-TSEG6 is noted only where grad_output holds -0.0 or NaN at a written
  // element (MindSpore 2.10.0 returns +0.0 / its canonical NaN there; a
  // campaign entry keys by the note).
  EXPECT_FALSE(test::cites(e, "MS-TSEG6"));
  OpCall zero = tse_call(i64({1, 1}, {1}), f32({1, 1}, {8}), "add");
  zero.tensors.at(std::string(kGradOutput)) = f32({1, 5}, {-0.0, -0.0, 1, 1, 1});
  const Expectation z = evaluate(zero);
  EXPECT_TRUE(allows_all(grad(z, "grad_input_x"), {-0.0, -0.0, 1, 1, 1}));
  EXPECT_TRUE(test::cites(z, "MS-TSEG6"));
  zero.tensors.at(std::string(kGradOutput)) = f32({1, 5}, {-0.0, 0.0, 1, 1, 1});  // -0.0 only where nothing writes
  EXPECT_FALSE(test::cites(evaluate(zero), "MS-TSEG6"));
}

TEST(ReferenceMindsporeElementsBackward, TensorScatterElementsDroppedUpdateGetsNoGradient) {
  // indices [[5, 1]] on a dim of size 5: the first update is dropped (MS-TSE10), so its gradient is +0.0
  // and input_x's element passes (MindSpore's GatherD refuses the value: a listed deviation).
  for (const std::string reduction : {"none", "add"}) {
    const Expectation e = evaluate(tse_call(i64({1, 2}, {5, 1}), f32({1, 2}, {8, 8}), reduction));
    EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {0, 2})) << reduction;
    EXPECT_FALSE(allows_all(grad(e, "grad_updates"), {-0.0, 2})) << reduction;  // nothing reached it: +0.0
    EXPECT_TRUE(allows_all(grad(e, "grad_input_x"), {1, reduction == "add" ? 2.0 : 0.0, 3, 4, 5})) << reduction;
    EXPECT_TRUE(test::cites(e, "MS-TSEG7")) << reduction;
  }
  EXPECT_FALSE(test::cites(evaluate(tse_call(i64({1, 2}, {4, 1}), f32({1, 2}, {8, 8}), "none")), "MS-TSEG7"));
}

TEST(ReferenceMindsporeElementsBackward, TensorScatterElementsNegativeIndexWrapsBeforeR210) {
  const Expectation r25 = evaluate(tse_call(i64({1, 2}, {-1, 0}), f32({1, 2}, {8, 8}), "none", "2.5"));
  EXPECT_TRUE(allows_all(grad(r25, "grad_input_x"), {0, 2, 3, 4, 0}));  // measured (2.10's kernel wraps too)
  EXPECT_TRUE(allows_all(grad(r25, "grad_updates"), {5, 1}));
  EXPECT_FALSE(allows_all(grad(r25, "grad_updates"), {0, 1}));
  const Expectation r210 = evaluate(tse_call(i64({1, 2}, {-1, 0}), f32({1, 2}, {8, 8}), "none", "2.10"));
  EXPECT_TRUE(r210.unspecified);
  EXPECT_EQ(r210.unspecified_reason.rfind("MS-TSEG1", 0), 0u) << r210.unspecified_reason;
  EXPECT_TRUE(test::cites(r210, "MS-TSE14"));
  // Below -s before 2.10: dropped.
  const Expectation low = evaluate(tse_call(i64({1, 2}, {-6, 0}), f32({1, 2}, {8, 8}), "none", "2.5"));
  EXPECT_TRUE(allows_all(grad(low, "grad_updates"), {0, 1}));
}

TEST(ReferenceMindsporeElementsBackward, TensorScatterElementsChecksInOrder) {
  OpCall ints = tse_call(i64({1, 2}, {2, 4}), f32({1, 2}, {8, 8}), "none");
  ints.tensors.at("input_x") = test::i32({1, 5}, {1, 2, 3, 4, 5});
  ints.tensors.at("updates") = test::i32({1, 2}, {8, 8});
  ints.tensors.at(std::string(kGradOutput)) = test::i32({1, 5}, {1, 2, 3, 4, 5});
  const Expectation e = evaluate(ints);
  test::expect_errors(e, {EC::UnsupportedDtype});
  EXPECT_EQ(e.error_clause, "MS-TSEG2");
  OpCall shape = tse_call(i64({1, 2}, {2, 4}), f32({1, 2}, {8, 8}), "none");
  shape.tensors.at(std::string(kGradOutput)) = f32({5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(evaluate(shape).error_clause, "MS-TSEG3");
  // MS-TSEG4 is the forward's MS-TSE5.
  const Expectation larger = evaluate(tse_call(i64({1, 2}, {2, 4}), f32({1, 3}, {8, 8, 8}), "none"));
  test::expect_errors(larger, {EC::ShapeMismatch});
  EXPECT_EQ(larger.error_clause, "MS-TSE5");
}

// ---- mindspore.mint.scatter(_add).backward (MS-MSG*) ----

OpCall mint_call(const std::string& op, const Tensor& index, std::optional<Tensor> src,
                 std::map<std::string, Arg> args = {{"dim", Arg::of_int(1)}}) {
  std::map<std::string, Tensor> tensors{{"input", f32({1, 5}, {1, 2, 3, 4, 5})}, {"index", index}};
  if (src) tensors.emplace("src", *src);
  return backward_call(op, std::move(tensors), f32({1, 5}, {1, 2, 3, 4, 5}), std::move(args));
}

TEST(ReferenceMindsporeElementsBackward, MintScatterZeroesWrittenAndNeedsSrcShapedLikeIndex) {
  // The page's first example. measured: grad_input [[1, 2, 0, 4, 0]], grad_src [[3, 5]].
  const Expectation e = evaluate(mint_call("mindspore.mint.scatter", i64({1, 2}, {2, 4}), f32({1, 2}, {8, 8})));
  EXPECT_EQ(output_names(e), (std::vector<std::string>{"grad_input", "grad_src"}));
  EXPECT_TRUE(allows_all(grad(e, "grad_input"), {1, 2, 0, 4, 0}));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {3, 5}));
  EXPECT_FALSE(allows_all(grad(e, "grad_input"), {1, 2, 3, 4, 5}));
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {2, 4}));  // gathered one element off
  // MS-MSG4: the forward takes src [1, 3] for index [1, 2]; the backward does not.
  const Expectation larger = evaluate(mint_call("mindspore.mint.scatter", i64({1, 2}, {2, 4}), f32({1, 3}, {8, 8, 8})));
  test::expect_errors(larger, {EC::ShapeMismatch});
  EXPECT_EQ(larger.error_clause, "MS-MSG4");
  // A float src: grad_input only (measured).
  const Expectation value =
      evaluate(mint_call("mindspore.mint.scatter", i64({1, 2}, {2, 4}), std::nullopt,
                         {{"dim", Arg::of_int(1)}, {"value", Arg::of_scalar(Scalar::of_float(2.5))}}));
  EXPECT_EQ(output_names(value), std::vector<std::string>{"grad_input"});
  EXPECT_TRUE(allows_all(grad(value, "grad_input"), {1, 2, 0, 4, 0}));
  // A negative index value from r2.10: the forward is unspecified (MS-MS8), so is the backward.
  OpCall negative_call = mint_call("mindspore.mint.scatter", i64({1, 2}, {-1, 0}), f32({1, 2}, {8, 8}));
  negative_call.framework_version = "2.10";
  const Expectation negative = evaluate(negative_call);
  EXPECT_TRUE(negative.unspecified);
  EXPECT_TRUE(test::cites(negative, "MS-MS8"));
}

TEST(ReferenceMindsporeElementsBackward, MintScatterAddPassesGradOutputAndZeroesUnreadSrc) {
  // src [1, 3] larger than index [1, 2] (MS-MSA7 allows it): src[0][2] is never read.
  const Expectation e = evaluate(mint_call("mindspore.mint.scatter_add", i64({1, 2}, {2, 2}), f32({1, 3}, {8, 9, 10})));
  EXPECT_TRUE(allows_all(grad(e, "grad_input"), {1, 2, 3, 4, 5}));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {3, 3, 0}));
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {3, 0, 0}));     // every term gets the gradient
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {3, 3, -0.0}));  // never read: a fresh +0.0
  EXPECT_FALSE(allows_all(grad(e, "grad_input"), {1, 2, 0, 4, 5}));
  EXPECT_TRUE(test::cites(e, "MS-MSG6"));
  // MS-MSG2 for an int32 input and src.
  OpCall ints = mint_call("mindspore.mint.scatter_add", i64({1, 2}, {2, 2}), test::i32({1, 2}, {8, 9}));
  ints.tensors.at("input") = test::i32({1, 5}, {1, 2, 3, 4, 5});
  ints.tensors.at(std::string(kGradOutput)) = test::i32({1, 5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(evaluate(ints).error_clause, "MS-MSG2");
}

}  // namespace
}  // namespace sp
