// device_probe.h — what `scatterproof bench --gpu` prints about the GPU
// before it times anything (bench/gpu_bench.cc): the device's name, compute
// capability and memory, the driver's and the runtime's CUDA versions, and
// copy bandwidth measured on it with CUDA events (median of repeats after a
// warm-up): device-to-device cudaMemcpy, and host<->device from pinned and
// from pageable host memory (the backends' jobs copy from pageable memory:
// the host tensors' own storage).
//
// Built only with nvcc (sp_cuda); the bench calls it when sp_cuda is linked
// (SP_BENCH_HAVE_CUDA).
//
// Thread-safety: uses device 0 and the default stream; one call at a time.
#pragma once

#include <cstddef>
#include <string>

namespace sp::cuda {

struct DeviceProbe {
  std::string error;  // non-empty: no device or a CUDA failure; nothing else is set
  std::string name;   // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  double memory_bytes = 0;
  int driver_version = 0;   // cudaDriverGetVersion: 13000 is CUDA 13.0
  int runtime_version = 0;  // cudaRuntimeGetVersion
  double copy_bytes = 0;    // the size of each measured copy
  // GB/s (1e9 bytes per second). Device to device counts read + write
  // (2 x bytes per copy), as the bench's GB/s and the cpu bench's memcpy do;
  // host<->device count the bytes that crossed.
  double d2d_gbs = 0;
  double h2d_pinned_gbs = 0, d2h_pinned_gbs = 0;
  double h2d_pageable_gbs = 0, d2h_pageable_gbs = 0;
};

// Measures with copies of `bytes` bytes, `repeats` timed (>= 1) after one warm-up.
DeviceProbe probe_device(size_t bytes, int repeats);

// "13.0" from 13000.
std::string cuda_version_text(int version);

}  // namespace sp::cuda
