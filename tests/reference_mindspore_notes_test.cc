// The notes campaign expectation entries key by on mindspore.tensor_scatter_div
// (reference/SEMANTICS.md, after MS-TS14): MS-TS7 on every call with an
// int8 or uint8 input_x, whatever the answer (int32 is not noted), and
// MS-TS12 on the unspecified answer of a 0 divisor.
#include <gtest/gtest.h>

#include <string>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::i64;
using test::tensor_of;

bool cites(const Expectation& e, const std::string& clause) {
  for (const Note& n : e.notes)
    if (n.clause == clause) return true;
  return false;
}

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

}  // namespace
}  // namespace sp
