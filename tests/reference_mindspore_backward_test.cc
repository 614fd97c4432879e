// reference_mindspore_backward_test.cc — the backward of mindspore.scatter_
// (reference/mindspore_scatter_backward.cc), clause by clause
// (reference/SEMANTICS.md, "Gradients", MS-GR*).
//
// Soundness: what MindSpore returns is allowed. Values marked "measured"
// were taken on MindSpore 2.10.0 CPU with mindspore.vjp over
// ops.tensor_scatter_elements (Tensor.scatter_ has no CPU kernel there;
// specs/edge/mindspore-backward.json holds the same cases). Tightness: a
// wrong gradient is rejected — a written slot not zeroed, a duplicate
// writer given another slot's gradient, a negative index not wrapped.
#include <gtest/gtest.h>

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
using EC = ErrorCategory;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// mindspore.scatter_.backward at documentation version `doc_version` (""
// is the baseline, seed 003's r2.3).
OpCall backward_call(std::map<std::string, Tensor> tensors, Tensor grad_output, std::map<std::string, Arg> args,
                     const std::string& doc_version = "") {
  tensors.emplace(std::string(kGradOutput), std::move(grad_output));
  OpCall call = test::call_of("mindspore.scatter_.backward", std::move(tensors), std::move(args));
  call.framework_version = doc_version;
  return call;
}
std::map<std::string, Arg> dim(int64_t d) { return {{"dim", Arg::of_int(d)}}; }
std::map<std::string, Arg> with(std::map<std::string, Arg> args, const std::string& name, Arg a) {
  args.emplace(name, std::move(a));
  return args;
}

using test::allows_all;
using test::grad;
using test::output_names;
uint64_t bits(DType t, double v) { return bits_from_value(t, Value::of_float(v)); }

const Tensor kSelf = f32({2, 3}, {0, 1, 2, 3, 4, 5});
const Tensor kGrad = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(ReferenceMindsporeBackward, SrcFormZeroesWrittenSlotsAndGathersGradOutput) {
  // measured: grad_self [[1, 0, 3], [0, 5, 0]], grad_src [[4, 2, 6]].
  const Expectation e = evaluate(backward_call(
      {{"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", f32({1, 3}, {10, 20, 30})}}, kGrad, dim(0)));
  EXPECT_EQ(output_names(e), (std::vector<std::string>{"grad_self", "grad_src"}));
  const ExpectedTensor& gs = grad(e, "grad_self");
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(allows_all(gs, {1, 0, 3, 0, 5, 0}));
  EXPECT_TRUE(allows_all(gs, {1, -0.0, 3, -0.0, 5, -0.0}));  // a masked zero of either sign
  EXPECT_TRUE(allows_all(gsrc, {4, 2, 6}));
  EXPECT_TRUE(gsrc.loose.empty());                   // no duplicates: exact copies
  EXPECT_FALSE(allows_all(gs, {1, 2, 3, 0, 5, 0}));  // a written slot not zeroed
  EXPECT_FALSE(allows_all(gs, {0, 0, 3, 0, 5, 0}));  // an unwritten one zeroed
  EXPECT_FALSE(allows_all(gsrc, {1, 5, 3}));         // gathered from the wrong row
  EXPECT_FALSE(allows_all(gsrc, {0, 2, 6}));         // a single writer's gradient is not optional
}

TEST(ReferenceMindsporeBackward, DuplicateWriterGetsTheSlotGradientOrZero) {
  // index [[1, 1, 1], [1, 0, 1]]: columns 0 and 2 are written twice.
  // measured (vjp): every writer gets it, grad_src [[4, 5, 6], [4, 2, 6]].
  const Expectation e = evaluate(backward_call(
      {{"self", kSelf}, {"index", i64({2, 3}, {1, 1, 1, 1, 0, 1})}, {"src", f32({2, 3}, {10, 11, 12, 13, 14, 15})}},
      kGrad, dim(0)));
  const ExpectedTensor& gs = grad(e, "grad_self");
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(allows_all(gs, {1, 0, 3, 0, 0, 0}));
  EXPECT_TRUE(allows_all(gsrc, {4, 5, 6, 4, 2, 6}));     // measured: every writer
  EXPECT_TRUE(allows_all(gsrc, {0, 5, 0, 4, 2, 6}));     // only the last writers
  EXPECT_TRUE(allows_all(gsrc, {4, 5, -0.0, 0, 2, 6}));  // any mix, zeros of either sign
  EXPECT_FALSE(allows_all(gsrc, {4, 0, 6, 4, 2, 6}));    // src[0][1] wrote self[1][1] alone
  EXPECT_FALSE(allows_all(gsrc, {1, 5, 6, 4, 2, 6}));    // another slot's gradient
  EXPECT_FALSE(allows_all(gs, {1, 0, 3, 4, 0, 0}));      // a doubly written slot not zeroed
  EXPECT_EQ(gsrc.loose.size(), 4u);                      // the four duplicate writers
}

TEST(ReferenceMindsporeBackward, SrcMustBeShapedLikeIndexEvenWithAnEmptyIndex) {
  // The Note: "The inverse gradient from self to src can be calculated only
  // when the shape of src is the same as that of index." The forward takes a
  // larger src (MS-S2). measured: shape_mismatch (the CPU kernel's own rule).
  const Expectation larger = evaluate(backward_call(
      {{"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", f32({2, 3}, {1, 2, 3, 4, 5, 6})}}, kGrad, dim(0)));
  test::expect_errors(larger, {EC::ShapeMismatch});
  EXPECT_EQ(larger.error_clause, "MS-GR4");
  // An empty index skips the forward's shape rules (MS-E1), not this one.
  test::expect_errors(
      evaluate(
          backward_call({{"self", kSelf}, {"index", i64({0, 3}, {})}, {"src", f32({1, 3}, {1, 2, 3})}}, kGrad, dim(0))),
      {EC::ShapeMismatch});
  // measured: grad_self = grad_output, grad_src empty.
  const Expectation empty =
      evaluate(backward_call({{"self", kSelf}, {"index", i64({0, 3}, {})}, {"src", f32({0, 3}, {})}}, kGrad, dim(0)));
  EXPECT_TRUE(allows_all(grad(empty, "grad_self"), {1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(allows_all(grad(empty, "grad_self"), {0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(grad(empty, "grad_src").exact.numel(), 0);
  // Nor its rank rule: index [0] on a rank-2 self (MindSpore refuses it, a listed deviation).
  const Expectation rank1 =
      evaluate(backward_call({{"self", kSelf}, {"index", i64({0}, {})}, {"src", f32({0}, {})}}, kGrad, dim(0)));
  EXPECT_TRUE(allows_all(grad(rank1, "grad_self"), {1, 2, 3, 4, 5, 6}));
}

TEST(ReferenceMindsporeBackward, NegativeIndexWrapsInR23AndIsUnspecifiedFromR210) {
  const std::map<std::string, Tensor> ops{
      {"self", kSelf}, {"index", i64({1, 3}, {-1, 0, -2})}, {"src", f32({1, 3}, {10, 20, 30})}};
  // measured (vjp wraps as r2.3 says): grad_self [[1, 0, 0], [0, 5, 6]], grad_src [[4, 2, 3]].
  const Expectation r23 = evaluate(backward_call(ops, kGrad, dim(0), "2.3"));
  EXPECT_TRUE(allows_all(grad(r23, "grad_self"), {1, 0, 0, 0, 5, 6}));
  EXPECT_TRUE(allows_all(grad(r23, "grad_src"), {4, 2, 3}));
  EXPECT_FALSE(allows_all(grad(r23, "grad_src"), {4, 2, 6}));  // -2 read as row 1
  const Expectation r210 = evaluate(backward_call(ops, kGrad, dim(0), "r2.10"));
  EXPECT_TRUE(r210.unspecified);
  EXPECT_NE(r210.unspecified_reason.find("MS-N1"), std::string::npos) << r210.unspecified_reason;
  EXPECT_EQ(r210.unspecified_reason.rfind("MS-GR1", 0), 0u) << r210.unspecified_reason;
}

TEST(ReferenceMindsporeBackward, ValueOverloadHasOnlyGradSelfAndIsGoneFromR210) {
  const std::map<std::string, Arg> args = with(dim(0), "value", Arg::of_scalar(Scalar::of_float(2.5)));
  const std::map<std::string, Tensor> ops{{"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}};
  const Expectation r23 = evaluate(backward_call(ops, kGrad, args, "2.3"));
  EXPECT_EQ(output_names(r23), std::vector<std::string>{"grad_self"});
  EXPECT_TRUE(allows_all(grad(r23, "grad_self"), {1, 0, 3, 0, 5, 0}));
  EXPECT_FALSE(allows_all(grad(r23, "grad_self"), {1, 2, 3, 4, 5, 6}));
  const Expectation r210 = evaluate(backward_call(ops, kGrad, args, "2.10"));
  test::expect_errors(r210, {EC::InvalidArgument});
  EXPECT_EQ(r210.error_clause, "MS-N2");
}

TEST(ReferenceMindsporeBackward, ReduceIsUnspecifiedAndAnUnknownReduceIsTheForwardsError) {
  const std::map<std::string, Tensor> ops{
      {"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", f32({1, 3}, {10, 20, 30})}};
  for (const char* r : {"add", "multiply"}) {
    const Expectation e = evaluate(backward_call(ops, kGrad, with(dim(0), "reduce", Arg::of_string(r))));
    EXPECT_TRUE(e.unspecified) << r;
    EXPECT_EQ(e.unspecified_reason.rfind("MS-GR6", 0), 0u) << e.unspecified_reason;
  }
  // measured: ValueError "Failed to convert the value "mean" of input 'reduce'".
  test::expect_errors(evaluate(backward_call(ops, kGrad, with(dim(0), "reduce", Arg::of_string("mean")))),
                      {EC::InvalidReduce});
  // reduce with a src shaped unlike index: MS-GR4 comes first (a checked rule before an open one).
  test::expect_errors(
      evaluate(
          backward_call({{"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", f32({2, 3}, {1, 2, 3, 4, 5, 6})}},
                        kGrad, with(dim(0), "reduce", Arg::of_string("add")))),
      {EC::ShapeMismatch});
}

TEST(ReferenceMindsporeBackward, GradSrcCopiesFloat16BitsAndSpecials) {
  // measured float16: grad_src [[0.39990234, 0.19995117, 65504]].
  const Expectation e =
      evaluate(backward_call({{"self", tensor_of(DType::Float16, {2, 3}, {0, 1, 2, 3, 4, 5})},
                              {"index", i64({1, 3}, {1, 0, 1})},
                              {"src", tensor_of(DType::Float16, {1, 3}, {10, 20, 30})}},
                             tensor_of(DType::Float16, {2, 3}, {0.1, 0.2, 0.3, 0.4, 0.5, 65504}), dim(0)));
  const ExpectedTensor& gsrc = grad(e, "grad_src");
  EXPECT_TRUE(gsrc.allows(0, bits(DType::Float16, 0.39990234375)));
  EXPECT_FALSE(gsrc.allows(0, bits(DType::Float16, 0.400390625)));  // one ulp off
  EXPECT_TRUE(gsrc.allows(2, bits(DType::Float16, 65504)));
  // measured float32: -0.0 passes through grad_self, NaN reaches grad_src.
  const Expectation s = evaluate(
      backward_call({{"self", f32({2, 2}, {0, 0, 0, 0})}, {"index", i64({1, 2}, {1, 0})}, {"src", f32({1, 2}, {1, 2})}},
                    f32({2, 2}, {-0.0, kNaN, kNaN, -1}), dim(0)));
  EXPECT_TRUE(grad(s, "grad_self").allows(0, bits(DType::Float32, -0.0)));
  EXPECT_FALSE(grad(s, "grad_self").allows(0, bits(DType::Float32, 0.0)));  // passed through, not masked
  EXPECT_TRUE(grad(s, "grad_src").allows(0, bits(DType::Float32, kNaN)));
  EXPECT_FALSE(grad(s, "grad_src").allows(0, bits(DType::Float32, 0.0)));
}

TEST(ReferenceMindsporeBackward, GradOutputAndOperandDtypeRules) {
  const std::map<std::string, Tensor> ops{
      {"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", f32({1, 3}, {10, 20, 30})}};
  // measured: ValueError "The shape should be {2, 3}, but got {1, 3}" / TypeError "The dtype should be Float32".
  const Expectation shape = evaluate(backward_call(ops, f32({1, 3}, {1, 2, 3}), dim(0)));
  test::expect_errors(shape, {EC::ShapeMismatch});
  EXPECT_EQ(shape.error_clause, "MS-GR3");
  test::expect_errors(evaluate(backward_call(ops, test::f64({2, 3}, {1, 2, 3, 4, 5, 6}), dim(0))), {EC::DtypeMismatch});
  // MS-GR2 (MindSpore 2.10 returns int32 gradients instead: a listed deviation).
  const Expectation ints = evaluate(backward_call({{"self", tensor_of(DType::Int32, {2, 3}, {0, 1, 2, 3, 4, 5})},
                                                   {"index", i64({1, 3}, {1, 0, 1})},
                                                   {"src", tensor_of(DType::Int32, {1, 3}, {1, 2, 3})}},
                                                  tensor_of(DType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6}), dim(0)));
  test::expect_errors(ints, {EC::UnsupportedDtype});
  EXPECT_EQ(ints.error_clause, "MS-GR2");
  // MS-GR1: the forward's error (src dtype != self dtype, MS-K1) carries over.
  test::expect_errors(
      evaluate(backward_call(
          {{"self", kSelf}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", test::f64({1, 3}, {1, 2, 3})}}, kGrad, dim(0))),
      {EC::DtypeMismatch});
}

TEST(ReferenceMindsporeBackward, ExpandedSelfIsOnlyRead) {
  // The forward leaves an overlapping self unspecified (MS-O1); the backward reads it only.
  const Tensor expanded = test::relaid(f32({2, 2}, {0, 0, 0, 0}), test::Layout::Expanded);
  ASSERT_TRUE(expanded.has_internal_overlap());
  const Expectation e =
      evaluate(backward_call({{"self", expanded}, {"index", i64({1, 2}, {1, 1})}, {"src", f32({1, 2}, {5, 6})}},
                             f32({2, 2}, {1, 2, 3, 4}), dim(0)));
  EXPECT_TRUE(allows_all(grad(e, "grad_self"), {1, 2, 0, 0}));
  EXPECT_TRUE(allows_all(grad(e, "grad_src"), {3, 4}));
  EXPECT_TRUE(grad(e, "grad_src").loose.empty());  // distinct slots, though self's storage aliases
}

TEST(ReferenceMindsporeBackward, TraceShowsDuplicateWritersAsGradientOrZero) {
  Trace trace;
  evaluate(backward_call({{"self", f32({3}, {0, 0, 0})}, {"index", i64({3}, {0, 0, 2})}, {"src", f32({3}, {1, 2, 3})}},
                         f32({3}, {5, 6, 7}), dim(0)),
           &trace);
  int either = 0, exact = 0;
  for (const Write& w : trace.writes) {
    if (w.effect.find(" = grad_output[0] or 0") != std::string::npos) ++either;
    if (w.effect.find("grad_src[2] = grad_output[2] because index[2]=2") != std::string::npos) ++exact;
  }
  EXPECT_EQ(either, 2);
  EXPECT_EQ(exact, 1);
}

}  // namespace
}  // namespace sp
