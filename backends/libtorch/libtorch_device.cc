// libtorch_device.cc — see libtorch_device.h.
#include "backends/libtorch/libtorch_device.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <dlfcn.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace sp::libtorch {

std::optional<c10::Device> device_of_name(const std::string& name, std::string* why) {
  const auto at = name.find('@');
  if (at == std::string::npos) return std::nullopt;
  const std::string text = name.substr(at + 1);
  try {
    const c10::Device device(text);
    if (device.is_cpu() || device.is_cuda()) return device;
    *why = "device '" + text + "' is not one this backend knows (cpu, cuda, cuda:N)";
  } catch (const c10::Error&) {
    *why = "'" + text + "' is not a device (cpu, cuda, cuda:N)";
  }
  return std::nullopt;
}

std::string device_unusable(const c10::Device& device) {
  if (device.is_cpu()) return "";
  static const std::string no_cuda = [] {
    if (dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_GLOBAL)) return std::string();
    const char* error = dlerror();
    return std::string("this LibTorch has no CUDA kernels (libtorch_cuda.so: ") + (error ? error : "not found") + ")";
  }();
  if (!no_cuda.empty()) return no_cuda;
  const int count = at::detail::getCUDAHooks().getNumGPUs();
  const int index = device.has_index() ? device.index() : 0;
  if (index >= count)
    return "LibTorch sees " + std::to_string(count) + " CUDA device(s), so there is no " + device.str();
  return "";
}

std::string parse_driver_version(const std::string& line) {
  std::istringstream words(line);
  for (std::string w; words >> w;) {
    bool digits = false, dots = false, ok = std::isdigit(static_cast<unsigned char>(w.front())) != 0;
    char last = 0;
    for (char c : w) {
      if (c == '.') {
        ok = ok && last != '.';
        dots = true;
      } else {
        ok = ok && std::isdigit(static_cast<unsigned char>(c));
        digits = true;
      }
      last = c;
    }
    if (ok && digits && dots && last != '.') return w;
  }
  return "?";
}

namespace {

// The CUDA driver API's device name (libcuda.so.1: a stable C ABI, loaded by
// LibTorch's CUDA runtime already), or "" where it cannot be asked.
std::string cuda_device_name(int ordinal) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!cuda) cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (!cuda) return "";
  using Init = int (*)(unsigned);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  const auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  const auto get = reinterpret_cast<Get>(dlsym(cuda, "cuDeviceGet"));
  const auto name = reinterpret_cast<Name>(dlsym(cuda, "cuDeviceGetName"));
  int device = 0;
  char text[256] = {};
  if (!init || !get || !name || init(0) != 0 || get(&device, ordinal) != 0 || name(text, sizeof text, device) != 0)
    return "";
  return text;
}

}  // namespace

std::string describe_device(const c10::Device& device) {
  if (device.is_cpu()) return " on cpu";
  std::string line;
  std::ifstream proc("/proc/driver/nvidia/version");
  std::getline(proc, line);
  const long cudart = at::detail::getCUDAHooks().versionCUDART();  // 13000 for CUDA 13.0
  const std::string name = cuda_device_name(device.has_index() ? device.index() : 0);
  return " on " + (device.has_index() ? device.str() : device.str() + ":0") + " (" +
         (name.empty() ? std::string("name unknown") : name) + ", CUDA " + std::to_string(cudart / 1000) + "." +
         std::to_string(cudart % 1000 / 10) + ", driver " + parse_driver_version(line) + ")";
}

}  // namespace sp::libtorch
