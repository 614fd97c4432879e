// The notes campaign expectation entries key by on mindspore.tensor_scatter_div
// (reference/SEMANTICS.md, after MS-TS14): MS-TS7 on every call with an
// int8 or uint8 input_x, whatever the answer (int32 is not noted), and
// MS-TS12 on the unspecified answer of a 0 divisor; and on
// mindspore.scatter_.backward, MS-E1 (an empty index) and MS-N1 (a negative
// index value) on every answer, its own errors included.
#include <gtest/gtest.h>

#include <string>

#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::cites;
using test::i64;
using test::tensor_of;

OpCall div_call(DType t, double update, double index) {
  OpCall c;
  c.op = "mindspore.tensor_scatter_div";
  c.tensors = {{"input_x", tensor_of(t, {2}, {6, 8})},
               {"indices", i64({1, 1}, {index})},
               {"updates", tensor_of(t, {1}, {update})}};
  return c;
}

TEST(ReferenceMindsporeNotes, Int8DivisionIsNotedWhateverTheAnswer) {
  for (DType t : {DType::Int8, DType::UInt8, DType::Int32}) {
    const bool noted = t != DType::Int32;
    const Expectation ok = evaluate(div_call(t, 2, 1));
    ASSERT_TRUE(ok.outputs && ok.errors.empty()) << ok.summary();
    EXPECT_EQ(cites(ok, "MS-TS7"), noted) << dtype_name(t);
    const Expectation bad = evaluate(div_call(t, 2, 5));  // index past the end: MS-TS8
    EXPECT_EQ(bad.errors, std::vector<ErrorCategory>{ErrorCategory::IndexOutOfBounds}) << bad.summary();
    EXPECT_EQ(cites(bad, "MS-TS7"), noted) << dtype_name(t);
  }
}

TEST(ReferenceMindsporeNotes, AZeroDivisorIsUnspecifiedAndCitesMsTs12) {
  const Expectation e = evaluate(div_call(DType::Int32, 0, 1));
  EXPECT_TRUE(e.unspecified);
  EXPECT_TRUE(cites(e, "MS-TS12")) << e.summary();
  EXPECT_FALSE(cites(evaluate(div_call(DType::Int32, 2, 1)), "MS-TS12"));
}

OpCall scatter_backward(Tensor index, Tensor src, const std::string& doc_version) {
  OpCall c = test::call_of("mindspore.scatter_.backward",
                           {{"self", test::f32({2}, {1, 2})},
                            {"index", std::move(index)},
                            {"src", std::move(src)},
                            {std::string(kGradOutput), test::f32({2}, {3, 4})}},
                           {{"dim", Arg::of_int(0)}});
  c.framework_version = doc_version;
  return c;
}

TEST(ReferenceMindsporeNotes, TheScatterBackwardCitesAnEmptyIndexAndANegativeValue) {
  // An empty index of another rank than self, src not shaped like it: MS-GR4's error, and MS-E1.
  const Expectation empty = evaluate(scatter_backward(i64({0, 1}, {}), test::f32({0}, {}), "2.10.0"));
  EXPECT_TRUE(empty.expects_error()) << empty.summary();
  EXPECT_TRUE(cites(empty, "MS-E1")) << empty.summary();
  EXPECT_FALSE(cites(empty, "MS-N1"));
  // A negative value: unspecified from r2.10, gradients before; MS-N1 on both.
  for (const char* version : {"2.10.0", "2.7.2"}) {
    const Expectation e = evaluate(scatter_backward(i64({1}, {-1}), test::f32({1}, {9}), version));
    EXPECT_TRUE(cites(e, "MS-N1")) << version << " " << e.summary();
    EXPECT_FALSE(cites(e, "MS-E1"));
  }
  EXPECT_FALSE(cites(evaluate(scatter_backward(i64({1}, {1}), test::f32({1}, {9}), "2.10.0")), "MS-N1"));
}

}  // namespace
}  // namespace sp
