// dtype.h — the element types scatterproof models and their exact conversions.
//
// Thirteen dtypes: bool, uint8, int8, int16, int32, int64, float16,
// bfloat16, float32, float64, uint16, uint32, uint64 (the unsigned 16/32/64
// kinds come last so that the older ten keep their numbers: the plugin ABI's
// SP_DTYPE_* and anything else that stores a DType's value). Every element
// value of every dtype is representable as a `Value` (int64 for the integral
// kinds, double for the floating kinds; a uint64 as its bit pattern, see
// Value), so the reference computes in `Value` and converts back with one
// rounding.
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
  UInt16,
  UInt32,
  UInt64,
};
inline constexpr int kNumDTypes = 13;
inline constexpr DType kAllDTypes[kNumDTypes] = {
    DType::Bool,     DType::UInt8,   DType::Int8,    DType::Int16,  DType::Int32,  DType::Int64, DType::Float16,
    DType::BFloat16, DType::Float32, DType::Float64, DType::UInt16, DType::UInt32, DType::UInt64};

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);  // "bool", "uint8", ..., "bfloat16", "float64"
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType t);
bool is_integral(DType t);      // bool counts as integral
bool is_unsigned_int(DType t);  // uint8, uint16, uint32, uint64 (not bool)
// Smallest / largest finite value (integral kinds exactly; floats as double).
double dtype_lowest(DType t);
double dtype_max(DType t);
int64_t dtype_int_min(DType t);  // REQUIRES: is_integral(t)
// REQUIRES: is_integral(t). uint64's maximum 2^64-1 does not fit: it comes
// back as its bit pattern (-1), Value's convention for uint64; compare with
// int_less, or use dtype_uint_max.
int64_t dtype_int_max(DType t);
uint64_t dtype_uint_max(DType t);  // REQUIRES: is_integral(t) and not signed: the maximum, exactly
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
// dtypes use `f`. A uint64 value uses `i` as its bit pattern (values above
// 2^63-1 read negative there) with `is_unsigned` set: sums and products wrap
// alike either way; comparisons go through int_less and conversions to
// double through as_double, which read it unsigned.
struct Value {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;
  bool is_unsigned = false;  // `i` is a uint64's bit pattern
  static Value of_int(int64_t v) { return Value{false, v, 0.0}; }
  static Value of_uint(uint64_t v) { return Value{false, static_cast<int64_t>(v), 0.0, true}; }
  static Value of_float(double v) { return Value{true, 0, v}; }
  double as_double() const {
    return is_float ? f : is_unsigned ? static_cast<double>(static_cast<uint64_t>(i)) : static_cast<double>(i);
  }
};
// a < b for two integral values of dtype t (unsigned for uint64).
bool int_less(DType t, const Value& a, const Value& b);

// Raw bits <-> Value for dtype `t` (bits are zero-extended to 64).
Value value_from_bits(DType t, uint64_t bits);
// Converts `v` to dtype `t` and returns the bits. Integral targets wrap
// (two's complement) from an integral Value; a float Value converted to an
// integral dtype truncates toward zero (REQUIRES: finite and in range of
// int64, or of uint64 for a uint64 target). Float targets round to nearest
// even.
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
