// cuda_host_test.cc — the float32 add of the CUDA kernels (kernels/atomics.h)
// on the host launcher: the threshold above which the hardware's flushing
// atomicAdd is exact, and subnormal adds under real concurrency.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "backends/backend.h"
#include "backends/cuda/kernels/atomics.h"
#include "tests/test_support.h"

namespace sp {
namespace {

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// What the hardware's float32 atomicAdd stores (operand and result flushed).
float hardware_sum(float old_value, float v) {
  return cuda::flush_subnormal(cuda::flush_subnormal(old_value) + cuda::flush_subnormal(v));
}

// For |v| >= kF32NativeAddMin the flushing atomic stores the IEEE sum for any
// old value: subnormals, values near -v (cancellation), zeros, both signs.
TEST(CudaHostAtomics, NativeFloat32AddIsExactAboveTheThreshold) {
  std::mt19937 rng(31);
  const float lo = cuda::kF32NativeAddMin;
  std::vector<float> operands = {lo, -lo, std::nextafter(lo, 1.0f), 2 * lo, 1.0f, -3.5f, 1e30f, INFINITY};
  for (int i = 0; i < 2000; ++i) operands.push_back(std::ldexp(1.0f + (rng() % 1024) / 1024.0f, -101 + rng() % 40));
  int checked = 0;
  for (float v : operands) {
    std::vector<float> olds = {0.0f, -0.0f, -v, std::nextafter(-v, 0.0f), std::nextafter(-v, -INFINITY)};
    for (int k = 0; k < 64; ++k) {
      olds.push_back(from_bits(rng() % 0x00800000u));                       // positive subnormals
      olds.push_back(-from_bits(rng() % 0x00800000u));                      // negative subnormals
      olds.push_back(from_bits(bits(-v) + (rng() % 64) - 32));              // near -v
      olds.push_back(from_bits(rng() % 0x7f800000u | (rng() & 1u) << 31));  // anything finite
    }
    for (float o : olds) {
      ASSERT_EQ(bits(hardware_sum(o, v)), bits(o + v)) << "old " << o << " + v " << v;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

// The threshold is tight: at 2^-102 a subnormal old value changes the IEEE
// sum (v - 2^-126 rather than v), which the flushing atomic loses.
TEST(CudaHostAtomics, HalfTheThresholdIsNotExact) {
  const float v = std::ldexp(1.0f, -102);
  const float o = -(std::ldexp(1.0f, -127) + std::ldexp(1.0f, -149));  // subnormal
  EXPECT_EQ(o + v, v - std::ldexp(1.0f, -126));
  EXPECT_NE(bits(hardware_sum(o, v)), bits(o + v));
}

// 4096 float32 subnormal adds into one element, on the host launcher's
// threads: every one goes through the CAS loop, none is flushed or lost
// (sums of multiples of 2^-149 below 2^-126 are exact in any order).
TEST(CudaHostAtomics, ConcurrentSubnormalAddsAreKept) {
  constexpr int kAdds = 4096;
  const double tiny = std::ldexp(1.0, -149);
  for (const char* name : {"cuda-host", "cuda-host-deterministic"}) {
    std::unique_ptr<Backend> b = make_backend(name, BackendOptions{}, nullptr);
    ASSERT_TRUE(b) << name;
    OpCall call = test::call_of("torch.scatter_add_",
                                {{"self", test::f32({1}, {0.0})},
                                 {"index", test::i64({kAdds}, std::vector<double>(kAdds, 0.0))},
                                 {"src", test::f32({kAdds}, std::vector<double>(kAdds, tiny))}},
                                {{"dim", Arg::of_int(0)}});
    const Outcome out = b->run(call);
    ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << name << ": " << out.message;
    EXPECT_EQ(test::values_of(out.outputs.front()), std::vector<double>{kAdds * tiny}) << name;
  }
}

}  // namespace
}  // namespace sp
