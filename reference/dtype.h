// dtype.h — the element types scatterproof models and their exact conversions.
//
// Ten dtypes: bool, uint8, int8, int16, int32, int64, float16, bfloat16,
// float32, float64. Every element value of every dtype is representable as a
// `Value` (int64 for the integral kinds, double for the floating kinds), so
// the reference computes in `Value` and converts back with one rounding.
// float16/bfloat16 conversions are exact where representable and otherwise
// round to nearest, ties to even; NaN payloads are preserved where the
// target format can hold them.
//
// Thread-safety: everything here is pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sp {

enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};
inline constexpr int kNumDTypes = 10;
inline constexpr DType kAllDTypes[kNumDTypes] = {DType::Bool,    DType::UInt8,  DType::Int8,    DType::Int16,
                                                 DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                                                 DType::Float32, DType::Float64};

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);  // "bool", "uint8", ..., "bfloat16", "float64"
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType t);
bool is_integral(DType t);  // bool counts as integral
// Smallest / largest finite value (integral kinds exactly; floats as double).
double dtype_lowest(DType t);
double dtype_max(DType t);
int64_t dtype_int_min(DType t);  // REQUIRES: is_integral(t)
int64_t dtype_int_max(DType t);  // REQUIRES: is_integral(t)
// Unit roundoff u = 2^-p for the floating kinds (p = significand bits incl.
// the implicit one); 0 for integral kinds.
double unit_roundoff(DType t);

// IEEE half and bfloat16 <-> float conversions, round-to-nearest-even.
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);
uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(uint16_t b);
// double -> half/bf16 with a single rounding (not via float, which could
// round twice).
uint16_t double_to_half_bits(double d);
uint16_t double_to_bf16_bits(double d);

// A value of any dtype. Integral dtypes use `i` (bool is 0/1), floating
// dtypes use `f`.
struct Value {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;
  static Value of_int(int64_t v) { return Value{false, v, 0.0}; }
  static Value of_float(double v) { return Value{true, 0, v}; }
  double as_double() const { return is_float ? f : static_cast<double>(i); }
};

// Raw bits <-> Value for dtype `t` (bits are zero-extended to 64).
Value value_from_bits(DType t, uint64_t bits);
// Converts `v` to dtype `t` and returns the bits. Integral targets wrap
// (two's complement) from an integral Value; a float Value converted to an
// integral dtype truncates toward zero (REQUIRES: finite and in range of
// int64). Float targets round to nearest even.
uint64_t bits_from_value(DType t, Value v);
// Loads/stores one element at `p` (little-endian host).
uint64_t load_bits(DType t, const std::byte* p);
void store_bits(DType t, std::byte* p, uint64_t bits);
// Is this bit pattern a NaN of floating dtype t?
bool bits_is_nan(DType t, uint64_t bits);
// Human form of an element ("1.5", "-0.0", "nan", "inf", "-3").
std::string format_value(DType t, uint64_t bits);
std::string format_bits(DType t, uint64_t bits);  // "0x3fc00000"

}  // namespace sp
