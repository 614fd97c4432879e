// host_info.h — what `scatterproof bench` says about the machine it ran on
// (issue 37: hosts of one kind differ in caches and memory bandwidth, so two
// runs are compared only with their hosts named): the CPU model, the cores
// the process may use, each cache level's size, memory, and the transparent
// huge page mode, read from /proc and sysfs. The memcpy bandwidth is the
// bench's own measurement (CopyMeter), added by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/common/cpu_caches.h"

namespace sp::bench {

using sp::CacheLevel;  // backends/common/cpu_caches.h
using sp::parse_cache_size;

struct HostInfo {
  std::string cpu_model;  // "?" where /proc/cpuinfo has none
  int cpus = 0;           // logical CPUs this process may run on
  std::vector<CacheLevel> caches;
  int64_t mem_total_bytes = 0;
  std::string thp;  // transparent huge pages: "always", "madvise", "never", "?"
};

// Reads the facts under `root` ("" for the real /; tests pass a fake tree).
HostInfo read_host_info(const std::string& root = "");

// "Intel Xeon ... (2 CPUs), L1d 48 KiB, L2 2 MiB, L3 105 MiB (shared by 2), 24 GiB, THP madvise"
std::string describe(const HostInfo& host);
nlohmann::json to_json(const HostInfo& host);

// Read + write bandwidth of a multi-threaded memcpy of 256 MiB, in bytes/s.
// The bench measures it at start (the host line) and again before every
// workload: on a shared machine it drifts (37-64 GB/s within minutes on the
// 2-core bench machine), so each workload's "of copy" compares it with the
// copy measured next to it.
class CopyMeter {
 public:
  explicit CopyMeter(int threads);
  double measure(int repeats);

 private:
  static constexpr size_t kBytes = size_t{256} << 20;
  void copy_once();
  int threads_;
  std::vector<std::byte> from_, to_;
};

}  // namespace sp::bench
