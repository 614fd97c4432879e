// PD-X2 (reference/SEMANTICS.md): paddle.scatter and its backward note an
// operand of rank 10 or more (Paddle's tensors hold at most 9 dims; 004
// states no limit), with the result or with an error alike, so campaign
// expectation entries can key by it; rank 9 is not noted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;

bool noted(const Expectation& e) { return test::cites(e, "PD-X2"); }

OpCall scatter(const Shape& x_shape, int64_t index_value) {
  Shape u_shape = x_shape;
  u_shape[0] = 1;
  OpCall c;
  c.op = "paddle.scatter";
  c.tensors = {{"x", f32(x_shape, {1, 2})},
               {"index", i64({1}, {static_cast<double>(index_value)})},
               {"updates", f32(u_shape, {7})}};
  c.set_arg("overwrite", Arg::of_bool(true));
  return c;
}

TEST(ReferencePaddle, RankTenOperandsAreNoted) {
  for (int64_t rank : {9, 10}) {
    Shape x_shape(static_cast<size_t>(rank), 1);
    x_shape[0] = 2;
    const Expectation ok = evaluate(scatter(x_shape, 1));
    ASSERT_TRUE(ok.outputs && ok.errors.empty()) << ok.summary();
    EXPECT_EQ(ok.outputs->front().exact.to_bits().back(), 0x40e00000u);  // 7.0: 004 sets no rank limit
    EXPECT_EQ(noted(ok), rank >= 10) << rank;
    const Expectation bad = evaluate(scatter(x_shape, 5));
    EXPECT_EQ(bad.errors, std::vector<ErrorCategory>{ErrorCategory::IndexOutOfBounds});
    EXPECT_EQ(noted(bad), rank >= 10) << rank;
  }
}

}  // namespace
}  // namespace sp
