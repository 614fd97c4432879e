// cpu_caches.h — the caches of this machine, read from sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/): what the bench names in its
// host line (bench/host_info.h) and what the cpu backend derives its
// machine-dependent parameters from (backends/cpu/tuning.h).
//
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sp {

struct CacheLevel {
  int level = 0;
  std::string type;  // "Data", "Instruction", "Unified"
  int64_t bytes = 0;
  int shared_by = 0;  // logical CPUs sharing it (shared_cpu_list), 0 if unknown
};

// cpu0's data and unified caches under `root` ("" for the real /; tests
// pass a fake tree), in sysfs order; empty when sysfs has none.
std::vector<CacheLevel> read_cache_levels(const std::string& root = "");

// "48K" / "2048K" / "105M" (sysfs cache sizes) in bytes; 0 if unreadable.
int64_t parse_cache_size(const std::string& text);
// "0-1" / "0,2,4-5" -> the number of CPUs listed; 0 if unreadable.
int count_cpu_list(const std::string& list);
// The first line of a file; "" when it cannot be read.
std::string first_line_of(const std::string& path);

}  // namespace sp
