// platform.h — what the kernel bodies (backends/cuda/kernels/*.h) need to be
// compiled twice: by nvcc for the GPU (scatter_gather.cu) and by g++ for the
// host launcher (host_launcher.h, the "cuda-host" backend).
//
// - SP_HD (index_math.h): __host__ __device__ under nvcc, nothing under g++.
// - half_t / bf16_t: __half / __nv_bfloat16 under nvcc; under g++ a 16-bit
//   struct converted with the reference's round-to-nearest-even functions
//   (the same rounding __float2half_rn / __float2bfloat16_rn perform).
// - GridPos: what a kernel body knows of its thread (first position and the
//   grid-stride), so one body serves <<<>>> and the host launcher.
// - SP_CUDA_KERNEL_NS: the inline namespace of everything compiled from
//   these headers. A translation unit that defines SP_CUDA_KERNEL_MUTANT=N
//   (host_mutants.cc) gets its own, kernels_mutantN, so a planted bug cannot
//   leak into the real kernels through the linker (no ODR clash).
#pragma once

#include <cstdint>
#include <cstring>

#include "backends/cuda/index_math.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#else
#include "reference/dtype.h"
#endif

#ifdef SP_CUDA_KERNEL_MUTANT
#define SP_CUDA_NS_CAT2(a, b) a##b
#define SP_CUDA_NS_CAT(a, b) SP_CUDA_NS_CAT2(a, b)
#define SP_CUDA_KERNEL_NS SP_CUDA_NS_CAT(kernels_mutant, SP_CUDA_KERNEL_MUTANT)
#else
#define SP_CUDA_KERNEL_NS kernels
#endif

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

constexpr int kThreadsPerBlock = 256;

// One GPU thread's view of a launch: its global thread number and the
// number of threads in the grid (the grid-stride).
struct GridPos {
  int64_t first = 0;
  int64_t stride = 1;
};

#ifdef __CUDACC__
using half_t = __half;
using bf16_t = __nv_bfloat16;
SP_HD inline float to_float(half_t h) { return __half2float(h); }
SP_HD inline float to_float(bf16_t h) { return __bfloat162float(h); }
SP_HD inline half_t half_from_float(float f) { return __float2half_rn(f); }
SP_HD inline bf16_t bf16_from_float(float f) { return __float2bfloat16_rn(f); }
#else
struct half_t {
  uint16_t bits;
};
struct bf16_t {
  uint16_t bits;
};
inline float to_float(half_t h) { return half_bits_to_float(h.bits); }
inline float to_float(bf16_t h) { return bf16_bits_to_float(h.bits); }
inline half_t half_from_float(float f) { return half_t{float_to_half_bits(f)}; }
inline bf16_t bf16_from_float(float f) { return bf16_t{float_to_bf16_bits(f)}; }
#endif

template <class To, class From>
SP_HD inline To bit_cast_hd(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// The unsigned integer of a type's width.
template <int Bytes>
struct BitsOf;
template <>
struct BitsOf<1> {
  using T = uint8_t;
};
template <>
struct BitsOf<2> {
  using T = uint16_t;
};
template <>
struct BitsOf<4> {
  using T = uint32_t;
};
template <>
struct BitsOf<8> {
  using T = uint64_t;
};

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
