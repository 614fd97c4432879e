// host_info.cc — see host_info.h.
#include "bench/host_info.h"

#include <fmt/format.h>
#include <sched.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "bench/bench_core.h"  // median

namespace sp::bench {
namespace {

std::string first_line(const std::string& path) { return first_line_of(path); }

// The value of the first "key<spaces>: value" line of a /proc file.
std::string proc_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

std::string size_text(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30) && bytes % (int64_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.3g} MiB", static_cast<double>(bytes) / (1 << 20));
  return fmt::format("{} KiB", bytes >> 10);
}

}  // namespace

CopyMeter::CopyMeter(int threads) : threads_(threads), from_(kBytes, std::byte{1}), to_(kBytes, std::byte{0}) {}

double CopyMeter::measure(int repeats) {
  copy_once();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    copy_once();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(kBytes) / median(times);
}

void CopyMeter::copy_once() {
  const size_t chunk = kBytes / static_cast<size_t>(threads_);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads_; ++t) {
    const size_t begin = chunk * static_cast<size_t>(t);
    const size_t end = t + 1 == threads_ ? kBytes : begin + chunk;
    workers.emplace_back([this, begin, end] { std::memcpy(to_.data() + begin, from_.data() + begin, end - begin); });
  }
  for (auto& w : workers) w.join();
}

HostInfo read_host_info(const std::string& root) {
  HostInfo h;
  h.cpu_model = proc_field(root + "/proc/cpuinfo", "model name");
  if (h.cpu_model.empty()) h.cpu_model = "?";
  if (root.empty()) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) h.cpus = CPU_COUNT(&set);
  } else {
    h.cpus = count_cpu_list(first_line(root + "/sys/devices/system/cpu/online"));
  }
  h.caches = read_cache_levels(root);
  const std::string mem = proc_field(root + "/proc/meminfo", "MemTotal");  // "24576000 kB"
  try {
    h.mem_total_bytes = std::stoll(mem) * 1024;
  } catch (const std::exception&) {
    h.mem_total_bytes = 0;
  }
  // "always [madvise] never": the bracketed word is the mode in force.
  const std::string thp = first_line(root + "/sys/kernel/mm/transparent_hugepage/enabled");
  const auto open = thp.find('['), close = thp.find(']');
  h.thp = open != std::string::npos && close > open ? thp.substr(open + 1, close - open - 1) : "?";
  return h;
}

std::string describe(const HostInfo& host) {
  std::string s = fmt::format("{} ({} CPUs)", host.cpu_model, host.cpus);
  for (const CacheLevel& c : host.caches) {
    s += fmt::format(", L{}{} {}", c.level, c.type == "Data" ? "d" : "", size_text(c.bytes));
    if (c.level >= 2 && c.shared_by > 1) s += fmt::format(" (shared by {})", c.shared_by);
  }
  if (host.mem_total_bytes > 0) s += fmt::format(", {:.1f} GiB", static_cast<double>(host.mem_total_bytes) / (1 << 30));
  return s + ", THP " + host.thp;
}

nlohmann::json to_json(const HostInfo& host) {
  nlohmann::json caches = nlohmann::json::array();
  for (const CacheLevel& c : host.caches)
    caches.push_back({{"level", c.level}, {"type", c.type}, {"bytes", c.bytes}, {"shared_by", c.shared_by}});
  return {{"cpu_model", host.cpu_model},
          {"cpus", host.cpus},
          {"caches", caches},
          {"mem_total_bytes", host.mem_total_bytes},
          {"transparent_hugepages", host.thp}};
}

}  // namespace sp::bench
