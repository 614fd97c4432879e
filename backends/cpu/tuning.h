// tuning.h — the cpu kernels' machine-dependent parameters, derived once
// from this machine's caches (backends/common/cpu_caches.h: sysfs) instead
// of being fixed (issue 37: a parameter tuned on one host's caches is a
// coincidence on another's).
//
// Each rule reproduces, on the 2-vCPU development host (L1d 32 KiB, L2
// 1 MiB, L3 32 MiB), the constant it replaces, which was measured there
// (docs/speed.md); on another host it follows that host's caches:
// - prefetch_ahead_bytes = L1d / 8, in [2 KiB, 16 KiB]: how far ahead the
//   random source rows of the row gather and the sorted row reduction are
//   prefetched. What is in flight stays a small part of L1, so a prefetched
//   row is not evicted before its use (was 4 KiB).
// - stream_output_bytes = the last-level cache, at least 4 MiB: outputs at
//   least this large are written with non-temporal stores, since they cannot
//   stay in cache anyway (was 32 MiB, this host's L3).
// - cached_target_bytes = L2 / 4, at least 64 KiB: 1-D scatter targets
//   spanning more than this have their accumulators prefetched (was
//   256 KiB).
// Memory caps on scratch space (row_reduce.h, scatter_kernel.cc) bound
// memory, not cache use, and stay fixed.
//
// Thread-safety: tuning() is initialised once, thread-safely, on first use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/common/cpu_caches.h"

namespace sp::cpu {

struct Tuning {
  int64_t l1d_bytes = 0, l2_bytes = 0, llc_bytes = 0;  // what the rules read
  int64_t prefetch_ahead_bytes = 0;
  int64_t stream_output_bytes = 0;
  int64_t cached_target_bytes = 0;
  std::string source;  // "sysfs", or which sizes fell back to defaults and why
};

// The rules above applied to `caches`; a size sysfs lacks falls back to the
// development host's (32 KiB, 1 MiB, 32 MiB) and `source` says so.
Tuning derive_tuning(const std::vector<CacheLevel>& caches);

// This machine's, read on first use.
const Tuning& tuning();

}  // namespace sp::cpu
