// Tests of the core model: dtype conversions, tensor views, the float
// reduction bounds and the Expectation matching rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/float_bounds.h"
#include "reference/op_call.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/tensor.h"

namespace sp {
namespace {

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float f32_from(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(CoreDType, HalfRoundTripsEveryPattern) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_bits_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(f))));
      continue;
    }
    EXPECT_EQ(float_to_half_bits(f), h) << std::hex << h;
  }
}

TEST(CoreDType, HalfRoundsToNearestEven) {
  // 1 + 2^-11 lies exactly between 1 and the next half (1 + 2^-10): ties to even -> 1.
  EXPECT_EQ(double_to_half_bits(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  // 1 + 3*2^-11 lies between 1+2^-10 (odd) and 1+2^-9 (even): ties to even -> up.
  EXPECT_EQ(double_to_half_bits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(double_to_half_bits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)), 0x3c01);
  EXPECT_EQ(double_to_half_bits(65504.0), 0x7bff);
  EXPECT_EQ(double_to_half_bits(65520.0), 0x7c00);  // rounds to inf
  EXPECT_EQ(double_to_half_bits(65519.99), 0x7bff);
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -25)), 0x0000);  // tie to even (0)
  EXPECT_EQ(double_to_half_bits(-0.0), 0x8000);
}

TEST(CoreDType, BFloat16MatchesRoundingOfFloatBits) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t u = rng();
    const float f = f32_from(u);
    if (std::isnan(f)) continue;
    // Classic round-to-nearest-even on the upper 16 bits.
    const uint32_t rounded = (u + 0x7fff + ((u >> 16) & 1)) >> 16;
    EXPECT_EQ(float_to_bf16_bits(f), static_cast<uint16_t>(rounded)) << std::hex << u;
  }
  EXPECT_EQ(f32_bits(bf16_bits_to_float(0x3f80)), 0x3f800000u);
}

TEST(CoreDType, NaNPayloadSurvivesHalfAndBFloat) {
  const uint64_t half_nan = 0x7e01;
  const Value v = value_from_bits(DType::Float16, half_nan);
  EXPECT_EQ(bits_from_value(DType::Float16, v), half_nan);
  const uint64_t bf_nan = 0xffc3;
  EXPECT_EQ(bits_from_value(DType::BFloat16, value_from_bits(DType::BFloat16, bf_nan)), bf_nan);
}

TEST(CoreDType, IntegralConversionsWrapAndTruncate) {
  EXPECT_EQ(value_from_bits(DType::Int8, bits_from_value(DType::Int8, Value::of_int(128))).i, -128);
  EXPECT_EQ(value_from_bits(DType::UInt8, bits_from_value(DType::UInt8, Value::of_int(-1))).i, 255);
  EXPECT_EQ(value_from_bits(DType::Int64, bits_from_value(DType::Int64, Value::of_float(-1.9))).i, -1);
  EXPECT_EQ(bits_from_value(DType::Bool, Value::of_float(0.5)), 1u);
  EXPECT_EQ(format_value(DType::Float32, f32_bits(-0.0f)), "-0.0");
  EXPECT_EQ(format_value(DType::Int64, bits_from_value(DType::Int64, Value::of_int(INT64_MIN))),
            "-9223372036854775808");
  EXPECT_EQ(dtype_from_name("bfloat16"), DType::BFloat16);
  EXPECT_FALSE(dtype_from_name("complex64").has_value());
}

TEST(CoreTensor, ViewsAreBoundsChecked) {
  auto storage = std::make_shared<std::vector<std::byte>>(4 * 6);
  EXPECT_NO_THROW(Tensor::view(DType::Float32, {2, 3}, {3, 1}, 0, storage));
  EXPECT_THROW(Tensor::view(DType::Float32, {2, 3}, {3, 1}, 1, storage), std::invalid_argument);
  EXPECT_THROW(Tensor::view(DType::Float32, {2, 3}, {4, 1}, 0, storage), std::invalid_argument);
  EXPECT_THROW(Tensor::view(DType::Float32, {2, 3}, {INT64_MAX / 2, 1}, 0, storage), std::invalid_argument);
  EXPECT_THROW(Tensor::view(DType::Float32, {-1}, {1}, 0, storage), std::invalid_argument);
  EXPECT_NO_THROW(Tensor::view(DType::Float32, {0, 5}, {5, 1}, 6, storage));  // empty view
  EXPECT_THROW(Tensor::zeros(DType::Float32, {INT64_MAX, 4}), std::invalid_argument);
}

TEST(CoreTensor, InternalOverlap) {
  auto storage = std::make_shared<std::vector<std::byte>>(4 * 12);
  EXPECT_TRUE(Tensor::view(DType::Float32, {3, 4}, {0, 1}, 0, storage).has_internal_overlap());
  EXPECT_FALSE(Tensor::view(DType::Float32, {3, 4}, {1, 3}, 0, storage).has_internal_overlap());  // transposed
  EXPECT_FALSE(Tensor::view(DType::Float32, {1, 4}, {0, 1}, 0, storage).has_internal_overlap());  // size-1 dim
  EXPECT_TRUE(Tensor::view(DType::Float32, {2, 3}, {2, 1}, 0, storage).has_internal_overlap());   // rows overlap
  EXPECT_FALSE(Tensor::view(DType::Float32, {2, 2}, {4, 2}, 1, storage).has_internal_overlap());  // gaps
}

TEST(CoreTensor, StridedReadsFollowLayout) {
  Tensor t = Tensor::zeros(DType::Int32, {2, 3});
  for (int64_t i = 0; i < 6; ++i) store_bits(DType::Int32, t.element_ptr(i), static_cast<uint64_t>(i));
  Tensor tr = Tensor::view(DType::Int32, {3, 2}, {1, 3}, 0, t.storage());
  EXPECT_EQ(tr.to_bits(), (std::vector<uint64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_TRUE(tr.contiguous().is_contiguous());
  EXPECT_EQ(tr.contiguous().to_bits(), tr.to_bits());
}

TEST(CoreOpCall, DeepCopyKeepsAliasingButNotStorage) {
  OpCall c;
  c.op = "torch.scatter_";
  Tensor self = Tensor::zeros(DType::Float32, {4});
  c.tensors["self"] = self;
  c.tensors["src"] = Tensor::view(DType::Float32, {2}, {2}, 1, self.storage());
  OpCall d = c.deep_copy();
  EXPECT_NE(d.tensors["self"].storage().get(), self.storage().get());
  EXPECT_EQ(d.tensors["self"].storage().get(), d.tensors["src"].storage().get());
  EXPECT_EQ(d.tensors["src"].strides(), (Shape{2}));
  EXPECT_TRUE(is_inplace_op("mindspore.scatter_"));
  EXPECT_FALSE(is_inplace_op("paddle.scatter"));
}

// Every summation order of a few float32 terms lands in the interval.
TEST(CoreFloatBounds, AddIntervalContainsEveryOrder) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mag(-1e4f, 1e4f);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<float> terms(5);
    for (float& x : terms) x = mag(rng) * (rng() % 3 == 0 ? 1e-4f : 1.0f);
    std::vector<double> dterms(terms.begin(), terms.end());
    const ElementAllowed a = float_reduction_bounds(DType::Float32, ReduceMode::Add, dterms);
    std::vector<float> perm = terms;
    std::sort(perm.begin() + 1, perm.end());
    do {
      float acc = perm[0];
      for (size_t i = 1; i < perm.size(); ++i) acc += perm[i];
      ASSERT_TRUE(a.allows(DType::Float32, f32_bits(acc))) << acc << " " << a.describe(DType::Float32);
    } while (std::next_permutation(perm.begin() + 1, perm.end()));
    // Accumulating in double and rounding once is allowed too.
    double wide = 0;
    for (float x : terms) wide += x;
    EXPECT_TRUE(a.allows(DType::Float32, f32_bits(static_cast<float>(wide))));
  }
}

TEST(CoreFloatBounds, AddIntervalIsTight) {
  // 1 + 1e-3 + 1e-3 in float32: a result off by 1e-3 is not allowed.
  const ElementAllowed a = float_reduction_bounds(DType::Float32, ReduceMode::Add, {1.0, 1e-3, 1e-3});
  EXPECT_TRUE(a.allows(DType::Float32, f32_bits(1.002f)));
  EXPECT_FALSE(a.allows(DType::Float32, f32_bits(1.001f)));
  EXPECT_FALSE(a.allows(DType::Float32, f32_bits(std::nanf(""))));
}

TEST(CoreFloatBounds, AddSpecials) {
  const double inf = INFINITY;
  auto allows = [](const ElementAllowed& a, float f) { return a.allows(DType::Float32, f32_bits(f)); };
  EXPECT_TRUE(allows(float_reduction_bounds(DType::Float32, ReduceMode::Add, {1, NAN, 2}), NAN));
  EXPECT_FALSE(allows(float_reduction_bounds(DType::Float32, ReduceMode::Add, {1, NAN, 2}), 3));
  const ElementAllowed opposite = float_reduction_bounds(DType::Float32, ReduceMode::Add, {inf, -inf, 1});
  EXPECT_TRUE(allows(opposite, NAN));
  EXPECT_FALSE(allows(opposite, inf));
  const ElementAllowed one_inf = float_reduction_bounds(DType::Float32, ReduceMode::Add, {1, inf, 2});
  EXPECT_TRUE(allows(one_inf, inf));
  EXPECT_FALSE(allows(one_inf, NAN));
  // 3e38 + 3e38 - 3e38: one order overflows to inf.
  const ElementAllowed ovf = float_reduction_bounds(DType::Float32, ReduceMode::Add, {3e38, 3e38, -3e38});
  EXPECT_TRUE(allows(ovf, inf));
  EXPECT_TRUE(allows(ovf, 3e38f));
}

TEST(CoreFloatBounds, MultiplySignsZerosAndOverflow) {
  auto allows = [](const ElementAllowed& a, float f) { return a.allows(DType::Float32, f32_bits(f)); };
  const ElementAllowed z = float_reduction_bounds(DType::Float32, ReduceMode::Multiply, {-2, 0, 3});
  EXPECT_TRUE(allows(z, -0.0f));
  EXPECT_FALSE(allows(z, 0.0f));  // the sign of a zero product is exact
  EXPECT_TRUE(allows(float_reduction_bounds(DType::Float32, ReduceMode::Multiply, {0, INFINITY, 1}), NAN));
  const ElementAllowed ovf = float_reduction_bounds(DType::Float32, ReduceMode::Multiply, {1e30, 1e30, 1e-30});
  EXPECT_TRUE(allows(ovf, INFINITY));
  EXPECT_TRUE(allows(ovf, 1e30f));
  const ElementAllowed plain = float_reduction_bounds(DType::Float32, ReduceMode::Multiply, {2, 1.5, -3});
  EXPECT_TRUE(allows(plain, -9.0f));
  EXPECT_FALSE(allows(plain, 9.0f));
  EXPECT_FALSE(allows(plain, -9.01f));
}

TEST(CoreFloatBounds, BFloat16AccumulatedInBFloat16StaysAllowed) {
  // LibTorch 1.13 accumulates bf16 scatter_add_ in bf16: 4096 ones give 256.
  std::vector<double> terms(4097, 1.0);
  terms[0] = 0.0;
  const ElementAllowed a = float_reduction_bounds(DType::BFloat16, ReduceMode::Add, terms);
  EXPECT_TRUE(a.allows(DType::BFloat16, float_to_bf16_bits(256.0f)));
  EXPECT_TRUE(a.allows(DType::BFloat16, float_to_bf16_bits(4096.0f)));
  EXPECT_FALSE(a.allows(DType::BFloat16, float_to_bf16_bits(-1.0f)));
}

TEST(CoreOutputBuilder, ResolvesEveryElementKind) {
  Tensor init = Tensor::zeros(DType::Float32, {4});
  store_bits(DType::Float32, init.element_ptr(3), f32_bits(-0.0f));
  OutputBuilder b("self", init, nullptr);
  b.overwrite({0}, f32_bits(1.0f), {});
  b.overwrite({1}, f32_bits(2.0f), {});
  b.overwrite({1}, f32_bits(3.0f), {});
  b.reduce({2}, ReduceMode::Add, Value::of_float(0.5), {});
  ExpectedTensor e = b.finish();
  EXPECT_TRUE(e.allows(0, f32_bits(1.0f)));
  EXPECT_FALSE(e.allows(0, f32_bits(1.0000001f)));
  EXPECT_TRUE(e.allows(1, f32_bits(2.0f)));
  EXPECT_TRUE(e.allows(1, f32_bits(3.0f)));
  EXPECT_FALSE(e.allows(1, f32_bits(5.0f)));
  EXPECT_TRUE(e.allows(2, f32_bits(0.5f)));
  EXPECT_TRUE(e.allows(3, f32_bits(-0.0f)));
  EXPECT_FALSE(e.allows(3, f32_bits(0.0f)));  // untouched: exact bits
  EXPECT_EQ(e.loose.size(), 1u);
}

TEST(CoreOutputBuilder, IntegerReductionsWrapExactly) {
  Tensor init = Tensor::zeros(DType::Int8, {2});
  store_bits(DType::Int8, init.element_ptr(0), 127);
  OutputBuilder b("self", init, nullptr);
  b.reduce({0}, ReduceMode::Add, Value::of_int(1), {});
  b.reduce({0}, ReduceMode::Add, Value::of_int(1), {});
  b.reduce({1}, ReduceMode::Multiply, Value::of_int(5), {});
  ExpectedTensor e = b.finish();
  EXPECT_TRUE(e.allows(0, static_cast<uint8_t>(-127)));
  EXPECT_TRUE(e.loose.empty());
  EXPECT_TRUE(e.allows(1, 0));
}

TEST(CoreOutputBuilder, ZeroedRowsStartFromPositiveZero) {
  Tensor init = Tensor::zeros(DType::Float32, {2});
  store_bits(DType::Float32, init.element_ptr(0), f32_bits(7.0f));
  store_bits(DType::Float32, init.element_ptr(1), f32_bits(7.0f));
  OutputBuilder b("out", init, nullptr);
  b.reset_to_zero({0});
  b.reduce({0}, ReduceMode::Add, Value::of_float(-0.0), {});
  b.reset_to_zero({1});
  ExpectedTensor e = b.finish();
  EXPECT_TRUE(e.allows(0, f32_bits(0.0f)));
  EXPECT_FALSE(e.allows(0, f32_bits(-0.0f)));
  EXPECT_FALSE(e.allows(0, f32_bits(7.0f)));
  EXPECT_TRUE(e.allows(1, f32_bits(0.0f)));
}

}  // namespace
}  // namespace sp
