// libtorch_device.h — the device of a LibTorch device variant
// (`libtorch@cuda:1`, `libtorch-current@cpu`; issue 30, docs/gpu.md): parsing
// the name, loading LibTorch's CUDA kernels where the build links only
// torch_cpu, and the words the backend's version gives its device.
#pragma once

#include <c10/core/Device.h>

#include <optional>
#include <string>

namespace sp::libtorch {

// The device a backend name asks for: "libtorch@cuda:1" -> cuda:1, a plain
// name -> nullopt. *why says what is wrong with a malformed one (nullopt).
std::optional<c10::Device> device_of_name(const std::string& name, std::string* why);

// "" when LibTorch can run kernels on `device` in this process, else why not
// (no CUDA kernels in this LibTorch, no such device). For CUDA it first loads
// libtorch_cuda.so (a CUDA wheel's, beside its libtorch_cpu.so): this
// backend links torch_cpu and c10 alone, and the CUDA kernels register
// themselves when their library is loaded.
std::string device_unusable(const c10::Device& device);

// What the version string says about the device: " on cpu", " on cuda:0
// (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.159.04)".
std::string describe_device(const c10::Device& device);

// The NVIDIA driver's version in /proc/driver/nvidia/version's first line:
// its first dotted number ("580.159.04"), "?" without one.
std::string parse_driver_version(const std::string& line);

}  // namespace sp::libtorch
