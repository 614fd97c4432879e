#include "reference/dtype.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace sp {
namespace {

struct Info {
  std::string_view name;
  size_t size;
  bool floating;
};

const Info& info(DType t) {
  static const Info kInfo[kNumDTypes] = {
      {"bool", 1, false},   {"uint8", 1, false},  {"int8", 1, false},    {"int16", 2, false},  {"int32", 4, false},
      {"int64", 8, false},  {"float16", 2, true}, {"bfloat16", 2, true}, {"float32", 4, true}, {"float64", 8, true},
      {"uint16", 2, false}, {"uint32", 4, false}, {"uint64", 8, false},
  };
  return kInfo[static_cast<int>(t)];
}

// A 16-bit binary floating format with `ebits` exponent and `mbits`
// fraction bits (half: 5/10, bfloat16: 8/7).
struct Small {
  int ebits;
  int mbits;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  uint16_t exp_mask() const { return static_cast<uint16_t>(((1u << ebits) - 1) << mbits); }
};
constexpr Small kHalf{5, 10};
constexpr Small kBF16{8, 7};

uint16_t double_to_small(double d, Small fmt) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (std::isnan(d)) {
    uint64_t db;
    std::memcpy(&db, &d, 8);
    const uint64_t payload = (db >> (52 - fmt.mbits)) & ((1u << fmt.mbits) - 1);
    const uint16_t quiet = static_cast<uint16_t>(1u << (fmt.mbits - 1));
    return static_cast<uint16_t>(sign | fmt.exp_mask() | quiet | payload);
  }
  if (std::isinf(d)) return static_cast<uint16_t>(sign | fmt.exp_mask());
  const double a = std::fabs(d);
  if (a == 0.0) return sign;
  int e = 0;
  std::frexp(a, &e);
  int exponent = e - 1;  // a = 1.f * 2^exponent
  const int min_normal_exp = 1 - fmt.bias();
  if (exponent < min_normal_exp) {
    // Subnormal: quantum 2^(min_normal_exp - mbits). nearbyint rounds to
    // nearest-even; a result of 2^mbits is the smallest normal, whose bit
    // pattern is that same integer.
    const double q = std::nearbyint(std::ldexp(a, fmt.mbits - min_normal_exp));
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
  }
  double q = std::nearbyint(std::ldexp(a, fmt.mbits - exponent));
  if (q >= std::ldexp(1.0, fmt.mbits + 1)) {
    q = std::ldexp(1.0, fmt.mbits);
    ++exponent;
  }
  if (exponent > fmt.bias()) return static_cast<uint16_t>(sign | fmt.exp_mask());
  const uint16_t frac = static_cast<uint16_t>(static_cast<uint32_t>(q) - (1u << fmt.mbits));
  return static_cast<uint16_t>(sign | ((exponent + fmt.bias()) << fmt.mbits) | frac);
}

double small_to_double(uint16_t bits, Small fmt) {
  const bool neg = bits & 0x8000;
  const int exp_field = (bits & fmt.exp_mask()) >> fmt.mbits;
  const uint32_t frac = bits & ((1u << fmt.mbits) - 1);
  double mag;
  if (exp_field == (1 << fmt.ebits) - 1) {
    if (frac == 0) {
      mag = std::numeric_limits<double>::infinity();
    } else {
      // Keep the payload: place the fraction at the top of a double NaN.
      uint64_t db = 0x7ff0000000000000ull | (static_cast<uint64_t>(frac) << (52 - fmt.mbits));
      std::memcpy(&mag, &db, 8);
    }
  } else if (exp_field == 0) {
    mag = std::ldexp(static_cast<double>(frac), 1 - fmt.bias() - fmt.mbits);
  } else {
    mag = std::ldexp(static_cast<double>(frac + (1u << fmt.mbits)), exp_field - fmt.bias() - fmt.mbits);
  }
  return neg ? -mag : mag;
}

int64_t wrap_to(DType t, uint64_t u) {
  switch (t) {
    case DType::Bool:
      return u != 0 ? 1 : 0;
    case DType::UInt8:
      return static_cast<uint8_t>(u);
    case DType::Int8:
      return static_cast<int8_t>(u);
    case DType::Int16:
      return static_cast<int16_t>(u);
    case DType::UInt16:
      return static_cast<uint16_t>(u);
    case DType::Int32:
      return static_cast<int32_t>(u);
    case DType::UInt32:
      return static_cast<uint32_t>(u);
    default:
      return static_cast<int64_t>(u);  // int64, and uint64's bit pattern
  }
}

}  // namespace

size_t dtype_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }
bool is_floating(DType t) { return info(t).floating; }
bool is_integral(DType t) { return !info(t).floating; }
bool is_unsigned_int(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

bool int_less(DType t, const Value& a, const Value& b) {
  return t == DType::UInt64 ? static_cast<uint64_t>(a.i) < static_cast<uint64_t>(b.i) : a.i < b.i;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

int64_t dtype_int_min(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
      return 0;
    case DType::Int8:
      return INT8_MIN;
    case DType::Int16:
      return INT16_MIN;
    case DType::Int32:
      return INT32_MIN;
    default:
      return INT64_MIN;
  }
}
int64_t dtype_int_max(DType t) {
  switch (t) {
    case DType::Bool:
      return 1;
    case DType::UInt8:
      return UINT8_MAX;
    case DType::Int8:
      return INT8_MAX;
    case DType::Int16:
      return INT16_MAX;
    case DType::Int32:
      return INT32_MAX;
    case DType::UInt16:
      return UINT16_MAX;
    case DType::UInt32:
      return UINT32_MAX;
    case DType::UInt64:
      return -1;  // 2^64-1's bit pattern (dtype.h)
    default:
      return INT64_MAX;
  }
}
uint64_t dtype_uint_max(DType t) { return static_cast<uint64_t>(dtype_int_max(t)); }

double dtype_max(DType t) {
  switch (t) {
    case DType::Float16:
      return 65504.0;
    case DType::BFloat16:
      return small_to_double(0x7f7f, kBF16);
    case DType::Float32:
      return std::numeric_limits<float>::max();
    case DType::Float64:
      return std::numeric_limits<double>::max();
    case DType::UInt64:
      return static_cast<double>(UINT64_MAX);  // 2^64 once rounded
    default:
      return static_cast<double>(dtype_int_max(t));
  }
}
double dtype_lowest(DType t) { return is_floating(t) ? -dtype_max(t) : static_cast<double>(dtype_int_min(t)); }

double unit_roundoff(DType t) {
  switch (t) {
    case DType::Float16:
      return std::ldexp(1.0, -11);
    case DType::BFloat16:
      return std::ldexp(1.0, -8);
    case DType::Float32:
      return std::ldexp(1.0, -24);
    case DType::Float64:
      return std::ldexp(1.0, -53);
    default:
      return 0.0;
  }
}

uint16_t double_to_half_bits(double d) { return double_to_small(d, kHalf); }
uint16_t double_to_bf16_bits(double d) { return double_to_small(d, kBF16); }
uint16_t float_to_half_bits(float f) { return double_to_small(f, kHalf); }  // float->double is exact
float half_bits_to_float(uint16_t h) { return static_cast<float>(small_to_double(h, kHalf)); }
uint16_t float_to_bf16_bits(float f) { return double_to_small(f, kBF16); }
float bf16_bits_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

Value value_from_bits(DType t, uint64_t bits) {
  switch (t) {
    case DType::Float16:
      return Value::of_float(small_to_double(static_cast<uint16_t>(bits), kHalf));
    case DType::BFloat16:
      return Value::of_float(small_to_double(static_cast<uint16_t>(bits), kBF16));
    case DType::Float32: {
      float f;
      uint32_t u = static_cast<uint32_t>(bits);
      std::memcpy(&f, &u, 4);
      return Value::of_float(f);
    }
    case DType::Float64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return Value::of_float(d);
    }
    case DType::UInt64:
      return Value::of_uint(bits);
    default:
      return Value::of_int(wrap_to(t, bits));
  }
}

uint64_t bits_from_value(DType t, Value v) {
  if (is_floating(t)) {
    const double d = v.as_double();
    switch (t) {
      case DType::Float16:
        return double_to_half_bits(d);
      case DType::BFloat16:
        return double_to_bf16_bits(d);
      case DType::Float32: {
        float f = static_cast<float>(d);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
      }
      default: {
        uint64_t u;
        std::memcpy(&u, &d, 8);
        return u;
      }
    }
  }
  if (t == DType::Bool) return v.is_float ? (v.f != 0.0 ? 1 : 0) : (v.i != 0 ? 1 : 0);
  // A float above int64's range reaches uint64 only (it is in range there).
  const int64_t i = !v.is_float                           ? v.i
                    : t == DType::UInt64 && v.f >= 0x1p63 ? static_cast<int64_t>(static_cast<uint64_t>(std::trunc(v.f)))
                                                          : static_cast<int64_t>(std::trunc(v.f));
  const uint64_t mask = dtype_size(t) == 8 ? ~0ull : ((1ull << (8 * dtype_size(t))) - 1);
  return static_cast<uint64_t>(i) & mask;
}

uint64_t load_bits(DType t, const std::byte* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, dtype_size(t));
  return bits;
}
void store_bits(DType t, std::byte* p, uint64_t bits) { std::memcpy(p, &bits, dtype_size(t)); }

bool bits_is_nan(DType t, uint64_t bits) { return is_floating(t) && std::isnan(value_from_bits(t, bits).f); }

std::string format_value(DType t, uint64_t bits) {
  const Value v = value_from_bits(t, bits);
  if (!v.is_float) {
    if (t == DType::Bool) return v.i ? "true" : "false";
    return v.is_unsigned ? std::to_string(static_cast<uint64_t>(v.i)) : std::to_string(v.i);
  }
  if (std::isnan(v.f)) return std::signbit(v.f) ? "-nan" : "nan";
  if (std::isinf(v.f)) return v.f > 0 ? "inf" : "-inf";
  if (v.f == 0.0) return std::signbit(v.f) ? "-0.0" : "0.0";
  char buf[64];
  std::to_chars_result r = t == DType::Float64 ? std::to_chars(buf, buf + sizeof buf, v.f)
                                               : std::to_chars(buf, buf + sizeof buf, static_cast<float>(v.f));
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // keep floats recognisable: "1.0", not "1"
  return s;
}

std::string format_bits(DType t, uint64_t bits) {
  static const char* kHex = "0123456789abcdef";
  std::string s = "0x";
  for (int nib = static_cast<int>(dtype_size(t)) * 2 - 1; nib >= 0; --nib) s += kHex[(bits >> (4 * nib)) & 0xf];
  return s;
}

}  // namespace sp
