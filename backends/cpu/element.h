// element.h — per-dtype element arithmetic for the cpu kernels.
//
// Each traits type says how an element is stored (`Storage`), in which type
// a reduction accumulates (`Acc`), and how one correctly rounded add or
// multiply is done. 16-bit floats accumulate in float32: one add of two
// half/bfloat16 values done in float and rounded once to 16 bits equals the
// correctly rounded 16-bit add (float's 24 bits >= 2p+2, so the double
// rounding is innocuous); a chain of adds kept in float and rounded once at
// the end is "done more accurately", which reference/float_bounds.h allows.
// Integers wrap (computed in unsigned arithmetic, never signed overflow);
// bool adds as "or" and multiplies as "and". Overwrites copy raw bits.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "reference/dtype.h"

namespace sp::cpu {

// IEEE binary16 <-> float, round to nearest even, NaN kept quiet.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float mag = static_cast<float>(mant) * 0x1p-24f;  // exact: subnormal halves fit float
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(mag));
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)  // inf stays inf; NaN keeps its top payload bits, quieted
    return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u | ((x >> 13) & 0x3ffu) : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (x < 0x38800000u) {
    // Below 2^-14 (half subnormal): adding 0.5 puts the 2^-24 quantum at
    // float's last bit, so the FPU's own round-to-nearest-even does it.
    const float shifted = std::bit_cast<float>(x) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  const uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round half to even
  return static_cast<uint16_t>(sign | (x >> 13));
}

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Integral dtypes (not bool): wrap-around add and multiply.
template <class S>
struct IntElem {
  using Storage = S;
  using Acc = S;
  using Wide = std::conditional_t<sizeof(S) <= 4, uint32_t, uint64_t>;
  static constexpr bool kFloat16Like = false;
  static Acc load(S s) { return s; }
  static S store(Acc a) { return a; }
  static Acc add(Acc a, Acc b) { return static_cast<S>(static_cast<Wide>(a) + static_cast<Wide>(b)); }
  static Acc mul(Acc a, Acc b) { return static_cast<S>(static_cast<Wide>(a) * static_cast<Wide>(b)); }
  static S add_once(S a, S b) { return add(a, b); }
  static S mul_once(S a, S b) { return mul(a, b); }
};

struct BoolElem {
  using Storage = uint8_t;
  using Acc = uint8_t;
  static constexpr bool kFloat16Like = false;
  static Acc load(uint8_t s) { return s != 0; }
  static uint8_t store(Acc a) { return a; }
  static Acc add(Acc a, Acc b) { return a | b; }
  static Acc mul(Acc a, Acc b) { return a & b; }
  static uint8_t add_once(uint8_t a, uint8_t b) { return (a != 0) | (b != 0); }
  static uint8_t mul_once(uint8_t a, uint8_t b) { return (a != 0) & (b != 0); }
};

template <class F>
struct FloatElem {
  using Storage = F;
  using Acc = F;
  static constexpr bool kFloat16Like = false;
  static Acc load(F s) { return s; }
  static F store(Acc a) { return a; }
  static Acc add(Acc a, Acc b) { return a + b; }
  static Acc mul(Acc a, Acc b) { return a * b; }
  static F add_once(F a, F b) { return a + b; }
  static F mul_once(F a, F b) { return a * b; }
};

// half / bfloat16, accumulating in float.
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float), uint16_t (*FromDouble)(double)>
struct Float16Elem {
  using Storage = uint16_t;
  using Acc = float;
  static constexpr bool kFloat16Like = true;
  static Acc load(uint16_t s) { return ToFloat(s); }
  static uint16_t store(Acc a) { return FromFloat(a); }
  static Acc add(Acc a, Acc b) { return a + b; }
  static Acc mul(Acc a, Acc b) { return a * b; }
  static uint16_t add_once(uint16_t a, uint16_t b) { return FromFloat(ToFloat(a) + ToFloat(b)); }
  static uint16_t mul_once(uint16_t a, uint16_t b) {
    // The product of two 16-bit significands is exact in double; it is also
    // exact in float unless it falls below float's normal range (bfloat16
    // only), where rounding via float would round twice.
    const double exact = static_cast<double>(ToFloat(a)) * static_cast<double>(ToFloat(b));
    if (std::fabs(exact) < 0x1p-126 && exact != 0.0) return FromDouble(exact);
    return FromFloat(static_cast<float>(exact));
  }
};
using HalfElem = Float16Elem<half_to_float, float_to_half, double_to_half_bits>;
using BF16Elem = Float16Elem<bf16_to_float, float_to_bf16, double_to_bf16_bits>;

// Calls fn(ElemTraits{}) for dtype t.
template <class Fn>
decltype(auto) dispatch_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::Bool:
      return fn(BoolElem{});
    case DType::UInt8:
      return fn(IntElem<uint8_t>{});
    case DType::Int8:
      return fn(IntElem<int8_t>{});
    case DType::Int16:
      return fn(IntElem<int16_t>{});
    case DType::Int32:
      return fn(IntElem<int32_t>{});
    case DType::Int64:
      return fn(IntElem<int64_t>{});
    case DType::Float16:
      return fn(HalfElem{});
    case DType::BFloat16:
      return fn(BF16Elem{});
    case DType::Float32:
      return fn(FloatElem<float>{});
    case DType::Float64:
      return fn(FloatElem<double>{});
    case DType::UInt16:
      return fn(IntElem<uint16_t>{});
    case DType::UInt32:
      return fn(IntElem<uint32_t>{});
    case DType::UInt64:
      return fn(IntElem<uint64_t>{});
  }
  return fn(FloatElem<float>{});
}

}  // namespace sp::cpu
