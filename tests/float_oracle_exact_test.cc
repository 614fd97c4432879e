// The float reduction oracle (reference/float_bounds.h) is exact where
// every order agrees, and the reference resolves reductions through it:
// sums whose every partial sum is representable, exact products and means,
// subnormal sums; amax / amin as exact bits. (Soundness and tightness over
// random terms: float_oracle_test.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/float_bounds.h"
#include "reference/output_builder.h"
#include "reference/tensor.h"

namespace sp {
namespace {

using Terms = std::vector<double>;

bool allowed(const ElementAllowed& a, DType t, double v) { return a.allows(t, bits_from_value(t, Value::of_float(v))); }

TEST(FloatOracle, ExactWhenEveryOrderAgrees) {
  auto only = [](DType t, const ElementAllowed& a, double v) {
    const uint64_t b = bits_from_value(t, Value::of_float(v));
    const Value below = value_from_bits(t, b - 1), above = value_from_bits(t, b + 1);
    return a.allows(t, b) && !a.allows(t, bits_from_value(t, below)) && !a.allows(t, bits_from_value(t, above));
  };
  // float32 0 + 1 + 1: exactly 2 (1.9999999 was allowed).
  EXPECT_TRUE(only(DType::Float32, float_reduction_bounds(DType::Float32, ReduceMode::Add, {0, 1, 1}), 2.0));
  EXPECT_FALSE(allowed(float_reduction_bounds(DType::Float32, ReduceMode::Add, {0, 1, 1}), DType::Float32, 1.0));
  // thirty ones: exactly 30.
  EXPECT_TRUE(only(DType::Float32, float_reduction_bounds(DType::Float32, ReduceMode::Add, Terms(30, 1.0)), 30.0));
  // bfloat16: 256 ones (and a zero self) are exactly 256 in every order,
  // in bfloat16 or in float32; dropping one gives 255, not allowed.
  Terms ones(257, 1.0);
  ones[0] = 0;
  const ElementAllowed bf = float_reduction_bounds(DType::BFloat16, ReduceMode::Add, ones);
  EXPECT_TRUE(only(DType::BFloat16, bf, 256.0)) << bf.describe(DType::BFloat16);
  EXPECT_FALSE(allowed(bf, DType::BFloat16, 255.0));
  // 257 ones: bfloat16 stalls at 256 (256 + 1 ties to even), float32 gives
  // 257 which rounds to 256; a tree can reach 258. Nothing else.
  const ElementAllowed bf257 = float_reduction_bounds(DType::BFloat16, ReduceMode::Add, Terms(257, 1.0));
  EXPECT_TRUE(allowed(bf257, DType::BFloat16, 256.0));
  EXPECT_TRUE(allowed(bf257, DType::BFloat16, 258.0));
  EXPECT_FALSE(allowed(bf257, DType::BFloat16, 255.0));
  EXPECT_FALSE(allowed(bf257, DType::BFloat16, 260.0));
  // Dyadic float16 terms: exact.
  EXPECT_TRUE(
      only(DType::Float16, float_reduction_bounds(DType::Float16, ReduceMode::Add, {0.5, 0.25, -0.125, 3}), 3.625));
  // Multiply: small odd parts and powers of two are exact.
  EXPECT_TRUE(only(DType::Float16, float_reduction_bounds(DType::Float16, ReduceMode::Multiply, {3, 5, 7, 0.5}), 52.5));
  EXPECT_TRUE(only(DType::Float32, float_reduction_bounds(DType::Float32, ReduceMode::Multiply, {2, 1.5, -3}), -9.0));
  // Mean: an exact sum divided once.
  EXPECT_TRUE(only(DType::Float32, float_mean_bounds(DType::Float32, {1, 2}), 1.5));
  EXPECT_TRUE(only(DType::Float32, float_mean_bounds(DType::Float32, {2, 4, 6, 8}), 5.0));
  // Divided first, 1/3 + 1/3 + 1/3 rounds: not exact, but near 1.
  const ElementAllowed thirds = float_mean_bounds(DType::Float64, {1, 1, 1});
  EXPECT_TRUE(allowed(thirds, DType::Float64, 1.0));
  EXPECT_FALSE(allowed(thirds, DType::Float64, 1.0 + 1e-12));
  EXPECT_FALSE(allowed(thirds, DType::Float64, 2.0 / 3.0));
  // A subnormal sum is exact too.
  const double d = std::ldexp(1.0, -149);
  EXPECT_TRUE(only(DType::Float32, float_reduction_bounds(DType::Float32, ReduceMode::Add, {d, 3 * d, -d}), 3 * d));
}

TEST(FloatOracle, AmaxAminAreExactAndSumsGoThroughTheOracle) {
  // The reference resolves a reduced element through OutputBuilder: amax
  // and amin are exact bits (no loose set), a float sum is the oracle's set.
  Tensor init = Tensor::zeros(DType::Float32, {3});
  OutputBuilder b("self", init, nullptr);
  for (double v : {3.0, -1.0, 7.5, 2.0}) {
    b.reduce({0}, ReduceMode::Max, Value::of_float(v), {});
    b.reduce({1}, ReduceMode::Min, Value::of_float(v), {});
    b.reduce({2}, ReduceMode::Add, Value::of_float(v), {});
  }
  const ExpectedTensor e = b.finish();
  EXPECT_EQ(e.loose.count(0), 0u);
  EXPECT_EQ(e.loose.count(1), 0u);
  EXPECT_TRUE(e.allows(0, bits_from_value(DType::Float32, Value::of_float(7.5))));
  EXPECT_FALSE(e.allows(0, bits_from_value(DType::Float32, Value::of_float(3.0))));
  EXPECT_TRUE(e.allows(1, bits_from_value(DType::Float32, Value::of_float(-1.0))));
  // 0 + 3 - 1 + 7.5 + 2 is exact in float32: only 11.5.
  EXPECT_TRUE(e.allows(2, bits_from_value(DType::Float32, Value::of_float(11.5))));
  EXPECT_FALSE(e.allows(2, bits_from_value(DType::Float32, Value::of_float(std::nextafter(11.5f, 0.0f)))));
  EXPECT_FALSE(e.allows(2, bits_from_value(DType::Float32, Value::of_float(8.5))));  // a dropped 3
}

}  // namespace
}  // namespace sp
