// atomics.h — the atomic operations of the kernel bodies, host/device.
//
// On the GPU (nvcc, __CUDA_ARCH__) these are CUDA's atomics. Under g++ (the
// host launcher) every one goes through std::atomic_ref, and the GPU's
// hardware atomics are modelled as the hardware behaves, not as C++ would:
// float32 atomicAdd on global memory flushes subnormal operands and results
// to zero (sign kept), so the host model does too (ftz_atomic_add_f32); a
// kernel that relies on it is caught on every machine. __half/bf16
// atomicAdd is modelled by the CAS loop on the element's bits. nvcc's host
// pass compiles the bodies but never runs them (kernels run on the device):
// there they trap.
//
// CAS loops compare bits, never values, so NaN cannot spin. 1- and 2-byte
// elements CAS the aligned 32-bit word that holds them (buffers are padded
// to 8 bytes for it, on the device and in the host launcher).
#pragma once

#include "backends/cuda/kernels/elem.h"

#ifndef __CUDACC__
#include <atomic>
#include <cmath>
#endif

#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
// nvcc's host pass: the bodies exist for the device only.
#define SP_DEVICE_ONLY_ON_HOST() __builtin_trap()
#endif

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

SP_HD inline unsigned int atomic_cas(unsigned int* word, unsigned int expected, unsigned int desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(word, expected, desired);
#elif defined(__CUDACC__)
  SP_DEVICE_ONLY_ON_HOST();
  return expected + (word && desired);
#else
  std::atomic_ref<unsigned int>(*word).compare_exchange_strong(expected, desired);
  return expected;  // the value seen: unchanged on success, the current one on failure
#endif
}

SP_HD inline unsigned long long atomic_cas(unsigned long long* word, unsigned long long expected,
                                           unsigned long long desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(word, expected, desired);
#elif defined(__CUDACC__)
  SP_DEVICE_ONLY_ON_HOST();
  return expected + (word && desired);
#else
  std::atomic_ref<unsigned long long>(*word).compare_exchange_strong(expected, desired);
  return expected;
#endif
}

SP_HD inline void atomic_min(unsigned long long* word, unsigned long long value) {
#if defined(__CUDA_ARCH__)
  atomicMin(word, value);
#elif defined(__CUDACC__)
  SP_DEVICE_ONLY_ON_HOST();
  (void)word, (void)value;
#else
  std::atomic_ref<unsigned long long> w(*word);
  unsigned long long seen = w.load();
  while (value < seen && !w.compare_exchange_weak(seen, value)) {
  }
#endif
}

// A plain load / store of an element that other threads may write at the
// same time (overwrite races, the first read of a CAS loop).
template <class T>
SP_HD inline T racy_load(const T* p) {
#if defined(__CUDACC__)
  return *p;
#else
  return std::atomic_ref<T>(*const_cast<T*>(p)).load(std::memory_order_relaxed);
#endif
}
template <class T>
SP_HD inline void racy_store(T* p, T v) {
#if defined(__CUDACC__)
  *p = v;
#else
  std::atomic_ref<T>(*p).store(v, std::memory_order_relaxed);
#endif
}

// *addr = combine(*addr), atomically, by compare-and-swap on the bits.
template <DType D, class Combine>
SP_HD void atomic_combine(typename Elem<D>::T* addr, Combine combine) {
  using T = typename Elem<D>::T;
  if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long seen = racy_load(word), assumed;
    do {
      assumed = seen;
      seen = atomic_cas(word, assumed, bit_cast_hd<unsigned long long>(combine(bit_cast_hd<T>(assumed))));
    } while (seen != assumed);
  } else if constexpr (sizeof(T) == 4) {
    auto* word = reinterpret_cast<unsigned int*>(addr);
    unsigned int seen = racy_load(word), assumed;
    do {
      assumed = seen;
      seen = atomic_cas(word, assumed, bit_cast_hd<unsigned int>(combine(bit_cast_hd<T>(assumed))));
    } while (seen != assumed);
  } else {
    // 1- and 2-byte elements: CAS the aligned 32-bit word that holds them.
    using Bits = typename BitsOf<sizeof(T)>::T;
    const uintptr_t address = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
#if defined(SP_CUDA_KERNEL_MUTANT) && SP_CUDA_KERNEL_MUTANT == 1
    const unsigned mask = (1u << (8 * sizeof(T))) - 1u;  // planted bug: the mask is not moved to the element
#else
    const unsigned mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
#endif
    unsigned int seen = racy_load(word), assumed;
    do {
      assumed = seen;
      const T old_value = bit_cast_hd<T>(static_cast<Bits>((assumed & mask) >> shift));
      const unsigned new_bits = static_cast<unsigned>(bit_cast_hd<Bits>(combine(old_value))) << shift;
      seen = atomic_cas(word, assumed, (assumed & ~mask) | new_bits);
    } while (seen != assumed);
  }
}

#ifndef __CUDACC__
// The host model of float32 atomicAdd on global memory: round-to-nearest,
// subnormal operands and results flushed to zero with their sign.
inline float flush_subnormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline void ftz_atomic_add_f32(float* addr, float v) {
  std::atomic_ref<float> a(*addr);
  float seen = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(seen, flush_subnormal(flush_subnormal(seen) + flush_subnormal(v)))) {
  }
}
#endif

// The hardware's atomicAdd (float32: flushes subnormals, see above).
template <DType D>
SP_HD void native_atomic_add(typename Elem<D>::T* addr, typename Elem<D>::T v) {
  using T = typename Elem<D>::T;
#if defined(__CUDA_ARCH__)
  if constexpr (D == DType::Int64)
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  else
    atomicAdd(addr, v);
#elif defined(__CUDACC__)
  SP_DEVICE_ONLY_ON_HOST();
  (void)addr, (void)v;
#else
  if constexpr (D == DType::Float32)
    ftz_atomic_add_f32(addr, v);
  else if constexpr (D == DType::Int64)
    std::atomic_ref<unsigned long long>(*reinterpret_cast<unsigned long long*>(addr))
        .fetch_add(static_cast<unsigned long long>(v));
  else if constexpr (D == DType::Int32 || D == DType::Float64)
    std::atomic_ref<T>(*addr).fetch_add(v);
  else
    atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
#endif
}

// float32 adds whose operand alone guarantees that the hardware's atomicAdd
// (which flushes subnormal operands and results) stores the IEEE sum:
// |v| >= 2^-101. Proof (README.md, "Float32 adds"): for such v and any old
// value o, o + v is 0 or at least 2^-125 in magnitude (never subnormal), and
// a subnormal o is below half of v's gap to its neighbours, so v + o rounds
// to v, which is what the flushed o gives. The decision reads only v: no
// race with other threads' adds.
constexpr float kF32NativeAddMin = 0x1p-101f;

template <DType D>
SP_HD void atomic_add(typename Elem<D>::T* addr, typename Elem<D>::T v) {
  using T = typename Elem<D>::T;
  if constexpr (D == DType::Float32) {
#if defined(SP_CUDA_KERNEL_MUTANT) && SP_CUDA_KERNEL_MUTANT == 2
    native_atomic_add<D>(addr, v);  // planted bug: every float32 add on the flushing hardware atomic
#else
    // The common case: one compare, then the hardware atomic. Otherwise
    // (|v| < 2^-101, zero, NaN) a CAS loop computing old + v in IEEE
    // arithmetic (nvcc's default -ftz=false; never build with fast math).
    if (v >= kF32NativeAddMin || v <= -kF32NativeAddMin)
      native_atomic_add<D>(addr, v);
    else
      atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
#endif
  } else if constexpr (D == DType::Int32 || D == DType::Int64 || D == DType::Float64) {
    native_atomic_add<D>(addr, v);
  } else if constexpr (D == DType::Float16 || D == DType::BFloat16) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    native_atomic_add<D>(addr, v);
#else
    atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
#endif
  } else {
    atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
  }
}

// *addr = max_of(*addr, v) / min_of(*addr, v) (elem.h: NaN propagates).
// The order of the writers does not matter, so these are atomics in both
// modes' sense: int32 and int64 use the hardware's atomicMax / atomicMin
// (signed: int and long long), everything else the CAS loop on the bits.
template <DType D>
SP_HD void atomic_max_of(typename Elem<D>::T* addr, typename Elem<D>::T v) {
  using T = typename Elem<D>::T;
#if defined(__CUDA_ARCH__)
  if constexpr (D == DType::Int32) {
    atomicMax(addr, v);
    return;
  } else if constexpr (D == DType::Int64) {
    atomicMax(reinterpret_cast<long long*>(addr), static_cast<long long>(v));
    return;
  }
#endif
  atomic_combine<D>(addr, [v](T old) { return max_of(old, v); });
}
template <DType D>
SP_HD void atomic_min_of(typename Elem<D>::T* addr, typename Elem<D>::T v) {
  using T = typename Elem<D>::T;
#if defined(__CUDA_ARCH__)
  if constexpr (D == DType::Int32) {
    atomicMin(addr, v);
    return;
  } else if constexpr (D == DType::Int64) {
    atomicMin(reinterpret_cast<long long*>(addr), static_cast<long long>(v));
    return;
  }
#endif
  atomic_combine<D>(addr, [v](T old) { return min_of(old, v); });
}

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
