// elem.h — element arithmetic per dtype, host/device (see platform.h).
//
// Integral kinds wrap (two's complement, computed unsigned); bool adds as
// `or` and multiplies as `and`; half kinds compute in float and round once
// (a product of two halves is exact in float).
//
// The reductions of scatter_reduce / index_reduce / ONNX max-min on top:
// max_of / min_of keep a NaN from either side (a tie keeps the old value);
// mean_of divides a sum by its number of terms, rounded once (floats),
// floor division (integers).
#pragma once

#include <type_traits>

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
struct Elem<DType::UInt16> : WrappingInt<uint16_t> {};
template <>
struct Elem<DType::UInt32> : WrappingInt<uint32_t> {};
template <>
struct Elem<DType::UInt64> : WrappingInt<uint64_t> {};
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

// The value an element compares by: half kinds as float, the rest as they are.
template <class T>
SP_HD auto compare_value(T v) {
  if constexpr (std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>)
    return to_float(v);
  else
    return v;
}
template <class T>
SP_HD bool is_nan_elem(T v) {
  const auto x = compare_value(v);
  return x != x;  // false for every integral kind
}
template <class T>
SP_HD T max_of(T old, T v) {
  if (is_nan_elem(old)) return old;  // NaN propagates, whichever side it is on
  if (is_nan_elem(v)) return v;
  return compare_value(v) > compare_value(old) ? v : old;
}
template <class T>
SP_HD T min_of(T old, T v) {
  if (is_nan_elem(old)) return old;
  if (is_nan_elem(v)) return v;
  return compare_value(v) < compare_value(old) ? v : old;
}

// mean: sum / count. float32 / float64 via double, one correctly rounded
// division (double rounding to float32 is innocuous: 53 >= 2 * 24 + 2);
// half kinds via float (24 >= 2 * 11 + 2; count exact up to 2^24 terms);
// integers floor (of the sum as the dtype holds it: wrapped).
template <DType D>
SP_HD typename Elem<D>::T mean_of(typename Elem<D>::T sum, int64_t count) {
  using T = typename Elem<D>::T;
  if constexpr (D == DType::Float16) {
    return half_from_float(to_float(sum) / static_cast<float>(count));
  } else if constexpr (D == DType::BFloat16) {
    return bf16_from_float(to_float(sum) / static_cast<float>(count));
  } else if constexpr (D == DType::Float32 || D == DType::Float64) {
    return static_cast<T>(static_cast<double>(sum) / static_cast<double>(count));
  } else if constexpr (D == DType::UInt64) {  // may not fit int64; never negative
    return static_cast<T>(sum / static_cast<unsigned long long>(count));
  } else {
    const int64_t n = static_cast<int64_t>(sum);
    int64_t q = n / count;
    if (n % count != 0 && n < 0) --q;
    return static_cast<T>(q);
  }
}

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
