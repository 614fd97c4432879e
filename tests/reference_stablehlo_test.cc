// reference_stablehlo_test.cc — the reference's stablehlo.gather,
// stablehlo.dynamic_gather and stablehlo.scatter (reference/SEMANTICS.md,
// "StableHLO"): the spec's own examples, the clamp and the drop, the
// promises that do not hold (unspecified), duplicates under scatter, and
// constraints from both sides.
#include <gtest/gtest.h>

#include <numeric>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::allows;
using test::call_of;
using test::expect_errors;
using test::expect_exact;
using test::f32;
using test::i64;
using test::only_output;
using EC = ErrorCategory;
using Ints = std::vector<int64_t>;

std::vector<double> iota(int64_t n, double from = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}
Arg ints(Ints v) { return Arg::of_ints(std::move(v)); }

// The spec's gather example: operand 2x3x4x2 holding 1..48, batching dims.
OpCall spec_gather(Tensor start_indices) {
  return call_of("stablehlo.gather", {{"operand", i64({2, 3, 4, 2}, iota(48))}, {"start_indices", start_indices}},
                 {{"offset_dims", ints({3, 4})},
                  {"collapsed_slice_dims", ints({1})},
                  {"operand_batching_dims", ints({0})},
                  {"start_indices_batching_dims", ints({1})},
                  {"start_index_map", ints({2, 1})},
                  {"index_vector_dim", Arg::of_int(3)},
                  {"slice_sizes", ints({1, 1, 2, 2})}});
}
Tensor spec_start_indices() {
  return i64({2, 2, 3, 2}, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
}

TEST(ReferenceStableHloGather, SpecExample) {
  const Expectation e = evaluate(spec_gather(spec_start_indices()));
  expect_exact(e, {1, 2, 3, 4, 3,  4,  5,  6,  13, 14, 15, 16, 33, 34, 35, 36, 35, 36, 37, 38, 41, 42, 43, 44,
                   1, 2, 3, 4, 13, 14, 15, 16, 21, 22, 23, 24, 43, 44, 45, 46, 33, 34, 35, 36, 27, 28, 29, 30});
  EXPECT_EQ(only_output(e).exact.shape(), (Shape{2, 2, 3, 2, 2}));
  // [0, 9] asks for columns 9..10 of a 4-wide dim: clamped to 2 (SH-G-F2), and said so.
  bool clamp_noted = false;
  for (const Note& n : e.notes) clamp_noted = clamp_noted || n.clause == "SH-G-F2";
  EXPECT_TRUE(clamp_noted);
}

TEST(ReferenceStableHloGather, DynamicGatherSpecExample) {
  const OpCall call = call_of("stablehlo.dynamic_gather",
                              {{"operand", i64({3, 4, 2}, iota(24))},
                               {"start_indices", i64({2, 3, 2}, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 2})},
                               {"slice_sizes", i64({3}, {1, 2, 2})}},
                              {{"offset_dims", ints({2, 3})},
                               {"collapsed_slice_dims", ints({0})},
                               {"start_index_map", ints({1, 0})},
                               {"index_vector_dim", Arg::of_int(2)}});
  expect_exact(evaluate(call), {1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16, 9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20});
}

// SH-G-F2: a negative start clamps to 0, a large one to dim - slice_size.
TEST(ReferenceStableHloGather, StartsClampIntoTheOperand) {
  auto take = [](std::vector<double> idx) {
    return call_of("stablehlo.gather",
                   {{"operand", f32({5}, {10, 11, 12, 13, 14})},
                    {"start_indices", i64({static_cast<int64_t>(idx.size()), 1}, idx)}},
                   {{"offset_dims", ints({1})},
                    {"start_index_map", ints({0})},
                    {"index_vector_dim", Arg::of_int(1)},
                    {"slice_sizes", ints({2})}});
  };
  expect_exact(evaluate(take({-7, 3, 4, 100})), {10, 11, 13, 14, 13, 14, 13, 14});
}

// SH-G-U1: a promise of sorted starts that does not hold leaves the call undefined.
TEST(ReferenceStableHloGather, SortedPromiseBrokenIsUnspecified) {
  auto call = [](std::vector<double> idx, bool promised) {
    return call_of("stablehlo.gather", {{"operand", f32({4}, {1, 2, 3, 4})}, {"start_indices", i64({3, 1}, idx)}},
                   {{"collapsed_slice_dims", ints({0})},
                    {"start_index_map", ints({0})},
                    {"index_vector_dim", Arg::of_int(1)},
                    {"slice_sizes", ints({1})},
                    {"indices_are_sorted", Arg::of_bool(promised)}});
  };
  EXPECT_TRUE(evaluate(call({2, 0, 1}, true)).unspecified);
  expect_exact(evaluate(call({2, 0, 1}, false)), {3, 1, 2});
  expect_exact(evaluate(call({0, 1, 1}, true)), {1, 2, 2});
  // Clamped starts are compared: 7 and 9 both clamp to 3.
  expect_exact(evaluate(call({0, 9, 7}, true)), {1, 4, 4});
}

TEST(ReferenceStableHloGather, ConstraintsBothSides) {
  OpCall ok = spec_gather(spec_start_indices());
  OpCall c1 = ok;  // C1: one dim too many
  c1.set_arg("offset_dims", ints({2, 3, 4}));
  expect_errors(evaluate(c1), {EC::InvalidArgument});
  OpCall c2 = ok;
  c2.set_arg("index_vector_dim", Arg::of_int(5));
  EXPECT_TRUE(evaluate(c2).expects_error());
  OpCall c17 = ok;  // batching dim of size 2 against start_indices' dim 0 of size 2: swap to dim 2 (size 3)
  c17.set_arg("start_indices_batching_dims", ints({2}));
  expect_errors(evaluate(c17), {EC::ShapeMismatch});
  OpCall c21 = ok;
  c21.set_arg("slice_sizes", ints({1, 1, 5, 2}));
  expect_errors(evaluate(c21), {EC::ShapeMismatch});
  OpCall i2 = spec_gather(test::tensor_of(DType::Float32, {2, 2, 3, 2}, std::vector<double>(24, 0)));
  expect_errors(evaluate(i2), {EC::IndexDtype});
}

// The spec's scatter example (add, batching dims): [0, 9] drops its whole
// window element by element (both elements out of range here).
OpCall spec_scatter(const std::string& kind, bool unique = false) {
  return call_of("stablehlo.scatter",
                 {{"inputs", i64({2, 3, 4, 2}, iota(48))},
                  {"scatter_indices", spec_start_indices()},
                  {"updates", i64({2, 2, 3, 2, 2}, std::vector<double>(48, 1))}},
                 {{"update_window_dims", ints({3, 4})},
                  {"inserted_window_dims", ints({1})},
                  {"input_batching_dims", ints({0})},
                  {"scatter_indices_batching_dims", ints({1})},
                  {"scatter_dims_to_operand_dims", ints({2, 1})},
                  {"index_vector_dim", Arg::of_int(3)},
                  {"unique_indices", Arg::of_bool(unique)},
                  {"update_computation", Arg::of_string(kind)}});
}

TEST(ReferenceStableHloScatter, SpecExample) {
  expect_exact(evaluate(spec_scatter("add")),
               {3,  4,  6,  7,  6,  7,  7,  8,  9,  10, 11, 12, 15, 16, 17, 18, 17, 18, 19, 20, 22, 23, 24, 25,
                25, 26, 28, 29, 30, 31, 31, 32, 35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47, 47, 48});
  // The same windows overlap: unique_indices = true is a broken promise (SH-S-U2).
  EXPECT_TRUE(evaluate(spec_scatter("add", true)).unspecified);
}

// SH-S-F2: a window that hangs over the edge keeps its in-bounds elements.
TEST(ReferenceStableHloScatter, OutOfRangeElementsDroppedOneByOne) {
  auto call = [](double start) {
    return call_of(
        "stablehlo.scatter",
        {{"inputs", i64({4}, {0, 0, 0, 0})}, {"scatter_indices", i64({1}, {start})}, {"updates", i64({2}, {7, 8})}},
        {{"update_window_dims", ints({0})},
         {"scatter_dims_to_operand_dims", ints({0})},
         {"index_vector_dim", Arg::of_int(0)},
         {"update_computation", Arg::of_string("replace")}});
  };
  expect_exact(evaluate(call(3)), {0, 0, 0, 7});
  expect_exact(evaluate(call(-1)), {8, 0, 0, 0});
  expect_exact(evaluate(call(4)), {0, 0, 0, 0});
  expect_exact(evaluate(call(1)), {0, 7, 8, 0});
}

// explain names the start index vector a write came from, and the drop.
TEST(ReferenceStableHloScatter, ExplainNamesTheStartVector) {
  const OpCall call =
      call_of("stablehlo.scatter",
              {{"inputs", i64({4}, {0, 0, 0, 0})}, {"scatter_indices", i64({1}, {3})}, {"updates", i64({2}, {7, 8})}},
              {{"update_window_dims", ints({0})},
               {"scatter_dims_to_operand_dims", ints({0})},
               {"update_computation", Arg::of_string("replace")}});
  Trace trace;
  const Expectation e = evaluate(call, &trace);
  std::string text;
  for (const std::string& line : explain_lines(call, e, trace)) text += line + "\n";
  EXPECT_NE(text.find("updates[0]=7 -> out[3] because of the start index vector at scatter_indices[0]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SH-S-F2: 1 update element(s)"), std::string::npos) << text;
}

// SH-S-F3: duplicates. replace: any writer; add of floats: an interval;
// integers exact; max exact.
TEST(ReferenceStableHloScatter, DuplicatesFollowTheSchedule) {
  auto call = [](const std::string& kind, Tensor input, Tensor updates) {
    return call_of("stablehlo.scatter",
                   {{"inputs", input}, {"scatter_indices", i64({3, 1}, {1, 1, 1})}, {"updates", updates}},
                   {{"inserted_window_dims", ints({0})},
                    {"scatter_dims_to_operand_dims", ints({0})},
                    {"index_vector_dim", Arg::of_int(1)},
                    {"update_computation", Arg::of_string(kind)}});
  };
  const Expectation r = evaluate(call("replace", i64({2}, {0, 0}), i64({3}, {5, 6, 7})));
  for (double v : {5, 6, 7}) EXPECT_TRUE(allows(r, 1, DType::Int64, v));
  EXPECT_FALSE(allows(r, 1, DType::Int64, 0));
  expect_exact(evaluate(call("add", i64({2}, {1, 1}), i64({3}, {5, 6, 7}))), {1, 19});
  expect_exact(evaluate(call("maximum", i64({2}, {1, 1}), i64({3}, {5, 9, 7}))), {1, 9});
  expect_exact(evaluate(call("multiply", i64({2}, {1, 2}), i64({3}, {5, 6, 7}))), {1, 420});
  const Expectation f = evaluate(call("add", f32({2}, {0, 1e8}), f32({3}, {1, 1, 1e-8})));
  EXPECT_TRUE(allows(f, 1, DType::Float32, 1e8));
  EXPECT_FALSE(allows(f, 1, DType::Float32, 0));
}

TEST(ReferenceStableHloScatter, SortedPromiseAndRegionKind) {
  auto call = [](std::vector<double> idx, bool sorted, const std::string& kind) {
    return call_of(
        "stablehlo.scatter",
        {{"inputs", i64({3}, {0, 0, 0})}, {"scatter_indices", i64({2, 1}, idx)}, {"updates", i64({2}, {1, 2})}},
        {{"inserted_window_dims", ints({0})},
         {"scatter_dims_to_operand_dims", ints({0})},
         {"index_vector_dim", Arg::of_int(1)},
         {"indices_are_sorted", Arg::of_bool(sorted)},
         {"update_computation", Arg::of_string(kind)}});
  };
  EXPECT_TRUE(evaluate(call({2, 0}, true, "add")).unspecified);
  expect_exact(evaluate(call({2, 0}, false, "add")), {2, 0, 1});
  expect_exact(evaluate(call({0, 2}, true, "add")), {1, 0, 2});
  expect_errors(evaluate(call({0, 2}, false, "subtract")), {EC::InvalidReduce});
}

TEST(ReferenceStableHloScatter, ConstraintsBothSides) {
  OpCall c4 = spec_scatter("add");  // a window wider than the input's dim
  c4.tensors["updates"] = i64({2, 2, 3, 2, 3}, std::vector<double>(72, 1));
  expect_errors(evaluate(c4), {EC::ShapeMismatch});
  OpCall c6 = spec_scatter("add");
  c6.tensors["updates"] = f32({2, 2, 3, 2, 2}, std::vector<double>(48, 1));
  expect_errors(evaluate(c6), {EC::DtypeMismatch});
  OpCall c9 = spec_scatter("add");
  c9.set_arg("inserted_window_dims", ints({0}));
  EXPECT_TRUE(evaluate(c9).expects_error());
  OpCall c16 = spec_scatter("add");
  c16.set_arg("scatter_indices_batching_dims", ints({3}));
  EXPECT_TRUE(evaluate(c16).expects_error());
}

// The op table's output-shape rule is the result shape (C22).
TEST(ReferenceStableHloGather, OutputShapeRule) {
  const OpCall call = spec_gather(spec_start_indices());
  EXPECT_EQ(output_shape_of(op_spec("stablehlo.gather"), call), (Shape{2, 2, 3, 2, 2}));
  OpCall bad = call;
  bad.set_arg("slice_sizes", ints({1}));
  EXPECT_EQ(output_shape_of(op_spec("stablehlo.gather"), bad), std::nullopt);
}

}  // namespace
}  // namespace sp
