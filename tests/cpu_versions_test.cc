// cpu_versions_test.cc — the cpu backend follows the call's framework
// version (OpCall::framework_version) for every versioned rule the
// reference knows (reference/versions.h): T-I2 (torch >= 2.8: int32 index
// for gather/scatter), T-IA14 (torch >= 2.3: index_add_/index_reduce_
// compare source's physical shape, also for an empty index) and PD-B3
// (Paddle >= 3.0: negative index values wrap).
//
// Each test runs one call on both sides of a rule's bound and asserts the
// cpu backend's answer on each side, so ignoring the version fails one of
// them; each answer is also judged against the reference's expectation for
// that version (harness/run_judge.h), the way `scatterproof run` does.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/backend.h"
#include "harness/run_judge.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using EC = ErrorCategory;
using test::f32;
using test::i32;
using test::i64;

class CpuVersionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    cpu_ = make_backend("cpu", BackendOptions{1, false}, &why);
    ASSERT_TRUE(cpu_) << why;
  }

  // `call` at `version`, run by the cpu backend (on a deep copy) and judged
  // against the reference's expectation for that version: the judgement
  // must be a pass. Returns the cpu backend's outcome.
  Outcome run_at(OpCall call, const std::string& version) {
    call.framework_version = version;
    const Expectation e = evaluate(call);
    const Judged j = run_and_judge(*cpu_, call, e);
    EXPECT_EQ(j.verdict.kind, Verdict::Kind::Pass) << call.op << " at version '" << version << "': " << j.verdict.detail
                                                   << " (cpu: " << outcome_summary(j.outcome) << ")";
    return j.outcome;
  }

  static void expect_error(const Outcome& o, EC category, const std::string& version) {
    EXPECT_EQ(o.kind, Outcome::Kind::Error) << "version '" << version << "': " << outcome_summary(o);
    EXPECT_EQ(o.error, category) << "version '" << version << "': " << outcome_summary(o);
  }
  static void expect_values(const Outcome& o, const std::vector<double>& values, const std::string& version) {
    ASSERT_EQ(o.kind, Outcome::Kind::Outputs) << "version '" << version << "': " << outcome_summary(o);
    ASSERT_EQ(o.outputs.size(), 1u);
    EXPECT_EQ(test::values_of(o.outputs.front()), values) << "version '" << version << "'";
  }

  std::unique_ptr<Backend> cpu_;
};

// T-I2: gather with an int32 index is refused before torch 2.8 (T-I1) and
// computed from 2.8 on, exactly as with the same int64 index.
TEST_F(CpuVersionsTest, GatherTakesInt32IndexFromTorch2_8) {
  const OpCall call =
      test::call_of("torch.gather", {{"input", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"index", i32({2, 2}, {2, 0, 1, 1})}},
                    {{"dim", Arg::of_int(1)}});
  for (const std::string v : {"", "1.13", "2.3", "2.7", "2.7.1"}) expect_error(run_at(call, v), EC::IndexDtype, v);
  for (const std::string v : {"2.8", "2.8.0", "2.15", "2.15.0+cu132"}) expect_values(run_at(call, v), {3, 1, 5, 5}, v);
  // The int64 index is taken at every version.
  OpCall wide = call;
  wide.tensors["index"] = i64({2, 2}, {2, 0, 1, 1});
  for (const std::string v : {"", "2.7", "2.8"}) expect_values(run_at(wide, v), {3, 1, 5, 5}, v);
  // At 2.8 an int32 index is bounds-checked like an int64 one (T-B1).
  OpCall out_of_range = call;
  out_of_range.tensors["index"] = i32({2, 2}, {3, 0, 1, 1});
  expect_error(run_at(out_of_range, "2.8"), EC::IndexOutOfBounds, "2.8");
  // Other index dtypes stay refused.
  OpCall int16 = call;
  int16.tensors["index"] = test::tensor_of(DType::Int16, {2, 2}, {2, 0, 1, 1});
  expect_error(run_at(int16, "2.15"), EC::IndexDtype, "2.15");
}

// T-I2 covers the scatter family too: scatter_, scatter (value), scatter_add
// and scatter_reduce.
TEST_F(CpuVersionsTest, ScatterFamilyTakesInt32IndexFromTorch2_8) {
  const auto self = [] { return f32({2, 3}, {0, 0, 0, 0, 0, 0}); };
  const OpCall scatter_ = test::call_of(
      "torch.scatter_", {{"self", self()}, {"index", i32({1, 3}, {1, 0, 1})}, {"src", f32({1, 3}, {7, 8, 9})}},
      {{"dim", Arg::of_int(0)}});
  const OpCall scatter_value = test::call_of("torch.scatter", {{"self", self()}, {"index", i32({1, 2}, {2, 0})}},
                                             {{"dim", Arg::of_int(1)}, {"value", Arg::of_scalar(Scalar::of_int(4))}});
  const OpCall scatter_add = test::call_of(
      "torch.scatter_add", {{"self", self()}, {"index", i32({1, 3}, {1, 1, 0})}, {"src", f32({1, 3}, {1, 2, 3})}},
      {{"dim", Arg::of_int(1)}});
  const OpCall scatter_reduce = test::call_of(
      "torch.scatter_reduce", {{"self", self()}, {"index", i32({1, 3}, {2, 2, 0})}, {"src", f32({1, 3}, {5, 6, 7})}},
      {{"dim", Arg::of_int(1)}, {"reduce", Arg::of_string("amax")}});
  for (const std::string v : {"", "2.7"}) {
    expect_error(run_at(scatter_, v), EC::IndexDtype, v);
    expect_error(run_at(scatter_value, v), EC::IndexDtype, v);
    expect_error(run_at(scatter_add, v), EC::IndexDtype, v);
    expect_error(run_at(scatter_reduce, v), EC::IndexDtype, v);
  }
  for (const std::string v : {"2.8", "2.15"}) {
    expect_values(run_at(scatter_, v), {0, 8, 0, 7, 0, 9}, v);
    expect_values(run_at(scatter_value, v), {4, 0, 4, 0, 0, 0}, v);
    expect_values(run_at(scatter_add, v), {3, 3, 0, 0, 0, 0}, v);
    expect_values(run_at(scatter_reduce, v), {7, 0, 6, 0, 0, 0}, v);
  }
  // From 2.8 the index dtype passes, so the next rule is the one reported:
  // a src of another dtype (T-K1).
  OpCall mixed = scatter_;
  mixed.tensors["src"] = test::f64({1, 3}, {7, 8, 9});
  expect_error(run_at(mixed, "2.7"), EC::IndexDtype, "2.7");
  expect_error(run_at(mixed, "2.8"), EC::DtypeMismatch, "2.8");
}

// T-IA14: from torch 2.3 index_add compares physical shapes, so a 0-d self
// takes no [1] source (T-IA8, before 2.3, compares logical shapes: [1] ==
// [1]).
TEST_F(CpuVersionsTest, IndexAddComparesPhysicalShapesFromTorch2_3) {
  const OpCall call =
      test::call_of("torch.index_add", {{"self", f32({}, {5})}, {"index", i64({1}, {0})}, {"source", f32({1}, {2})}},
                    {{"dim", Arg::of_int(0)}, {"alpha", Arg::of_scalar(Scalar::of_int(3))}});
  for (const std::string v : {"", "2.2", "2.2.1"}) expect_values(run_at(call, v), {11}, v);
  for (const std::string v : {"2.3", "2.7", "2.15"}) expect_error(run_at(call, v), EC::ShapeMismatch, v);
  // A well-shaped call is computed at every version.
  const OpCall good = test::call_of(
      "torch.index_add",
      {{"self", f32({2, 2}, {1, 1, 1, 1})}, {"index", i64({2}, {1, 1})}, {"source", f32({2, 2}, {1, 2, 3, 4})}},
      {{"dim", Arg::of_int(0)}});
  for (const std::string v : {"", "2.3", "2.15"}) expect_values(run_at(good, v), {1, 1, 5, 7}, v);
}

// T-IA14 also checks an empty index, where T-IA7 (before 2.3) skips the
// shape rules for a self of rank >= 2.
TEST_F(CpuVersionsTest, IndexAddChecksShapeOfEmptyIndexFromTorch2_3) {
  const OpCall call = test::call_of("torch.index_add_",
                                    {{"self", f32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})},
                                     {"index", i64({0}, {})},
                                     {"source", f32({0, 7}, {})}},
                                    {{"dim", Arg::of_int(0)}});
  for (const std::string v : {"", "2.2"}) expect_values(run_at(call, v), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, v);
  for (const std::string v : {"2.3", "2.15"}) expect_error(run_at(call, v), EC::ShapeMismatch, v);
  OpCall matching = call;
  matching.tensors["source"] = f32({0, 4}, {});
  for (const std::string v : {"", "2.3"}) expect_values(run_at(matching, v), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, v);
}

// index_reduce shares the rule (T-IR8 before 2.3, T-IA14 from 2.3).
TEST_F(CpuVersionsTest, IndexReduceFollowsT_IA14FromTorch2_3) {
  const OpCall empty =
      test::call_of("torch.index_reduce",
                    {{"self", f32({3, 2}, {1, 2, 3, 4, 5, 6})}, {"index", i64({0}, {})}, {"source", f32({0, 7}, {})}},
                    {{"dim", Arg::of_int(0)}, {"reduce", Arg::of_string("prod")}});
  for (const std::string v : {"", "2.2"}) expect_values(run_at(empty, v), {1, 2, 3, 4, 5, 6}, v);
  for (const std::string v : {"2.3", "2.15"}) expect_error(run_at(empty, v), EC::ShapeMismatch, v);
  const OpCall zero_d =
      test::call_of("torch.index_reduce", {{"self", f32({}, {5})}, {"index", i64({1}, {0})}, {"source", f32({1}, {2})}},
                    {{"dim", Arg::of_int(0)}, {"reduce", Arg::of_string("amax")}});
  expect_values(run_at(zero_d, ""), {5}, "");
  expect_error(run_at(zero_d, "2.3"), EC::ShapeMismatch, "2.3");
}

// PD-B3: from Paddle 3.0 a negative index value v in [-S, 0) addresses row
// v + S (overwrite and accumulate); one below -S is out of bounds. Before
// 3.0 (PD-B2) negatives are unspecified, and the cpu backend refuses them.
TEST_F(CpuVersionsTest, PaddleWrapsNegativeIndicesFrom3_0) {
  const OpCall call = test::call_of(
      "paddle.scatter",
      {{"x", f32({3, 2}, {1, 1, 2, 2, 3, 3})}, {"index", i64({2}, {-1, 0})}, {"updates", f32({2, 2}, {7, 8, 9, 10})}});
  for (const std::string v : {"", "2.6"}) expect_error(run_at(call, v), EC::IndexOutOfBounds, v);
  for (const std::string v : {"3.0", "3.3.1"}) expect_values(run_at(call, v), {9, 10, 2, 2, 7, 8}, v);

  // -S is row 0; -1 and S - 1 are one row: accumulate mode sums both terms
  // into the zeroed row.
  OpCall accumulate = call;
  accumulate.tensors["index"] = i32({3}, {-1, 2, -3});
  accumulate.tensors["updates"] = f32({3, 2}, {1, 2, 10, 20, 5, 6});
  accumulate.set_arg("overwrite", Arg::of_bool(false));
  expect_error(run_at(accumulate, ""), EC::IndexOutOfBounds, "");
  expect_values(run_at(accumulate, "3.0"), {5, 6, 2, 2, 11, 22}, "3.0");

  OpCall below = call;
  below.tensors["index"] = i64({2}, {-4, 0});
  for (const std::string v : {"", "3.0"}) expect_error(run_at(below, v), EC::IndexOutOfBounds, v);
  OpCall above = call;
  above.tensors["index"] = i64({2}, {-1, 3});
  for (const std::string v : {"", "3.0"}) expect_error(run_at(above, v), EC::IndexOutOfBounds, v);
}

}  // namespace
}  // namespace sp
