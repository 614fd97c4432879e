// device_probe.cc — the GPU facts and copy bandwidth of bench --gpu
// (device_probe.h), measured with CUDA events on the default stream.
#include "backends/cuda/device_probe.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sp::cuda {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Owns a device, pinned or pageable allocation.
struct Memory {
  enum Kind { Device, Pinned, Pageable };
  Memory(Kind kind, size_t bytes) : kind_(kind) {
    if (kind == Device) check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
    if (kind == Pinned) check(cudaMallocHost(&ptr_, bytes), "cudaMallocHost");
    if (kind == Pageable) {
      pageable_.reset(new char[bytes]);
      std::memset(pageable_.get(), 1, bytes);  // touched: no page faults inside the timing
      ptr_ = pageable_.get();
    }
  }
  ~Memory() {
    if (kind_ == Device && ptr_) cudaFree(ptr_);
    if (kind_ == Pinned && ptr_) cudaFreeHost(ptr_);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  void* get() const { return ptr_; }

 private:
  Kind kind_;
  void* ptr_ = nullptr;
  std::unique_ptr<char[]> pageable_;
};

// Median seconds of `repeats` cudaMemcpy after one warm-up, between CUDA events.
double median_copy_seconds(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, int repeats) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> seconds;
  try {
    check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy (warm-up)");
    for (int r = 0; r < repeats; ++r) {
      check(cudaEventRecord(start), "cudaEventRecord");
      check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      seconds.push_back(ms / 1e3);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

void measure(DeviceProbe& p, size_t bytes, int repeats) {
  const Memory a(Memory::Device, bytes), b(Memory::Device, bytes);
  check(cudaMemset(a.get(), 1, bytes), "cudaMemset");
  const double gb = static_cast<double>(bytes) / 1e9;
  p.d2d_gbs = 2 * gb / median_copy_seconds(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, repeats);
  {
    const Memory pinned(Memory::Pinned, bytes);
    std::memset(pinned.get(), 1, bytes);
    p.h2d_pinned_gbs = gb / median_copy_seconds(a.get(), pinned.get(), bytes, cudaMemcpyHostToDevice, repeats);
    p.d2h_pinned_gbs = gb / median_copy_seconds(pinned.get(), a.get(), bytes, cudaMemcpyDeviceToHost, repeats);
  }
  const Memory pageable(Memory::Pageable, bytes);
  p.h2d_pageable_gbs = gb / median_copy_seconds(a.get(), pageable.get(), bytes, cudaMemcpyHostToDevice, repeats);
  p.d2h_pageable_gbs = gb / median_copy_seconds(pageable.get(), a.get(), bytes, cudaMemcpyDeviceToHost, repeats);
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceProbe probe_device(size_t bytes, int repeats) {
  DeviceProbe p;
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess || n == 0) {
    p.error = status != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(status) : "no CUDA device";
    return p;
  }
  try {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    p.name = prop.name;
    p.cc_major = prop.major;
    p.cc_minor = prop.minor;
    p.memory_bytes = static_cast<double>(prop.totalGlobalMem);
    check(cudaDriverGetVersion(&p.driver_version), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&p.runtime_version), "cudaRuntimeGetVersion");
    p.copy_bytes = static_cast<double>(bytes);
    measure(p, bytes, std::max(1, repeats));
  } catch (const std::exception& e) {
    p = DeviceProbe{};
    p.error = e.what();
  }
  return p;
}

}  // namespace sp::cuda
