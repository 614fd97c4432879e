#include "backends/common/resource_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#ifndef SP_RESOURCE_SOURCE_DIR
#error "SP_RESOURCE_SOURCE_DIR (the configured source tree) is set by cmake/install.cmake"
#endif

namespace sp::resources {
namespace fs = std::filesystem;

namespace {

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

}  // namespace

fs::path executable_dir() {
  std::error_code ec;
  std::string exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec || exe.empty()) return {};
  // Rebuilt while it ran: the kernel marks the old file " (deleted)".
  const std::string deleted = " (deleted)";
  if (exe.size() > deleted.size() && exe.compare(exe.size() - deleted.size(), deleted.size(), deleted) == 0)
    exe.resize(exe.size() - deleted.size());
  return fs::path(exe).parent_path();
}

fs::path installed_data_dir() {
  const fs::path dir = executable_dir();
  if (dir.empty()) return {};
  std::error_code ec;
  const fs::path data = (dir.parent_path() / "share" / "scatterproof").lexically_normal();
  return fs::is_directory(data, ec) ? data : fs::path();
}

fs::path source_fallback_dir() {
  if (env_set("SCATTERPROOF_NO_SOURCE_FALLBACK")) return {};
  return SP_RESOURCE_SOURCE_DIR;
}

fs::path find(const fs::path& relative, std::vector<std::string>* looked) {
  std::error_code ec;
  for (const fs::path& root : {installed_data_dir(), source_fallback_dir()}) {
    if (root.empty()) continue;
    const fs::path candidate = root / relative;
    if (looked) looked->push_back(candidate.string());
    if (fs::exists(candidate, ec)) return candidate;
  }
  if (looked && installed_data_dir().empty()) {  // name where an installed tree would have it
    const fs::path dir = executable_dir();
    if (!dir.empty())
      looked->push_back((dir.parent_path() / "share" / "scatterproof" / relative).lexically_normal().string());
  }
  return {};
}

std::string helper_program(const std::string& name, const std::string& build_path) {
  const fs::path dir = executable_dir();
  if (!dir.empty()) {
    const fs::path beside = dir / name;
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  if (!env_set("SCATTERPROOF_NO_SOURCE_FALLBACK") && ::access(build_path.c_str(), X_OK) == 0) return build_path;
  return {};
}

fs::path venv_dir(const std::string& venv) {
  if (const char* root = std::getenv("SCATTERPROOF_VENV_ROOT"); root && *root) return fs::path(root) / venv;
  const fs::path source = source_fallback_dir();
  return source.empty() ? fs::path() : source / venv;
}

std::string describe() {
  const fs::path data = installed_data_dir();
  if (!data.empty()) return data.string() + " (installed)";
  const fs::path source = source_fallback_dir();
  return source.empty() ? std::string("none (no share/scatterproof beside the binary, source fallback disabled)")
                        : source.string() + " (source tree)";
}

}  // namespace sp::resources
