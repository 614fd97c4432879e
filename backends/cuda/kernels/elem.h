// elem.h — element arithmetic per dtype, host/device (see platform.h).
//
// Integral kinds wrap (two's complement, computed unsigned); bool adds as
// `or` and multiplies as `and`; half kinds compute in float and round once
// (a product of two halves is exact in float).
#pragma once

#include "backends/cuda/kernels/platform.h"
#include "reference/dtype.h"

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

template <DType D>
struct Elem;
template <>
struct Elem<DType::Bool> {
  using T = uint8_t;
  SP_HD static T add(T a, T b) { return (a | b) ? 1 : 0; }
  SP_HD static T mul(T a, T b) { return (a & b) ? 1 : 0; }
};
template <class I>
struct WrappingInt {
  using T = I;
  SP_HD static T add(T a, T b) {
    return static_cast<T>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
  }
  SP_HD static T mul(T a, T b) {
    return static_cast<T>(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
  }
};
template <>
struct Elem<DType::UInt8> : WrappingInt<uint8_t> {};
template <>
struct Elem<DType::Int8> : WrappingInt<int8_t> {};
template <>
struct Elem<DType::Int16> : WrappingInt<int16_t> {};
template <>
struct Elem<DType::Int32> : WrappingInt<int32_t> {};
template <>
struct Elem<DType::Int64> : WrappingInt<int64_t> {};
template <>
struct Elem<DType::Float16> {
  using T = half_t;
  SP_HD static T add(T a, T b) { return half_from_float(to_float(a) + to_float(b)); }
  SP_HD static T mul(T a, T b) { return half_from_float(to_float(a) * to_float(b)); }
};
template <>
struct Elem<DType::BFloat16> {
  using T = bf16_t;
  SP_HD static T add(T a, T b) { return bf16_from_float(to_float(a) + to_float(b)); }
  SP_HD static T mul(T a, T b) { return bf16_from_float(to_float(a) * to_float(b)); }
};
template <class F>
struct PlainFloat {
  using T = F;
  SP_HD static T add(T a, T b) { return a + b; }
  SP_HD static T mul(T a, T b) { return a * b; }
};
template <>
struct Elem<DType::Float32> : PlainFloat<float> {};
template <>
struct Elem<DType::Float64> : PlainFloat<double> {};

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
