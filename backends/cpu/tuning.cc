// tuning.cc — see tuning.h.
#include "backends/cpu/tuning.h"

#include <algorithm>

namespace sp::cpu {

Tuning derive_tuning(const std::vector<CacheLevel>& caches) {
  Tuning t;
  int llc_level = 0;
  for (const CacheLevel& c : caches) {
    if (c.bytes <= 0) continue;
    if (c.level == 1 && c.type == "Data") t.l1d_bytes = c.bytes;
    if (c.level == 2) t.l2_bytes = c.bytes;
    if (c.level >= llc_level) llc_level = c.level, t.llc_bytes = c.bytes;
  }
  std::string missing;
  const auto fallback = [&](int64_t& v, int64_t d, const char* name) {
    if (v > 0) return;
    v = d;
    missing += missing.empty() ? name : std::string(", ") + name;
  };
  fallback(t.l1d_bytes, int64_t{32} << 10, "L1d");
  fallback(t.l2_bytes, int64_t{1} << 20, "L2");
  if (llc_level < 3) t.llc_bytes = 0;  // no L3: the rule wants the last level shared by the cores
  fallback(t.llc_bytes, int64_t{32} << 20, "L3");
  t.source = missing.empty() ? "sysfs" : "sysfs, defaults for " + missing + " (not listed there)";
  t.prefetch_ahead_bytes = std::clamp<int64_t>(t.l1d_bytes / 8, int64_t{2} << 10, int64_t{16} << 10);
  t.stream_output_bytes = std::max<int64_t>(t.llc_bytes, int64_t{4} << 20);
  t.cached_target_bytes = std::max<int64_t>(t.l2_bytes / 4, int64_t{64} << 10);
  return t;
}

const Tuning& tuning() {
  static const Tuning t = derive_tuning(read_cache_levels());
  return t;
}

}  // namespace sp::cpu
