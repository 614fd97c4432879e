// cpu_caches.cc — see cpu_caches.h.
#include "backends/common/cpu_caches.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sp {

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int count_cpu_list(const std::string& list) {
  int n = 0;
  std::stringstream parts(list);
  for (std::string part; std::getline(parts, part, ',');) {
    const auto dash = part.find('-');
    try {
      n += dash == std::string::npos ? 1 : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return n;
}

int64_t parse_cache_size(const std::string& text) {
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string unit = text.substr(used);
  if (unit.empty()) return n;
  if (unit == "K") return n << 10;
  if (unit == "M") return n << 20;
  if (unit == "G") return n << 30;
  return 0;
}

std::vector<CacheLevel> read_cache_levels(const std::string& root) {
  std::vector<CacheLevel> out;
  const std::filesystem::path cache = root + "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  for (int i = 0; std::filesystem::exists(cache / ("index" + std::to_string(i)), ec); ++i) {
    const std::string dir = (cache / ("index" + std::to_string(i))).string();
    CacheLevel c;
    try {
      c.level = std::stoi(first_line_of(dir + "/level"));
    } catch (const std::exception&) {
      continue;
    }
    c.type = first_line_of(dir + "/type");
    c.bytes = parse_cache_size(first_line_of(dir + "/size"));
    c.shared_by = count_cpu_list(first_line_of(dir + "/shared_cpu_list"));
    if (c.type != "Instruction") out.push_back(c);
  }
  return out;
}

}  // namespace sp
