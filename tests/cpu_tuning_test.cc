// backends/cpu/tuning.h: the cpu kernels' machine-dependent parameters
// follow the caches sysfs lists, reproduce the development host's measured
// constants on its caches, and fall back, saying so, where sysfs is silent.
#include <gtest/gtest.h>

#include "backends/cpu/tuning.h"

namespace sp {
namespace {

CacheLevel level(int n, const char* type, int64_t bytes) { return CacheLevel{n, type, bytes, 1}; }

TEST(CpuTuning, TheDevelopmentHostGetsTheConstantsMeasuredOnIt) {
  // L1d 32 KiB, L2 1 MiB, L3 32 MiB: 4 KiB prefetch, streaming from 32 MiB, 256 KiB of cached targets.
  const cpu::Tuning t =
      cpu::derive_tuning({level(1, "Data", 32 << 10), level(2, "Unified", 1 << 20), level(3, "Unified", 32 << 20)});
  EXPECT_EQ(t.prefetch_ahead_bytes, 4096);
  EXPECT_EQ(t.stream_output_bytes, int64_t{32} << 20);
  EXPECT_EQ(t.cached_target_bytes, 256 << 10);
  EXPECT_EQ(t.source, "sysfs");
}

TEST(CpuTuning, ABigCacheHostGetsItsOwn) {
  // The host of issue 37: L1d 48 KiB, L2 2 MiB, L3 480 MiB.
  const cpu::Tuning t = cpu::derive_tuning(
      {level(1, "Data", 48 << 10), level(2, "Unified", 2 << 20), level(3, "Unified", int64_t{480} << 20)});
  EXPECT_EQ(t.prefetch_ahead_bytes, 6 << 10);
  EXPECT_EQ(t.stream_output_bytes, int64_t{480} << 20);
  EXPECT_EQ(t.cached_target_bytes, 512 << 10);
}

TEST(CpuTuning, SilentSysfsFallsBackAndSaysSo) {
  const cpu::Tuning none = cpu::derive_tuning({});
  EXPECT_EQ(none.prefetch_ahead_bytes, 4096);
  EXPECT_EQ(none.stream_output_bytes, int64_t{32} << 20);
  EXPECT_NE(none.source.find("defaults for L1d, L2, L3"), std::string::npos) << none.source;
  // No L3: the last level is not one the cores share; the default stands in.
  const cpu::Tuning two = cpu::derive_tuning({level(1, "Data", 64 << 10), level(2, "Unified", 4 << 20)});
  EXPECT_EQ(two.stream_output_bytes, int64_t{32} << 20);
  EXPECT_EQ(two.prefetch_ahead_bytes, 8 << 10);
  EXPECT_NE(two.source.find("L3"), std::string::npos);
  // Clamps: a tiny L1 still prefetches 2 KiB ahead; a huge one at most 16 KiB.
  EXPECT_EQ(cpu::derive_tuning({level(1, "Data", 4 << 10)}).prefetch_ahead_bytes, 2 << 10);
  EXPECT_EQ(cpu::derive_tuning({level(1, "Data", 1 << 20)}).prefetch_ahead_bytes, 16 << 10);
}

TEST(CpuTuning, ThisMachineReadsSysfs) {
  const cpu::Tuning& t = cpu::tuning();
  EXPECT_GT(t.l1d_bytes, 0);
  EXPECT_GE(t.stream_output_bytes, 4 << 20);
  EXPECT_FALSE(t.source.empty());
}

}  // namespace
}  // namespace sp
