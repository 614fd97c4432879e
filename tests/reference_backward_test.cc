// reference_backward_test.cc — the backward references (reference/*_backward.cc),
// clause by clause (reference/SEMANTICS.md, "Gradients": T-GR*, PD-GR*).
//
// Soundness: what the real frameworks return is allowed. Values marked
// "measured" were taken from torch.autograd.grad on torch 2.15.0 and 1.13 and
// from paddle.grad on PaddlePaddle 3.3.1 (specs/edge/*-backward.json holds the
// same cases). Tightness: a wrong gradient is rejected — a dropped duplicate
// term, a written position not zeroed, a split over the wrong count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;
using test::tensor_of;
using test::values_of;
using EC = ErrorCategory;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The backward of `forward` with the forward's operands plus grad_output.
OpCall backward_call(const std::string& forward, std::map<std::string, Tensor> tensors, Tensor grad_output,
                     std::map<std::string, Arg> args = {}) {
  tensors.emplace(std::string(kGradOutput), std::move(grad_output));
  return test::call_of(forward + ".backward", std::move(tensors), std::move(args));
}
std::map<std::string, Arg> dim(int64_t d) { return {{"dim", Arg::of_int(d)}}; }
std::map<std::string, Arg> reduce_args(int64_t d, const std::string& reduce, bool include_self) {
  return {{"dim", Arg::of_int(d)}, {"reduce", Arg::of_string(reduce)}, {"include_self", Arg::of_bool(include_self)}};
}

using test::allows_all;
using test::grad;
using test::output_names;
uint64_t bits(DType t, double v) { return bits_from_value(t, Value::of_float(v)); }

// ---- T-GR6: gather ----

TEST(ReferenceBackward, GatherSeedExampleAccumulatesDuplicates) {
  // 000: torch.gather(t, 1, [[0, 0], [1, 0]]); out[0][0] and out[0][1] read t[0][0].
  const Expectation e = evaluate(
      backward_call("torch.gather", {{"input", f32({2, 2}, {1, 2, 3, 4})}, {"index", i64({2, 2}, {0, 0, 1, 0})}},
                    f32({2, 2}, {1, 2, 3, 4}), dim(1)));
  EXPECT_EQ(output_names(e), std::vector<std::string>{"grad_input"});
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_EQ(values_of(g.exact), (std::vector<double>{3, 0, 4, 3}));
  EXPECT_TRUE(allows_all(g, {3, 0, 4, 3}));               // measured, torch 2.15 and 1.13
  EXPECT_FALSE(allows_all(g, {2, 0, 4, 3}));              // only the last duplicate's term
  EXPECT_FALSE(allows_all(g, {1, 0, 4, 3}));              // only the first
  EXPECT_FALSE(allows_all(g, {3, 0, 3, 4}));              // routed to the wrong element
  EXPECT_FALSE(g.allows(1, bits(DType::Float32, -0.0)));  // an unread element is a fresh +0.0
}

TEST(ReferenceBackward, GatherFloatSumIsAnIntervalThatRejectsADroppedTerm) {
  const Expectation e =
      evaluate(backward_call("torch.gather", {{"input", f32({2}, {5, 6})}, {"index", i64({4}, {0, 0, 0, 1})}},
                             f32({4}, {0.1, 0.2, 0.3, 7}), dim(0)));
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_EQ(g.loose.count(0), 1u);
  // measured: torch 2.15 and 1.13 give 0.6000000238418579 (float32).
  EXPECT_TRUE(g.allows(0, bits(DType::Float32, 0.6000000238418579)));
  EXPECT_TRUE(g.allows(0, bits(DType::Float32, 0.6)));
  EXPECT_FALSE(g.allows(0, bits(DType::Float32, 0.3)));  // 0.1 + 0.2, the 0.3 term dropped
  EXPECT_FALSE(g.allows(0, bits(DType::Float32, 0.5)));  // 0.2 + 0.3
  EXPECT_TRUE(g.allows(1, bits(DType::Float32, 7)));
}

TEST(ReferenceBackward, GatherFloat16SumsOfBothTorchVersionsAreAllowed) {
  const Expectation e = evaluate(
      backward_call("torch.gather", {{"input", tensor_of(DType::Float16, {2}, {1, 2})}, {"index", i64({3}, {1, 1, 1})}},
                    tensor_of(DType::Float16, {3}, {0.1, 0.2, 0.3}), dim(0)));
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_TRUE(g.allows(1, bits(DType::Float16, 0.60009765625)));  // measured, torch 2.15
  EXPECT_TRUE(g.allows(1, bits(DType::Float16, 0.599609375)));    // measured, torch 1.13
  EXPECT_FALSE(g.allows(1, bits(DType::Float16, 0.5)));           // 0.2 + 0.3 only
  EXPECT_FALSE(g.allows(1, bits(DType::Float16, 0.2998046875)));  // 0.1 + 0.2 only
}

TEST(ReferenceBackward, GatherSingleMinusZeroTermBecomesPlusZero) {
  // measured: torch gives +0.0 (0x00000000): zeros + (-0.0).
  const Expectation e = evaluate(backward_call(
      "torch.gather", {{"input", f32({3}, {5, 6, 7})}, {"index", i64({1}, {1})}}, f32({1}, {-0.0}), dim(0)));
  const ExpectedTensor& g = grad(e, "grad_input");
  EXPECT_TRUE(g.loose.empty());
  EXPECT_TRUE(g.allows(1, bits(DType::Float32, 0.0)));
  EXPECT_FALSE(g.allows(1, bits(DType::Float32, -0.0)));
}

TEST(ReferenceBackward, GatherEmptyIndexGivesZeros) {
  const Expectation e = evaluate(
      backward_call("torch.gather", {{"input", f32({2}, {1, 2})}, {"index", i64({0}, {})}}, f32({0}, {}), dim(0)));
  EXPECT_EQ(values_of(grad(e, "grad_input").exact), (std::vector<double>{0, 0}));
}

// ---- T-GR1, T-GR2, T-GR3: the rules every backward shares ----

TEST(ReferenceBackward, ForwardErrorCarriesOver) {
  // 000: index 2 is out of bounds for dimension 1 with size 2.
  const Expectation e = evaluate(
      backward_call("torch.gather", {{"input", f32({3, 2}, {1, 2, 3, 4, 6, 8})}, {"index", i64({2, 2}, {1, 0, 0, 2})}},
                    f32({2, 2}, {1, 1, 1, 1}), dim(1)));
  test::expect_errors(e, {EC::IndexOutOfBounds});
  EXPECT_EQ(e.error_clause, "T-B1");
}

TEST(ReferenceBackward, IntegralOperandCannotRequireGrad) {
  const Expectation e = evaluate(
      backward_call("torch.gather", {{"input", i64({2}, {1, 2})}, {"index", i64({1}, {0})}}, i64({1}, {1}), dim(0)));
  test::expect_errors(e, {EC::UnsupportedDtype});
  EXPECT_EQ(e.error_clause, "T-GR2");
  // With a forward error too, both are allowed, the forward's first.
  const Expectation both = evaluate(
      backward_call("torch.gather", {{"input", i64({2}, {1, 2})}, {"index", i64({1}, {5})}}, i64({1}, {1}), dim(0)));
  test::expect_errors(both, {EC::IndexOutOfBounds, EC::UnsupportedDtype});
}

TEST(ReferenceBackward, GradOutputMustBeShapedAndTypedLikeTheOutput) {
  const std::map<std::string, Tensor> ops{{"input", f32({3}, {1, 2, 3})}, {"index", i64({2}, {0, 2})}};
  test::expect_errors(evaluate(backward_call("torch.gather", ops, f32({3}, {1, 2, 3}), dim(0))), {EC::ShapeMismatch});
  test::expect_errors(evaluate(backward_call("torch.gather", ops, test::f64({2}, {1, 2}), dim(0))),
                      {EC::DtypeMismatch});
  test::expect_errors(evaluate(backward_call("torch.gather", ops, test::f64({3}, {1, 2, 3}), dim(0))),
                      {EC::ShapeMismatch, EC::DtypeMismatch});
}

// ---- T-GR4, T-GR7, T-GR8: scatter_ / scatter ----

std::map<std::string, Tensor> dup_scatter_operands() {
  return {{"self", f32({3}, {0, 0, 0})}, {"index", i64({3}, {0, 0, 2})}, {"src", f32({3}, {1, 2, 3})}};
}

TEST(ReferenceBackward, ScatterDuplicatesPropagateToEveryWriter) {
  // 002 Warning; measured (torch 2.15, 1.13): grad_self [0, 2, 0], grad_src [-1, -1, 3].
  const Expectation e = evaluate(backward_call("torch.scatter_", dup_scatter_operands(), f32({3}, {-1, 2, 3}), dim(0)));
  EXPECT_EQ(output_names(e), (std::vector<std::string>{"grad_self", "grad_src"}));
  const ExpectedTensor& gs = grad(e, "grad_self");
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(allows_all(gs, {0, 2, 0}));
  EXPECT_TRUE(allows_all(gsrc, {-1, -1, 3}));
  EXPECT_TRUE(gsrc.loose.empty());
  EXPECT_FALSE(allows_all(gsrc, {0, -1, 3}));  // only the last writer
  EXPECT_FALSE(allows_all(gsrc, {-1, 0, 3}));  // only the first writer
  EXPECT_FALSE(allows_all(gs, {-1, 2, 0}));    // a written position not zeroed
  EXPECT_FALSE(allows_all(gs, {0, 0, 0}));     // an unwritten position zeroed
  // T-GR5: a masked zero may carry either sign (a mask multiplication gives -0.0).
  EXPECT_TRUE(allows_all(gs, {-0.0, 2, -0.0}));
}

TEST(ReferenceBackward, ScatterGradSrcCopiesBits) {
  // bfloat16: grad_src copies grad_output[1] = -0.0 bit for bit (measured 0x8000).
  const Expectation e = evaluate(backward_call("torch.scatter",
                                               {{"self", tensor_of(DType::BFloat16, {3}, {1, 2, 3})},
                                                {"index", i64({1}, {1})},
                                                {"src", tensor_of(DType::BFloat16, {1}, {4})}},
                                               tensor_of(DType::BFloat16, {3}, {1.5, -0.0, kNaN}), dim(0)));
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(gsrc.allows(0, bits(DType::BFloat16, -0.0)));
  EXPECT_FALSE(gsrc.allows(0, bits(DType::BFloat16, 0.0)));
  const ExpectedTensor& gs = grad(e, "grad_self");
  EXPECT_TRUE(gs.allows(2, bits(DType::BFloat16, kNaN)));  // passes through
  EXPECT_TRUE(gs.allows(0, bits(DType::BFloat16, 1.5)));
}

TEST(ReferenceBackward, ScatterNeedsSrcShapedLikeIndex) {
  // 002's first example: src [2, 5], index [1, 4].
  std::vector<double> src(10);
  for (int k = 0; k < 10; ++k) src[static_cast<size_t>(k)] = k + 1;
  const Expectation e = evaluate(backward_call("torch.scatter_",
                                               {{"self", f32({3, 5}, std::vector<double>(15, 0))},
                                                {"index", i64({1, 4}, {0, 1, 2, 0})},
                                                {"src", f32({2, 5}, src)}},
                                               f32({3, 5}, std::vector<double>(15, 1)), dim(0)));
  test::expect_errors(e, {EC::ShapeMismatch});
  EXPECT_EQ(e.error_clause, "T-GR4");
  // An empty index [0, 3] with src [1, 3]: still an error (torch returns zeros, a listed deviation).
  test::expect_errors(
      evaluate(backward_call(
          "torch.scatter_",
          {{"self", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"index", i64({0, 3}, {})}, {"src", f32({1, 3}, {1, 1, 1})}},
          f32({2, 3}, {1, 2, 3, 4, 5, 6}), dim(0))),
      {EC::ShapeMismatch});
}

TEST(ReferenceBackward, ScatterValueFormHasOnlyGradSelf) {
  std::map<std::string, Arg> args = dim(0);
  args.emplace("value", Arg::of_scalar(Scalar::of_float(1.5)));
  const Expectation e = evaluate(backward_call(
      "torch.scatter_", {{"self", f32({3}, {0, 0, 0})}, {"index", i64({3}, {0, 0, 2})}}, f32({3}, {-1, 2, -3}), args));
  EXPECT_EQ(output_names(e), std::vector<std::string>{"grad_self"});
  EXPECT_TRUE(allows_all(grad(e, "grad_self"), {0, 2, 0}));  // measured
  EXPECT_FALSE(allows_all(grad(e, "grad_self"), {-1, 2, -3}));
}

TEST(ReferenceBackward, ScatterWithReduceIsUnspecified) {
  std::map<std::string, Arg> args = dim(0);
  args.emplace("reduce", Arg::of_string("add"));
  const Expectation e = evaluate(backward_call("torch.scatter_", dup_scatter_operands(), f32({3}, {1, 1, 1}), args));
  EXPECT_TRUE(e.unspecified);
  EXPECT_EQ(e.unspecified_reason.rfind("T-GR8", 0), 0u) << e.unspecified_reason;
}

TEST(ReferenceBackward, InPlaceSelfIsOnlyReadSoAnExpandedSelfIsNoOverlap) {
  // The forward scatter_ refuses an expanded self (T-O1); its backward reads it only.
  const Tensor expanded = test::relaid(f32({2, 2}, {0, 0, 0, 0}), test::Layout::Expanded);
  ASSERT_TRUE(expanded.has_internal_overlap());
  const Expectation e = evaluate(backward_call(
      "torch.scatter_", {{"self", expanded}, {"index", i64({1, 2}, {1, 0})}, {"src", f32({1, 2}, {5, 6})}},
      f32({2, 2}, {1, 2, 3, 4}), dim(0)));
  EXPECT_TRUE(allows_all(grad(e, "grad_self"), {1, 0, 0, 4}));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {3, 2}));
}

// ---- T-GR9: scatter_add ----

TEST(ReferenceBackward, ScatterAddPassesGradSelfAndGathersGradSrc) {
  const Expectation e =
      evaluate(backward_call("torch.scatter_add_", dup_scatter_operands(), f32({3}, {1, -2, 3}), dim(0)));
  const ExpectedTensor& gs = grad(e, "grad_self");
  EXPECT_TRUE(gs.loose.empty());
  EXPECT_EQ(values_of(gs.exact), (std::vector<double>{1, -2, 3}));  // measured
  EXPECT_FALSE(allows_all(gs, {0, -2, 0}));                         // zeroed like scatter_'s: wrong here
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {1, 1, 3}));
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {0, 1, 3}));
}

// ---- T-GR10 .. T-GR13: scatter_reduce ----

Tensor doc_index() { return i64({6}, {0, 1, 0, 1, 2, 1}); }
Tensor doc_src() { return f32({6}, {1, 2, 3, 4, 5, 6}); }

TEST(ReferenceBackward, ScatterReduceSumAndIncludeSelf) {
  const Tensor go = f32({4}, {1, -2, 3, 4});
  const std::map<std::string, Tensor> ops{{"self", f32({4}, {1, 2, 3, 4})}, {"index", doc_index()}, {"src", doc_src()}};
  const Expectation with = evaluate(backward_call("torch.scatter_reduce", ops, go, reduce_args(0, "sum", true)));
  EXPECT_TRUE(allows_all(grad(with, "grad_self"), {1, -2, 3, 4}));  // measured
  EXPECT_TRUE(allows_all(grad(with, "grad_src"), {1, -2, 1, -2, 3, -2}));
  const Expectation without = evaluate(backward_call("torch.scatter_reduce", ops, go, reduce_args(0, "sum", false)));
  EXPECT_TRUE(allows_all(grad(without, "grad_self"), {0, 0, 0, 4}));  // measured
  EXPECT_FALSE(allows_all(grad(without, "grad_self"), {1, -2, 3, 4}));
  EXPECT_TRUE(allows_all(grad(without, "grad_src"), {1, -2, 1, -2, 3, -2}));
}

TEST(ReferenceBackward, ScatterReduceMeanDividesByTheTermCount) {
  const Tensor go = f32({4}, {1, -2, 3, 4});
  const std::map<std::string, Tensor> ops{{"self", f32({4}, {1, 2, 3, 4})}, {"index", doc_index()}, {"src", doc_src()}};
  // measured (torch 2.15, 1.13): slot 0 has 3 terms with self, slot 1 four, slot 2 two.
  const Expectation with = evaluate(backward_call("torch.scatter_reduce", ops, go, reduce_args(0, "mean", true)));
  EXPECT_TRUE(allows_all(grad(with, "grad_self"), {0.3333333432674408, -0.5, 1.5, 4}));
  EXPECT_TRUE(allows_all(grad(with, "grad_src"), {0.3333333432674408, -0.5, 0.3333333432674408, -0.5, 1.5, -0.5}));
  // Counting self where include_self=False would give these: rejected.
  const Expectation without = evaluate(backward_call("torch.scatter_reduce", ops, go, reduce_args(0, "mean", false)));
  EXPECT_TRUE(allows_all(grad(without, "grad_self"), {0, 0, 0, 4}));
  EXPECT_TRUE(allows_all(grad(without, "grad_src"),
                         {0.5, -0.6666666865348816, 0.5, -0.6666666865348816, 3, -0.6666666865348816}));
  EXPECT_FALSE(allows_all(grad(without, "grad_src"), {0.3333333432674408, -0.5, 0.3333333432674408, -0.5, 1.5, -0.5}));
}

TEST(ReferenceBackward, ScatterReduceMeanFloat16QuotientIsRoundedInTheDtype) {
  const Expectation e = evaluate(backward_call("torch.scatter_reduce",
                                               {{"self", tensor_of(DType::Float16, {2}, {1, 1})},
                                                {"index", i64({2}, {0, 0})},
                                                {"src", tensor_of(DType::Float16, {2}, {1, 1})}},
                                               tensor_of(DType::Float16, {2}, {1, 0.1}), reduce_args(0, "mean", true)));
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(gsrc.allows(0, bits(DType::Float16, 0.333251953125)));  // measured
  EXPECT_FALSE(gsrc.allows(0, bits(DType::Float16, 0.333496094)));    // one float16 ulp up
  EXPECT_FALSE(gsrc.allows(0, bits(DType::Float16, 0.5)));            // divided by 2 (self not counted)
  EXPECT_TRUE(grad(e, "grad_self").allows(1, bits(DType::Float16, 0.0999755859375)));  // grad / 1
}

TEST(ReferenceBackward, ScatterReduceAmaxSplitsTiesEvenly) {
  // measured: self [5, 4, 3, 2], src [1, 5, 5, 4, 5, 6]; slot 0 ties self and src[2].
  const Expectation e = evaluate(
      backward_call("torch.scatter_reduce_",
                    {{"self", f32({4}, {5, 4, 3, 2})}, {"index", doc_index()}, {"src", f32({6}, {1, 5, 5, 4, 5, 6})}},
                    f32({4}, {1, -2, 3, 4}), reduce_args(0, "amax", true)));
  EXPECT_TRUE(allows_all(grad(e, "grad_self"), {0.5, -0.0, 0, 4}));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {0, -0.0, 0.5, -0.0, 3, -2}));
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {0, 0, 1, 0, 3, -2}));  // self not counted in the tie
  EXPECT_FALSE(allows_all(grad(e, "grad_self"), {1, 0, 0, 4}));        // all to self
}

TEST(ReferenceBackward, ScatterReduceAmaxWithoutSelfDoesNotCountSelf) {
  // The rule: 6 split between the two src terms. torch 2.15 and 1.13 give
  // [2, 2] (self counted though not a term), a listed deviation.
  const Expectation e = evaluate(backward_call(
      "torch.scatter_reduce", {{"self", f32({2}, {5, 0})}, {"index", i64({2}, {0, 0})}, {"src", f32({2}, {5, 5})}},
      f32({2}, {6, 1}), reduce_args(0, "amax", false)));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {3, 3}));
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {2, 2}));
  EXPECT_TRUE(allows_all(grad(e, "grad_self"), {0, 1}));
}

TEST(ReferenceBackward, ScatterReduceAmaxNaNSlotIsUnspecified) {
  const Expectation e = evaluate(backward_call(
      "torch.scatter_reduce", {{"self", f32({2}, {1, 2})}, {"index", i64({2}, {0, 1})}, {"src", f32({2}, {kNaN, 3})}},
      f32({2}, {1, 1}), reduce_args(0, "amax", true)));
  EXPECT_TRUE(grad(e, "grad_src").loose.at(0).unspecified);
  EXPECT_TRUE(grad(e, "grad_self").loose.at(0).unspecified);
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {123, 1}));  // slot 1 is defined: src[1] = 3 is the max
  EXPECT_FALSE(allows_all(grad(e, "grad_src"), {123, 0}));
}

TEST(ReferenceBackward, ScatterReduceProdIsUnspecifiedAndSrcShapeChecked) {
  const std::map<std::string, Tensor> ops{
      {"self", f32({2}, {1, 2})}, {"index", i64({2}, {0, 0})}, {"src", f32({2}, {3, 4})}};
  EXPECT_TRUE(
      evaluate(backward_call("torch.scatter_reduce", ops, f32({2}, {1, 1}), reduce_args(0, "prod", true))).unspecified);
  test::expect_errors(
      evaluate(backward_call("torch.scatter_reduce",
                             {{"self", f32({2}, {1, 2})}, {"index", i64({1}, {0})}, {"src", f32({2}, {3, 4})}},
                             f32({2}, {1, 1}), reduce_args(0, "prod", true))),
      {EC::ShapeMismatch});
}

// ---- PD-GR*: paddle.scatter ----

OpCall paddle_call(Tensor x, Tensor index, Tensor updates, Tensor go, bool overwrite) {
  return backward_call("paddle.scatter", {{"x", std::move(x)}, {"index", std::move(index)}, {"updates", updates}},
                       std::move(go), {{"overwrite", Arg::of_bool(overwrite)}});
}

TEST(ReferenceBackward, PaddleSeedExampleBothModes) {
  // measured (Paddle 3.3.1): both modes give grad_x 0 and grad_updates
  // [[5, 6], [3, 4], [1, 2], [3, 4]]: both duplicates of row 1 get its gradient.
  for (bool overwrite : {false, true}) {
    const Expectation e =
        evaluate(paddle_call(f32({3, 2}, {1, 1, 2, 2, 3, 3}), i64({4}, {2, 1, 0, 1}),
                             f32({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4}), f32({3, 2}, {1, 2, 3, 4, 5, 6}), overwrite));
    EXPECT_EQ(output_names(e), (std::vector<std::string>{"grad_x", "grad_updates"}));
    EXPECT_TRUE(allows_all(grad(e, "grad_x"), {0, 0, 0, 0, 0, 0}));
    EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {5, 6, 3, 4, 1, 2, 3, 4}));
    EXPECT_FALSE(allows_all(grad(e, "grad_updates"), {5, 6, 0, 0, 1, 2, 3, 4}));  // the overwritten duplicate dropped
    EXPECT_FALSE(allows_all(grad(e, "grad_x"), {1, 2, 3, 4, 5, 6}));              // indexed rows not zeroed
  }
}

TEST(ReferenceBackward, PaddleRowsPastIndexGetZero) {
  // Paddle 3.3.1 leaves these rows uninitialised (a listed deviation).
  const Expectation e =
      evaluate(paddle_call(f32({3, 2}, {1, 1, 2, 2, 3, 3}), i64({2}, {2, 0}), f32({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4}),
                           f32({3, 2}, {1, 2, 3, 4, 5, 6}), true));
  EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {5, 6, 1, 2, 0, 0, 0, 0}));
  EXPECT_FALSE(allows_all(grad(e, "grad_updates"), {5, 6, 1, 2, 5, 6, 7, 8}));  // measured garbage
  EXPECT_TRUE(allows_all(grad(e, "grad_x"), {0, 0, 3, 4, 0, 0}));
}

TEST(ReferenceBackward, PaddleUndocumentedDtypeStillAllowsTheForwardsError) {
  const Expectation e = evaluate(paddle_call(tensor_of(DType::Float16, {2, 1}, {1, 2}), i64({1}, {1}),
                                             tensor_of(DType::Float16, {1, 1}, {5}),
                                             tensor_of(DType::Float16, {2, 1}, {0.5, 0.25}), true));
  EXPECT_TRUE(e.allows_error(EC::UnsupportedDtype));  // PD-T1
  EXPECT_TRUE(allows_all(grad(e, "grad_x"), {0.5, 0}));
  EXPECT_TRUE(allows_all(grad(e, "grad_updates"), {0.25}));
  test::expect_errors(evaluate(paddle_call(test::i32({2, 1}, {1, 2}), i64({1}, {1}), test::i32({1, 1}, {5}),
                                           test::i32({2, 1}, {1, 2}), true)),
                      {EC::UnsupportedDtype});
}

// ---- layouts and the trace ----

TEST(ReferenceBackward, AnswerDoesNotDependOnGradOutputLayout) {
  const Tensor go = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::map<std::string, Tensor> ops{{"self", f32({2, 3}, {0, 0, 0, 0, 0, 0})},
                                          {"index", i64({2, 2}, {1, 0, 0, 0})},
                                          {"src", f32({2, 2}, {1, 2, 3, 4})}};
  const Expectation want = evaluate(backward_call("torch.scatter", ops, go, dim(0)));
  for (test::Layout layout : test::kLayouts) {
    const Expectation got = evaluate(backward_call("torch.scatter", ops, test::relaid(go, layout), dim(0)));
    for (const char* name : {"grad_self", "grad_src"}) {
      EXPECT_EQ(grad(got, name).exact.to_bits(), grad(want, name).exact.to_bits()) << name;
      EXPECT_EQ(grad(got, name).loose.size(), grad(want, name).loose.size()) << name;
    }
  }
}

TEST(ReferenceBackward, TraceShowsTheGradientReachingEverySourcePosition) {
  const OpCall call = backward_call("torch.scatter_", dup_scatter_operands(), f32({3}, {-1, 2, 3}), dim(0));
  Trace trace;
  const Expectation e = evaluate(call, &trace);
  std::string text;
  for (const std::string& line : explain_lines(call, e, trace)) text += line + "\n";
  EXPECT_NE(text.find("grad_output[0]=-1.0 -> grad_src[0] = grad_output[0] because index[0]=0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("grad_output[0]=-1.0 -> grad_src[1] = grad_output[0] because index[1]=0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("grad_self[1] = grad_output[1]"), std::string::npos) << text;
  EXPECT_NE(text.find("[T-GR4] ok"), std::string::npos) << text;
}

TEST(ReferenceBackward, GatherTraceShowsEachAccumulatedTerm) {
  const OpCall call = backward_call("torch.gather", {{"input", f32({2}, {1, 2})}, {"index", i64({2}, {1, 1})}},
                                    f32({2}, {3, 4}), dim(0));
  Trace trace;
  const Expectation e = evaluate(call, &trace);
  std::string text;
  for (const std::string& line : explain_lines(call, e, trace)) text += line + "\n";
  EXPECT_NE(text.find("grad_input[1] += grad_output[0] because index[0]=1"), std::string::npos) << text;
  EXPECT_NE(text.find("grad_input[1] += grad_output[1] because index[1]=1"), std::string::npos) << text;
}

}  // namespace
}  // namespace sp
