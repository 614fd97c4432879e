// torch_out_test.cc — PyTorch's out= (reference/SEMANTICS.md, T-OUT0..T-OUT7):
// the reference clause by clause, from both sides (what LibTorch 1.13
// accepts is accepted with its exact result; what it refuses is refused),
// and the cpu backend judged against it through the same judge the runner
// uses (written in place, nothing else of out's storage touched).
#include "reference/torch_out.h"

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "harness/comparator.h"
#include "harness/run_judge.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::f32;
using test::f64;
using test::i64;
using test::values_of;
using EC = ErrorCategory;

// input [[0, 1, 2], [3, 4, 5]], index [[0, 1, 0], [1, 0, 1]] along dim 0.
OpCall gather_with_out(Tensor out, Tensor input = f32({2, 3}, {0, 1, 2, 3, 4, 5})) {
  return call_of("torch.gather",
                 {{"input", std::move(input)}, {"index", i64({2, 3}, {0, 1, 0, 1, 0, 1})}, {"out", std::move(out)}},
                 {{"dim", Arg::of_int(0)}});
}
const std::vector<double> kGathered{0, 4, 2, 3, 1, 5};

// A view over `owner`'s storage.
Tensor view_of(const Tensor& owner, const Shape& shape, const Shape& strides, int64_t offset) {
  return Tensor::view(owner.dtype(), shape, strides, offset, owner.storage());
}

void expect_error(const Expectation& e, EC category, const std::string& clause) {
  ASSERT_TRUE(e.expects_error()) << e.summary();
  EXPECT_EQ(e.errors.front(), category) << e.error_message;
  EXPECT_EQ(e.error_clause, clause) << e.error_message;
}

std::vector<double> result_values(const Expectation& e) {
  EXPECT_TRUE(e.outputs.has_value()) << e.summary();
  if (!e.outputs || e.outputs->empty()) return {};
  EXPECT_TRUE(e.outputs->front().loose.empty());
  return values_of(e.outputs->front().exact);
}

TEST(TorchOut, OpTableDeclaresOutOnTheFourOpsOnly) {
  for (const OpSpec& op : op_table()) {
    const bool expected = op.id == "torch.gather" || op.id == "torch.scatter" || op.id == "torch.index_select" ||
                          op.id == "torch.take_along_dim";
    EXPECT_EQ(out_operand(op) != nullptr, expected) << op.id;
    if (const OperandSpec* out = out_operand(op)) {
      EXPECT_EQ(out->name, "out");
      EXPECT_FALSE(op.in_place) << op.id;
    }
  }
  // Optional: the signature holds without it.
  OpCall no_out = gather_with_out(f32({2, 3}, {0, 0, 0, 0, 0, 0}));
  no_out.tensors.erase("out");
  EXPECT_FALSE(check_signature(no_out).has_value());
  EXPECT_TRUE(
      check_signature(
          call_of("torch.scatter_add",
                  {{"self", f32({1}, {0})}, {"index", i64({1}, {0})}, {"src", f32({1}, {0})}, {"out", f32({1}, {0})}},
                  {{"dim", Arg::of_int(0)}}))
          .has_value());
}

TEST(TorchOut, CorrectlyShapedOutGivesTheResultAndWrittenOperandIsOut) {
  const OpCall call = gather_with_out(f32({2, 3}, {9, 9, 9, 9, 9, 9}));
  const Expectation e = evaluate(call);
  EXPECT_EQ(result_values(e), kGathered);
  EXPECT_EQ(e.outputs->front().name, "out");
  EXPECT_EQ(written_operand(call), "out");
  OpCall plain = call;
  plain.tensors.erase("out");
  EXPECT_EQ(written_operand(plain), "");
}

TEST(TorchOut, DtypeOfOutMustBeTheResults) {
  expect_error(evaluate(gather_with_out(f64({2, 3}, {0, 0, 0, 0, 0, 0}))), EC::DtypeMismatch, "T-OUT1");
  expect_error(evaluate(gather_with_out(i64({2, 3}, {0, 0, 0, 0, 0, 0}))), EC::DtypeMismatch, "T-OUT1");
  // Also when mis-shaped (resizing keeps the dtype).
  expect_error(evaluate(gather_with_out(f64({7}, {0, 0, 0, 0, 0, 0, 0}))), EC::DtypeMismatch, "T-OUT1");
}

TEST(TorchOut, MisShapedOutIsResized) {
  EXPECT_EQ(result_values(evaluate(gather_with_out(f32({4, 5}, std::vector<double>(20, 1))))), kGathered);
  EXPECT_EQ(result_values(evaluate(gather_with_out(f32({0}, {})))), kGathered);
}

TEST(TorchOut, ExpandedOutIsAnErrorOtherOverlapUnspecified) {
  const Tensor base = f32({1, 3}, {0, 0, 0});
  expect_error(evaluate(gather_with_out(view_of(base, {2, 3}, {0, 1}, 0))), EC::OverlappingOutput, "T-OUT2");
  // Overlapping strides without a zero one: PyTorch cannot tell (T-OUT7).
  const Tensor room = f32({4}, {0, 0, 0, 0});
  EXPECT_TRUE(evaluate(gather_with_out(view_of(room, {2, 3}, {1, 1}, 0))).unspecified);
}

TEST(TorchOut, OverlapWithAReadOperand) {
  // out is the input / a row further into input's storage / beside it.
  const Tensor storage = f32({12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor input = view_of(storage, {2, 3}, {3, 1}, 0);
  expect_error(evaluate(gather_with_out(view_of(storage, {2, 3}, {3, 1}, 0), input)), EC::OverlappingOutput, "T-OUT3");
  expect_error(evaluate(gather_with_out(view_of(storage, {2, 3}, {3, 1}, 3), input)), EC::OverlappingOutput, "T-OUT3");
  EXPECT_EQ(result_values(evaluate(gather_with_out(view_of(storage, {2, 3}, {3, 1}, 6), input))), kGathered);
  // A transposed out over the same elements: still dense, still an error.
  expect_error(evaluate(gather_with_out(view_of(storage, {2, 3}, {1, 2}, 0), input)), EC::OverlappingOutput, "T-OUT3");
  // An input with gaps sharing an element with out: PyTorch does not check (T-OUT7).
  const Tensor gapped_input = view_of(storage, {2, 3}, {6, 2}, 0);
  EXPECT_TRUE(evaluate(gather_with_out(view_of(storage, {2, 3}, {3, 1}, 6), gapped_input)).unspecified);
  // Interleaved without a shared element: allowed.
  EXPECT_FALSE(shares_element(view_of(storage, {6}, {2}, 0), view_of(storage, {6}, {2}, 1)));
  EXPECT_TRUE(shares_element(view_of(storage, {6}, {2}, 0), view_of(storage, {3}, {4}, 0)));
}

TEST(TorchOut, ScatterOutThatIsSelfIsTheInPlaceOpButNotSrc) {
  const Tensor self = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  const Tensor src = f32({2, 3}, {10, 11, 12, 13, 14, 15});
  auto scatter = [&](Tensor out) {
    return call_of("torch.scatter",
                   {{"self", self}, {"index", i64({1, 3}, {1, 0, 1})}, {"src", src}, {"out", std::move(out)}},
                   {{"dim", Arg::of_int(0)}});
  };
  const std::vector<double> scattered{0, 11, 2, 10, 4, 12};
  EXPECT_EQ(result_values(evaluate(scatter(f32({2, 3}, {9, 9, 9, 9, 9, 9})))), scattered);
  EXPECT_EQ(result_values(evaluate(scatter(self))), scattered);  // T-OUT4
  expect_error(evaluate(scatter(src)), EC::OverlappingOutput, "T-OUT3");
  // out a row further into self's storage.
  const Tensor storage = f32({9}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  OpCall shifted = scatter(view_of(storage, {2, 3}, {3, 1}, 3));
  shifted.tensors["self"] = view_of(storage, {2, 3}, {3, 1}, 0);
  expect_error(evaluate(shifted), EC::OverlappingOutput, "T-OUT3");
}

TEST(TorchOut, OutThatIsTheIndexOfAGatherIsTheResultOrAnError) {
  const Tensor index = i64({2, 3}, {0, 1, 0, 1, 0, 1});
  const OpCall call =
      call_of("torch.gather", {{"input", i64({2, 3}, {0, 1, 2, 3, 4, 5})}, {"index", index}, {"out", index}},
              {{"dim", Arg::of_int(0)}});
  const Expectation e = evaluate(call);
  ASSERT_TRUE(e.outputs.has_value());
  EXPECT_EQ(values_of(e.outputs->front().exact), kGathered);
  EXPECT_TRUE(e.allows_error(EC::OverlappingOutput));
  EXPECT_FALSE(e.allows_error(EC::DtypeMismatch));
  // A partial overlap with index is an error only.
  const Tensor storage = i64({9}, {0, 1, 0, 1, 0, 1, 0, 0, 0});
  const OpCall partial = call_of("torch.gather",
                                 {{"input", i64({2, 3}, {0, 1, 2, 3, 4, 5})},
                                  {"index", view_of(storage, {2, 3}, {3, 1}, 0)},
                                  {"out", view_of(storage, {2, 3}, {3, 1}, 1)}},
                                 {{"dim", Arg::of_int(0)}});
  expect_error(evaluate(partial), EC::OverlappingOutput, "T-OUT3");
}

TEST(TorchOut, TakeAlongDimOverlapIsJudgedOnTheOperandsAsTheKernelReadsThem) {
  // Without dim, indices is read flattened: an out over its very elements
  // (as [6]) is the same view as that read (T-OUT5), not a partial overlap.
  const Tensor indices = i64({2, 3}, {0, 1, 0, 1, 0, 1});
  const OpCall flat =
      call_of("torch.take_along_dim",
              {{"input", i64({2}, {7, 8})}, {"indices", indices}, {"out", view_of(indices, {6}, {1}, 0)}});
  const Expectation e = evaluate(flat);
  ASSERT_TRUE(e.outputs.has_value()) << e.summary();
  EXPECT_EQ(values_of(e.outputs->front().exact), (std::vector<double>{7, 8, 7, 8, 7, 8}));
  EXPECT_TRUE(e.allows_error(EC::OverlappingOutput));
  // With dim, an input of size 1 along another dim is read broadcast
  // (expanded, not dense): PyTorch cannot tell the overlap (T-OUT7).
  const Tensor storage = i64({6}, {0, 0, 0, 0, 0, 0});
  const OpCall broadcast = call_of("torch.take_along_dim",
                                   {{"input", view_of(storage, {2, 1}, {1, 1}, 0)},
                                    {"indices", i64({1, 2}, {0, 1})},
                                    {"out", view_of(storage, {1, 2}, {2, 1}, 1)}},
                                   {{"dim", Arg::of_int(0)}});
  EXPECT_TRUE(evaluate(broadcast).unspecified) << evaluate(broadcast).summary();
  // The same overlap with an input read as given is an error.
  const OpCall as_given = call_of("torch.take_along_dim",
                                  {{"input", view_of(storage, {2, 2}, {2, 1}, 0)},
                                   {"indices", i64({1, 2}, {0, 1})},
                                   {"out", view_of(storage, {1, 2}, {2, 1}, 1)}},
                                  {{"dim", Arg::of_int(0)}});
  expect_error(evaluate(as_given), EC::OverlappingOutput, "T-OUT3");
}

TEST(TorchOut, OpErrorsComeFirstAndOutErrorsAreAlternatives) {
  OpCall call = gather_with_out(f64({2, 3}, {0, 0, 0, 0, 0, 0}));
  call.tensors["index"] = i64({2, 3}, {0, 5, 0, 1, 0, 1});
  const Expectation e = evaluate(call);
  ASSERT_TRUE(e.expects_error());
  EXPECT_EQ(e.errors.front(), EC::IndexOutOfBounds);
  EXPECT_TRUE(e.allows_error(EC::DtypeMismatch));
}

// The cpu backend against the reference, through the runner's judge.
class TorchOutCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    cpu_ = make_backend("cpu", BackendOptions{2, false}, &why);
    ASSERT_TRUE(cpu_) << why;
  }
  Judged judged(const OpCall& call) { return run_and_judge(*cpu_, call, evaluate(call)); }
  std::unique_ptr<Backend> cpu_;
};

TEST_F(TorchOutCpu, WritesIntoOutsLayoutAndPassesEveryClause) {
  const Tensor storage = f32({12}, std::vector<double>(12, 7));
  const std::vector<OpCall> calls = {
      gather_with_out(f32({2, 3}, {9, 9, 9, 9, 9, 9})),
      gather_with_out(view_of(storage, {2, 3}, {1, 2}, 0)),  // transposed
      gather_with_out(view_of(storage, {2, 3}, {6, 2}, 1)),  // gaps: 7s stay
      gather_with_out(f64({2, 3}, {0, 0, 0, 0, 0, 0})),
      gather_with_out(f32({5}, {0, 0, 0, 0, 0})),
      gather_with_out(view_of(f32({3}, {0, 0, 0}), {2, 3}, {0, 1}, 0)),
      gather_with_out(view_of(storage, {2, 3}, {3, 1}, 3), view_of(storage, {2, 3}, {3, 1}, 0)),
      gather_with_out(view_of(storage, {2, 3}, {3, 1}, 6), view_of(storage, {2, 3}, {3, 1}, 0)),
  };
  for (const OpCall& call : calls) {
    const Judged j = judged(call);
    EXPECT_EQ(j.verdict.kind, Verdict::Kind::Pass) << call.describe() << ": " << j.verdict.detail;
  }
}

TEST_F(TorchOutCpu, TheJudgeCatchesAResultNotWrittenIntoOut) {
  // What a backend ignoring out= answers: the right values in a fresh tensor.
  const OpCall call = gather_with_out(f32({2, 3}, {9, 9, 9, 9, 9, 9}));
  const OpCall before = call.deep_copy();
  const OpCall after = call.deep_copy();
  const Outcome fresh = Outcome::of_outputs({f32({2, 3}, kGathered)});
  const Verdict v = judge(before, evaluate(call), fresh, after);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("not written into the given out"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace sp
