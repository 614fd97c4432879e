#include "fuzz/case_gen.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "harness/layouts.h"
#include "reference/dialect_mindspore.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::fuzz {

Choices::Choices(uint64_t seed, std::vector<uint32_t> prefix)
    : source_(std::move(prefix)),
      extend_randomly_(true),
      rng_(static_cast<std::mt19937::result_type>(seed ^ (seed >> 32))) {}

Choices Choices::replay(std::vector<uint32_t> sequence) {
  Choices c;
  c.source_ = std::move(sequence);
  return c;
}

uint32_t Choices::next_raw(uint32_t n) {
  uint32_t raw = 0;
  if (position_ < source_.size()) {
    raw = source_[position_++];
  } else if (extend_randomly_) {
    // Record the reduced value, not the raw draw: halving a recorded choice
    // then moves the decision toward its simplest option.
    raw = n <= 1 ? 0 : static_cast<uint32_t>(rng_() % n);
  }
  consumed_.push_back(raw);
  return raw;
}

uint32_t Choices::below(uint32_t n) { return n <= 1 ? (next_raw(n), 0u) : next_raw(n) % n; }
bool Choices::chance(uint32_t percent) { return below(100) >= 100 - percent; }
int64_t Choices::between(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(below(span > 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(span)));
}

namespace {

// Dtypes in order of simplicity: choice 0 is int64.
constexpr std::array<DType, kNumDTypes> kDTypeOrder = {DType::Int64,   DType::Float32,  DType::Float64, DType::Int32,
                                                       DType::Float16, DType::BFloat16, DType::Int16,   DType::Int8,
                                                       DType::UInt8,   DType::Bool};

// The element limit of the call being generated: kMaxGeneratedElements, or
// kMaxLargeElements in the large tier (set by generate_call_for).
thread_local int64_t t_max_elements = kMaxGeneratedElements;
thread_local bool t_large = false;

// Mostly 1–3, sometimes 0 (a scalar), up to 9 (over MindSpore's 8) and
// rarely up to kMaxGeneratedRank.
int64_t pick_rank(Choices& c) {
  const uint32_t r = c.below(20);
  if (r < 8) return 1;
  if (r < 14) return 2;
  if (r < 17) return 3;
  if (r == 17) return 0;
  if (r == 18) return 4;
  return c.chance(40) ? c.between(10, kMaxGeneratedRank) : c.between(5, 9);
}

int64_t pick_size(Choices& c) {
  static constexpr std::array<int64_t, 20> kSizes = {1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 0, 1, 6, 7};
  return kSizes[c.below(kSizes.size())];
}

// A shape of the large tier: about kLargeMinElements..kMaxLargeElements
// elements in up to three dims (inner dims at and around the cpu kernels'
// row width 16 and a CUDA block of 256), any further dims 1.
Shape large_shape(Choices& c, int64_t rank) {
  static constexpr std::array<int64_t, 9> kInner = {1, 2, 3, 15, 16, 17, 255, 256, 257};
  Shape s(static_cast<size_t>(rank), 1);
  const int64_t n = c.between(kLargeMinElements, kMaxLargeElements);
  int64_t inner = 1;
  for (size_t d = 1; d < s.size() && d < 3; ++d) {
    s[d] = kInner[c.below(kInner.size())];
    inner *= s[d];
  }
  s[0] = std::max<int64_t>(1, n / inner);
  if (s.size() > 1 && c.chance(50)) std::swap(s[0], s[s.size() - 1 - c.below(static_cast<uint32_t>(s.size() - 1))]);
  return s;
}

// Dims past the fourth are mostly 1, so high ranks stay small.
Shape pick_shape(Choices& c, int64_t rank) {
  Shape s(static_cast<size_t>(rank));
  for (size_t d = 0; d < s.size(); ++d) s[d] = d >= 4 && !c.chance(25) ? 1 : pick_size(c);
  return s;
}

// Shrinks the largest dims until numel <= the call's element limit.
void clamp_numel(Shape& s) {
  while (checked_numel(s) > t_max_elements) {
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<int64_t>(1, *it / 2);
  }
}

// The shape of a call's data operand: pick_shape clamped, or in the large
// tier (rank 1 and up: the builders treat rank 0 apart) large_shape.
Shape data_shape_of_rank(Choices& c, int64_t rank) {
  if (t_large && rank > 0) return large_shape(c, rank);
  Shape s = pick_shape(c, rank);
  clamp_numel(s);
  return s;
}

// A size for an operand bounded by `limit`: mostly at the limit or below.
int64_t size_upto(Choices& c, int64_t limit) {
  const uint32_t r = c.below(12);
  if (r == 0) return std::min<int64_t>(1, limit);
  if (r <= 4) return limit;
  if (r == 11) return 0;
  return c.between(0, limit);
}

int64_t zigzag(uint32_t v) { return (v & 1) ? static_cast<int64_t>(v / 2 + 1) : -static_cast<int64_t>(v / 2); }

uint64_t float_bits(DType t, double v) { return bits_from_value(t, Value::of_float(v)); }

// NaN with a payload, ±inf, -0.0, extremes and the smallest subnormal for
// floats; min, max and -1 for integers.
uint64_t special_bits(Choices& c, DType t) {
  if (!is_floating(t)) {
    switch (c.below(4)) {
      case 0:
        return bits_from_value(t, Value::of_int(dtype_int_max(t)));
      case 1:
        return bits_from_value(t, Value::of_int(dtype_int_min(t)));
      case 2:
        return bits_from_value(t, Value::of_int(t == DType::Bool ? 1 : -1));
      default:
        return bits_from_value(t, Value::of_int(1));
    }
  }
  switch (c.below(9)) {
    case 0:
      return float_bits(t, std::numeric_limits<double>::quiet_NaN());
    case 1:  // a quiet NaN with payload 1: its bits must survive untouched
      switch (t) {
        case DType::Float16:
          return 0x7e01;
        case DType::BFloat16:
          return 0x7fc1;
        case DType::Float32:
          return 0x7fc00001;
        default:
          return 0x7ff8000000000001ull;
      }
    case 2:
      return float_bits(t, std::numeric_limits<double>::infinity());
    case 3:
      return float_bits(t, -std::numeric_limits<double>::infinity());
    case 4:
      return float_bits(t, -0.0);
    case 5:
      return float_bits(t, dtype_max(t));
    case 6:
      return float_bits(t, dtype_lowest(t));
    case 7:
      return 1;  // smallest positive subnormal
    default:
      return float_bits(t, 0.1);
  }
}

// Float values at rounding edges of `t`: 1 with half an ulp of 1 and
// a smallest subnormal (their sum ties when rounded through a wider type
// and is above the tie exactly: double rounding), the largest subnormal,
// negative subnormals, and for float64 values no float32 holds.
uint64_t rounding_edge_bits(Choices& c, DType t) {
  int ulp_exp = -52;  // log2 of the ulp of 1
  switch (t) {
    case DType::Float16:
      ulp_exp = -10;
      break;
    case DType::BFloat16:
      ulp_exp = -7;
      break;
    case DType::Float32:
      ulp_exp = -23;
      break;
    default:
      break;
  }
  const double half_ulp = std::ldexp(1.0, ulp_exp - 1);
  const int min_normal_exp = t == DType::Float16 ? -14 : t == DType::Float64 ? -1022 : -126;
  const uint64_t smallest_subnormal = 1;
  const uint64_t sign = uint64_t{1} << (8 * dtype_size(t) - 1);
  switch (c.below(10)) {
    case 0:
      return float_bits(t, 1.0);
    case 1:
      return float_bits(t, half_ulp);
    case 2:
      return smallest_subnormal;
    case 3:
      return sign | smallest_subnormal;
    case 4:  // the largest subnormal: every mantissa bit set, exponent 0
      return float_bits(t, std::ldexp(1.0, min_normal_exp)) - 1;
    case 5:
      return float_bits(t, 3 * half_ulp);
    case 6:
      return float_bits(t, -1.0);
    case 7:  // 2^(mantissa bits + 1): adding 1 ties
      return float_bits(t, std::ldexp(1.0, -ulp_exp + 1));
    default:
      if (t == DType::Float64) {
        static constexpr std::array<double, 3> kNotFloat32 = {1.0 + 0x1p-30, 0.1, 1.0 / 3.0};
        return float_bits(t, kNotFloat32[c.below(kNotFloat32.size())]);
      }
      return float_bits(t, 1.0 + 2 * half_ulp);
  }
}

uint64_t ordinary_bits(Choices& c, DType t) {
  if (t == DType::Bool) return c.below(2);
  const int64_t v = zigzag(c.below(9));
  if (is_floating(t) && c.chance(20)) return float_bits(t, static_cast<double>(v) + 0.5);
  return is_floating(t) ? float_bits(t, static_cast<double>(v)) : bits_from_value(t, Value::of_int(v));
}

// Fills a fresh contiguous tensor: small values, one repeated value,
// small values sprinkled with special ones, or (floats) rounding edges.
// Past this many elements (the large tier) a tensor's values come from a
// few choices and a hash of the position, not one choice per element: the
// choice sequence stays short and generation cheap.
constexpr int64_t kHashedFillElements = 4 * kMaxGeneratedElements;

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Sets element k (row-major) of a fresh contiguous tensor to bits(k), then
// `specials` drawn positions to special(c).
template <class Bits, class Special>
void hashed_fill(Choices& c, const Tensor& out, Bits bits, Special special) {
  const int64_t n = out.numel();
  for (int64_t k = 0; k < n; ++k) store_bits(out.dtype(), out.element_ptr(k), bits(k));
  for (uint32_t specials = c.below(4); specials > 0; --specials) {
    const int64_t k = c.chance(30) ? n - 1 : c.between(0, n - 1);
    store_bits(out.dtype(), out.element_ptr(k), special());
  }
}

Tensor data_tensor(Choices& c, DType t, const Shape& shape) {
  Tensor out = Tensor::zeros(t, shape);
  if (out.numel() == 0) return out;
  if (out.numel() > kHashedFillElements) {
    // Small values (-4..4, or 0/1), sometimes one repeated value or rounding
    // edges, then a few special values.
    const uint32_t mode = c.below(4);
    const uint64_t seed = c.below(0xffffffffu), repeated = ordinary_bits(c, t);
    const std::array<uint64_t, 4> edges = {rounding_edge_bits(c, t), rounding_edge_bits(c, t), rounding_edge_bits(c, t),
                                           rounding_edge_bits(c, t)};
    hashed_fill(
        c, out,
        [&](int64_t k) -> uint64_t {
          const uint64_t h = mix(seed ^ static_cast<uint64_t>(k));
          if (mode == 1) return repeated;
          if (mode == 2 && is_floating(t)) return edges[h % 4];
          if (t == DType::Bool) return h & 1;
          const int64_t v = static_cast<int64_t>(h % 9) - 4;
          return is_floating(t) ? float_bits(t, static_cast<double>(v)) : bits_from_value(t, Value::of_int(v));
        },
        [&] { return special_bits(c, t); });
    return out;
  }
  const uint32_t mode = c.below(6);
  const uint64_t repeated = mode == 1 ? ordinary_bits(c, t) : 0;
  Shape idx(shape.size(), 0);
  do {
    uint64_t bits = 0;
    if (mode == 1)
      bits = repeated;
    else if (mode == 5 && is_floating(t))
      bits = rounding_edge_bits(c, t);
    else if (mode >= 3 && c.chance(25))
      bits = special_bits(c, t);
    else
      bits = ordinary_bits(c, t);
    out.set_bits_at(idx, bits);
  } while (next_index(idx, shape));
  return out;
}

// How an index operand's values are chosen; `negatives_valid` says whether
// [-s, 0) is in range for the op's dialect.
Tensor index_tensor(Choices& c, DType t, const Shape& shape, int64_t s, bool negatives_valid) {
  Tensor out = Tensor::zeros(t, shape);
  if (out.numel() == 0) return out;
  const int64_t lo = negatives_valid ? -s : 0;
  const auto in_range = [&] { return s == 0 ? 0 : c.between(0, s - 1); };
  const uint32_t mode = c.below(10);
  const int64_t repeated = in_range();
  constexpr int64_t k2to31 = int64_t{1} << 31, k2to32 = int64_t{1} << 32;
  // A narrower index dtype cannot hold the huge values: its extremes instead.
  const auto bits_of = [&](int64_t v) {
    if (is_integral(t) && t != DType::Int64 && t != DType::Bool) v = std::clamp(v, dtype_int_min(t), dtype_int_max(t));
    return bits_from_value(t, is_floating(t) ? Value::of_float(static_cast<double>(v)) : Value::of_int(v));
  };
  const auto edge = [&] {
    int64_t v = 0;
    switch (c.below(23)) {
      case 14:
        v = s - 1;
        break;
      case 15:
        v = 0;
        break;
      case 16:
        v = -1;
        break;
      case 17:
        v = -s;
        break;
      case 18:
        v = s;
        break;
      case 19:
        v = -s - 1;
        break;
      case 20:  // ±2^31 and one either side
        v = (c.below(2) ? k2to31 : -k2to31) + c.between(-1, 1);
        break;
      case 21:  // 2^32 past an in-range value: the same value once truncated to 32 bits
        v = (c.below(2) ? k2to32 : -k2to32) + in_range();
        break;
      case 22:
        v = c.below(2) ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
        break;
      default:
        v = in_range();
    }
    return v;
  };
  if (out.numel() > kHashedFillElements) {
    // In range (hashed), one slot, or ascending over [0, s) (every slot,
    // the last ones last), then a few edge values (the last position often).
    const uint64_t seed = c.below(0xffffffffu);
    const int64_t n = out.numel(), span = std::max<int64_t>(s, 1);
    hashed_fill(
        c, out,
        [&](int64_t k) {
          if (mode == 4) return bits_of(repeated);
          if (mode == 5) return bits_of(s == 0 ? 0 : k * s / n);
          return bits_of(static_cast<int64_t>(mix(seed ^ static_cast<uint64_t>(k)) % static_cast<uint64_t>(span)));
        },
        [&] { return bits_of(edge()); });
    return out;
  }
  Shape idx(shape.size(), 0);
  do {
    int64_t v = 0;
    if (mode <= 3) {
      v = in_range();
    } else if (mode == 4) {
      v = repeated;  // every position writes the same slot
    } else if (mode == 5) {
      v = c.below(2) ? std::max<int64_t>(s - 1, 0) : 0;  // two distinct values, heavily duplicated
    } else if (mode == 6) {
      v = s == 0 ? 0 : c.between(lo, s - 1);
    } else {
      v = edge();
    }
    out.set_bits_at(idx, bits_of(v));
  } while (next_index(idx, shape));
  return out;
}

// Re-lays a tensor out: contiguous, its dims stored in another order
// (any permutation; choice 0 swaps the last two), gapped, offset, stride 0
// along a dim whose values are made constant, or strides mixing 1 and 0
// ([1, 1, 0]: elements overlap, values follow the view; only for an operand
// the op only reads, `read_only`: a written one overlapping without a
// stride-0 dim is a case PyTorch cannot decide, left unspecified). On a
// written operand an expanded layout makes an in-place call a documented
// error.
Tensor with_layout(Choices& c, Tensor t, bool read_only = true) {
  const uint32_t r = c.below(13);
  if (r < 7 || t.numel() == 0) return t;
  Shape strides = contiguous_strides(t.shape());
  const size_t rank = strides.size();
  if (r == 7 && rank >= 2) {
    // order[k]: the dim stored k-th from the outside.
    std::vector<size_t> order(rank);
    for (size_t k = 0; k < rank; ++k) order[k] = k;
    for (size_t k = rank - 1; k > 0; --k) std::swap(order[k], order[k - c.below(static_cast<uint32_t>(k + 1))]);
    if (std::is_sorted(order.begin(), order.end())) std::swap(order[rank - 2], order[rank - 1]);
    int64_t stride = 1;
    for (size_t k = rank; k-- > 0;) {
      strides[order[k]] = stride;
      stride *= std::max<int64_t>(t.size(static_cast<int64_t>(order[k])), 1);
    }
    return place_with_layout(t, strides, 0);
  }
  if (r == 8) {
    for (auto& s : strides) s *= 2;
    return place_with_layout(t, strides, 0);
  }
  if (r == 9 || t.rank() == 0) return place_with_layout(t, strides, c.between(1, 5));
  if (r == 12 && !read_only) return t;
  if (r == 12) {
    // Strides of 1 and 0 (a dim of size 1 keeps 1): element p reads storage
    // element sum(p[d] for the stride-1 dims), the storage holding the
    // tensor's first values in row-major order.
    int64_t extent = 1;
    for (size_t d = 0; d < rank; ++d) {
      strides[d] = t.size(static_cast<int64_t>(d)) > 1 && c.below(2) ? 0 : 1;
      if (strides[d] == 1) extent += t.size(static_cast<int64_t>(d)) - 1;
    }
    Tensor base = Tensor::zeros(t.dtype(), Shape{extent});
    Shape idx(rank, 0);
    for (int64_t k = 0; k < extent; ++k) {
      base.set_bits_at(Shape{k}, t.bits_at(idx));
      next_index(idx, t.shape());
    }
    return Tensor::view(t.dtype(), t.shape(), strides, 0, base.storage());
  }
  // Expanded: stride 0 along dim d, values of slice 0 repeated.
  const int64_t d = c.between(0, t.rank() - 1);
  if (t.size(d) <= 1) return t;
  Shape one = t.shape();
  one[static_cast<size_t>(d)] = 1;
  Tensor base = Tensor::zeros(t.dtype(), one);
  Shape idx(one.size(), 0);
  if (base.numel() > 0) {
    do base.set_bits_at(idx, t.bits_at(idx));
    while (next_index(idx, one));
  }
  Shape st = contiguous_strides(one);
  st[static_cast<size_t>(d)] = 0;
  return Tensor::view(t.dtype(), t.shape(), st, 0, base.storage());
}

// A rank one away from `r` (rank mismatch), keeping sizes small.
Shape change_rank(Choices& c, Shape s) {
  if (s.empty() || c.below(2))
    s.push_back(1 + c.below(2));
  else
    s.pop_back();
  return s;
}

int64_t pick_dim(Choices& c, int64_t rank) {
  const uint32_t r = c.below(50);
  if (r == 48) return rank;
  if (r == 49) return -rank - 1;
  if (rank == 0) return 0;
  const int64_t d = c.between(0, rank - 1);
  return c.chance(30) ? d - rank : d;
}

// Ints and floats near 0 (fractional, negative), edge values (out of the
// range of narrow dtypes, NaN, ±inf), bools, and (1 in 4) the hard ones:
// halfway cases of float16 / bfloat16 (exact ties, and ties plus 2^-40,
// which round up directly but to even through float32), integers float32
// or float64 cannot hold, fractions at .5, subnormals, values past int64.
Scalar pick_value(Choices& c) {
  switch (c.below(4)) {
    case 0: {
      if (!c.chance(20)) return Scalar::of_int(zigzag(c.below(9)));
      static constexpr std::array<int64_t, 7> kBig = {128,
                                                      256,
                                                      -129,
                                                      40000,
                                                      int64_t{1} << 31,
                                                      std::numeric_limits<int64_t>::max(),
                                                      std::numeric_limits<int64_t>::min()};
      return Scalar::of_int(kBig[c.below(kBig.size())]);
    }
    case 1: {
      if (!c.chance(25)) return Scalar::of_float(static_cast<double>(zigzag(c.below(9))) * 0.75);
      static constexpr std::array<double, 8> kOdd = {std::numeric_limits<double>::quiet_NaN(),
                                                     std::numeric_limits<double>::infinity(),
                                                     -std::numeric_limits<double>::infinity(),
                                                     -0.0,
                                                     1e40,
                                                     65504.0,
                                                     70000.0,
                                                     3.4e38};
      return Scalar::of_float(kOdd[c.below(kOdd.size())]);
    }
    case 2:
      return Scalar::of_bool(c.below(2) == 1);
    default: {
      if (c.chance(25)) {
        static constexpr std::array<int64_t, 5> kInexact = {2049, -2049, (int64_t{1} << 24) + 1, (int64_t{1} << 53) + 1,
                                                            -(int64_t{1} << 32)};
        return Scalar::of_int(kInexact[c.below(kInexact.size())]);
      }
      static constexpr std::array<double, 16> kHard = {
          1.0 + 0x1p-11 + 0x1p-40,  // float16: up directly, even via float32
          -(1.0 + 0x1p-11 + 0x1p-40),
          1.0 + 0x1p-8 + 0x1p-40,  // bfloat16: the same
          -(1.0 + 0x1p-8 + 0x1p-40),
          1.0 + 0x1p-11,  // exact ties
          1.0 + 3 * 0x1p-11,
          1.0 + 0x1p-8,
          2.5,
          -0.5,
          -1.5,
          255.5,
          -3e9,
          1e19,
          0x1p-24,  // float16's smallest subnormal
          0x1p-149,
          0x1p-1074};
      return Scalar::of_float(kHard[c.below(kHard.size())]);
    }
  }
}

// Sizes of an index bounded by `limit` per dim (or free along `free_dim`),
// with a small chance of one dim one over its limit.
Shape index_shape_within(Choices& c, const Shape& limit, int64_t free_dim) {
  Shape s(limit.size());
  for (size_t d = 0; d < limit.size(); ++d)
    s[d] = static_cast<int64_t>(d) == free_dim ? c.between(1, 4) : size_upto(c, limit[d]);
  clamp_numel(s);
  if (!s.empty() && c.chance(4)) {
    const size_t d = c.below(static_cast<uint32_t>(s.size()));
    s[d] = limit[d] + 1;
  }
  return s;
}

// Mostly one of the dtypes the document allows for the operand (in
// kDTypeOrder, so choice 0 is its simplest), sometimes one it does not
// allow: the documented dtype error. `also`: one more dtype the call's
// framework version allows beyond the op table's (which describes the
// baseline).
DType pick_dtype_for(Choices& c, const OperandSpec& operand, std::optional<DType> also = std::nullopt) {
  const auto allows = [&](DType t) { return operand.dtypes.contains(t) || t == also; };
  const bool any_dtype = std::all_of(kDTypeOrder.begin(), kDTypeOrder.end(), allows);
  if (any_dtype) return kDTypeOrder[c.below(kNumDTypes)];
  std::vector<DType> allowed, others;
  for (DType t : kDTypeOrder) (allows(t) ? allowed : others).push_back(t);
  const bool documented = c.below(40) < 36;
  const std::vector<DType>& from = documented || others.empty() ? allowed : others;
  return from[c.below(static_cast<uint32_t>(from.size()))];
}

// Strings an ArgSpec does not allow but a user might write: near misses of
// the allowed ones (case, a trailing space), the empty string, and the
// names other frameworks use for such arguments.
std::vector<std::string> invalid_strings(const ArgSpec& arg) {
  static const std::array<const char*, 8> kOtherNames = {"sum", "mean",     "prod", "replace",
                                                         "add", "multiply", "max",  "none"};
  std::vector<std::string> out = {""};
  const auto add = [&](std::string s) {
    if (std::find(arg.allowed.begin(), arg.allowed.end(), s) == arg.allowed.end() &&
        std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(std::move(s));
  };
  for (const std::string& a : arg.allowed) {
    std::string capitalized = a, upper = a;
    if (!capitalized.empty()) capitalized[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(a[0])));
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    add(capitalized);
    add(upper);
    add(a + " ");
  }
  for (const char* name : kOtherNames) add(name);
  return out;
}

// An argument the family builders do not draw themselves, by its declared
// type. Choice 0 is the simplest: absent when optional (the documented
// default), else the first allowed value.
void draw_arg(Choices& c, const ArgSpec& arg, OpCall& call) {
  switch (arg.type) {
    case Arg::Type::Int:
      if (!arg.required && !c.chance(50)) return;
      call.set_arg(arg.name, Arg::of_int(zigzag(c.below(9))));
      return;
    case Arg::Type::Bool: {
      const uint32_t mode = arg.required ? 1 + c.below(2) : c.below(3);
      if (mode > 0) call.set_arg(arg.name, Arg::of_bool(mode == 1));
      return;
    }
    case Arg::Type::String: {
      // Mostly absent when optional, mostly allowed when given; 1 in 10 invalid.
      const uint32_t r = c.below(20);
      if (!arg.required && r < 11) return;
      if (r < 18 && !arg.allowed.empty()) {
        call.set_arg(arg.name, Arg::of_string(arg.allowed[c.below(static_cast<uint32_t>(arg.allowed.size()))]));
        return;
      }
      const std::vector<std::string> invalid = invalid_strings(arg);
      call.set_arg(arg.name, Arg::of_string(invalid[c.below(static_cast<uint32_t>(invalid.size()))]));
      return;
    }
    case Arg::Type::Scalar:
      if (!arg.required && !c.chance(50)) return;
      call.set_arg(arg.name, Arg::of_scalar(pick_value(c)));
      return;
  }
}

// What a dialect changes in how cases are drawn, keyed by OpSpec::dialect;
// an unknown dialect gets the defaults.
struct DialectKnobs {
  // Drawn into OpCall::framework_version (choice 0, the baseline, first);
  // empty: none is set. Each versioned rule of the dialect
  // (reference/versions.h) has versions drawn on both sides of its bound.
  std::vector<std::string> framework_versions;
  // PyTorch addresses a 0-d tensor as shape [1]: dim 0 and index [] valid.
  bool rank0_as_one = false;
  // MindSpore's MS-S3 bounds index.size(d) by self.size(d) for every d,
  // dim included; PyTorch lets the index run longer along dim.
  bool index_bounded_along_dim = false;
  // Whether index values in [-s, 0) are in range, for a framework version.
  bool (*negatives_in_range)(const std::string& framework_version) = nullptr;
  // Whether the gather and scatter families take an int32 index beyond the
  // op table's dtypes, for a framework version: then int32 is drawn as often
  // as a documented dtype.
  bool (*int32_index_valid)(const std::string& framework_version) = nullptr;
  // ONNX ScatterElements: updates has exactly indices' shape (PyTorch's src
  // may be larger in every dim); one dim is sometimes one off (an error).
  bool source_shape_is_index = false;
  // ONNX: the op's opset is an argument (`opset`), drawn across the op's
  // versions (OpSpec::opsets), and `reduction` is drawn against it.
  bool opset_argument = false;
};

const DialectKnobs& knobs_for(std::string_view dialect) {
  // torch: T-IA14 from 2.3, T-I2 from 2.8 ("" is 1.13).
  static const DialectKnobs kTorch{
      .framework_versions = {"", "2.2", "2.3", "2.7", "2.8", "2.15"},
      .rank0_as_one = true,
      .int32_index_valid = [](const std::string& version) { return ref::rule_holds("T-I2", version); }};
  static const DialectKnobs kMindspore{.framework_versions = {"", "2.3", "2.10"},
                                       .index_bounded_along_dim = true,
                                       .negatives_in_range = [](const std::string& version) {
                                         return !ref::mindspore_rules::follows_r2_10_or_later(version);
                                       }};
  // paddle: PD-B3 from 3.0 ("" precedes every release).
  static const DialectKnobs kPaddle{
      .framework_versions = {"", "2.6", "3.0", "3.3"},
      .negatives_in_range = [](const std::string& version) { return ref::rule_holds("PD-B3", version); }};
  // onnx: negative index values wrap in every version of the ops drawn
  // (the opset is an argument, drawn by draw_onnx_args).
  static const DialectKnobs kOnnx{.framework_versions = {},
                                  .negatives_in_range = [](const std::string&) { return true; },
                                  .source_shape_is_index = true,
                                  .opset_argument = true};
  static const DialectKnobs kDefault{};
  if (dialect == "onnx") return kOnnx;
  if (dialect == "torch") return kTorch;
  if (dialect == "mindspore") return kMindspore;
  if (dialect == "paddle") return kPaddle;
  return kDefault;
}

struct Draw;

// How the generator builds the cases of one shape family (OpSpec::family):
// its builder and what the generator needs to know around it. One entry per
// family in family_gen() (below the builders): an op of a new family adds
// its builder and its entry there, and nothing in generate_call_for.
struct FamilyGen {
  void (*build)(Draw& g) = nullptr;
  // Whether the family needs a source of values (the operand with an or_arg
  // alternative, else the other read operand): Optional for a family whose
  // ops may have none (index_fill_'s value is an argument, index_select
  // reads only).
  enum class Source { None, Optional, Required } source = Source::Required;
  // Whether the builder draws the op's first Int argument as the axis (dim)
  // with the shapes.
  bool axis = true;
  // Another argument the builder draws itself ("" none).
  std::string_view own_arg;
};
const FamilyGen& family_gen(const OpSpec& op);

// The operands a family builds, by role in the op table: the data operand
// (written in place, else the first read one), the index, and the source of
// the values (the operand with an or_arg alternative, else the other read
// operand; null for gathers).
struct Roles {
  const OperandSpec* data = nullptr;
  const OperandSpec* index = nullptr;
  const OperandSpec* source = nullptr;
};

Roles roles_of(const OpSpec& op) {
  Roles r;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::InPlace && !r.data) r.data = &o;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && !r.data) r.data = &o;
  for (const OperandSpec& o : op.operands) {
    if (o.role == OperandRole::Index && !r.index) r.index = &o;
    if (!o.or_arg.empty() && !r.source) r.source = &o;
  }
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && &o != r.data && !r.source) r.source = &o;
  const bool needs_source = family_gen(op).source == FamilyGen::Source::Required;
  if (!r.data || !r.index || (needs_source && !r.source))
    throw std::logic_error("op table entry " + op.id + " lacks the operands its shape family needs");
  return r;
}

// The axis of a Gather / ScatterElements op: its first Int argument (dim).
const ArgSpec* axis_arg(const OpSpec& op) {
  for (const ArgSpec& a : op.args)
    if (a.type == Arg::Type::Int) return &a;
  return nullptr;
}

// What the family builders share: the op, its roles, the dialect's knobs,
// and the call being built.
struct Draw {
  Choices& c;
  const OpSpec& op;
  const Roles roles;
  const DialectKnobs& knobs;
  bool negatives_valid;
  OpCall& call;

  // Draws dim for a tensor of `rank` (as the dialect counts it), sets the
  // axis argument, and returns it normalized (possibly still out of range).
  int64_t draw_dim(int64_t rank) {
    const int64_t d = pick_dim(c, rank);
    if (const ArgSpec* axis = axis_arg(op)) call.set_arg(axis->name, Arg::of_int(d));
    return d < 0 ? d + rank : d;
  }
  void put(const OperandSpec& operand, Tensor t) {
    call.tensors[operand.name] =
        with_layout(c, std::move(t), operand.role == OperandRole::Read || operand.role == OperandRole::Index);
  }
  // The gather and scatter families' index dtype: int32 counts as documented
  // where the call's version takes it (torch >= 2.8, T-I2).
  DType element_index_dtype() {
    const bool int32 = knobs.int32_index_valid && knobs.int32_index_valid(call.framework_version);
    return pick_dtype_for(c, *roles.index, int32 ? std::optional<DType>(DType::Int32) : std::nullopt);
  }
};

// A src shape near the index's: each dim sometimes one longer (valid), and
// sometimes one dim one shorter (index larger than src: invalid).
Shape source_shape_near(Choices& c, const Shape& x_shape) {
  Shape src_shape = x_shape;
  for (auto& d : src_shape)
    if (c.chance(25)) d += 1;
  if (checked_numel(src_shape) > t_max_elements) src_shape = x_shape;
  if (!src_shape.empty() && c.chance(3)) src_shape[c.below(static_cast<uint32_t>(src_shape.size()))] -= 1;
  for (auto& d : src_shape) d = std::max<int64_t>(d, 0);
  return src_shape;
}

// The draws gather and scatter cases share, in this order: the data
// operand's dtype and shape, dim, and an index shape within the data's
// (logical) shape; `size` is the data's size along dim (1 when dim is out of
// range), the bound of the index values.
struct ElementwiseShapes {
  DType dtype;
  Shape data, index;
  int64_t dim, size;
};
ElementwiseShapes draw_elementwise(Draw& g) {
  Choices& c = g.c;
  ElementwiseShapes e{pick_dtype_for(c, *g.roles.data), {}, {}, 0, 1};
  const int64_t rank = pick_rank(c);
  e.data = data_shape_of_rank(c, rank);
  const bool promoted = rank == 0 && g.knobs.rank0_as_one;
  const int64_t r = promoted ? 1 : rank;
  e.dim = g.draw_dim(r);
  const Shape logical = promoted ? Shape{1} : e.data;
  e.index = rank == 0 ? Shape{} : index_shape_within(c, logical, g.knobs.index_bounded_along_dim ? -1 : e.dim);
  if (e.dim >= 0 && e.dim < r) e.size = logical[static_cast<size_t>(e.dim)];
  return e;
}

// out = input gathered at index along dim.
void gather_case(Draw& g) {
  Choices& c = g.c;
  ElementwiseShapes e = draw_elementwise(g);
  if (c.chance(3)) e.index = change_rank(c, e.index);
  g.put(*g.roles.data, data_tensor(c, e.dtype, e.data));
  g.put(*g.roles.index, index_tensor(c, g.element_index_dtype(), e.index, e.size, g.negatives_valid));
}

// self[... index ...] = src[...] (or the scalar alternative), along dim.
void scatter_elements_case(Draw& g) {
  Choices& c = g.c;
  ElementwiseShapes e = draw_elementwise(g);
  const OperandSpec& source = *g.roles.source;
  const bool use_arg = !source.or_arg.empty() && c.chance(25);
  Shape src_shape = source_shape_near(c, e.index);
  if (g.knobs.source_shape_is_index) {
    src_shape = e.index;
    if (!src_shape.empty() && c.chance(4)) {
      const size_t d = c.below(static_cast<uint32_t>(src_shape.size()));
      src_shape[d] = std::max<int64_t>(0, src_shape[d] + (c.below(2) ? 1 : -1));
    }
  }
  if (c.chance(3)) e.index = change_rank(c, e.index);
  g.put(*g.roles.data, data_tensor(c, e.dtype, e.data));
  g.put(*g.roles.index, index_tensor(c, g.element_index_dtype(), e.index, e.size, g.negatives_valid));
  if (use_arg) {
    if (const ArgSpec* alternative = g.op.arg(source.or_arg)) {
      ArgSpec given = *alternative;  // standing in for the operand: never absent
      given.required = true;
      draw_arg(c, given, g.call);
    }
    return;
  }
  const DType src_t = c.chance(3) ? pick_dtype_for(c, source) : e.dtype;
  g.put(source, data_tensor(c, src_t, src_shape));
}

// x[index[i], ...] = updates[i, ...]: rows of x addressed by a 1-D index.
void row_scatter_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(50)) rank = 1;  // x of rank 0 is an error: keep it rarer
  Shape x_shape = data_shape_of_rank(c, rank);
  const int64_t rows = x_shape.empty() ? 1 : x_shape[0];
  const int64_t m =
      c.chance(10) ? 0 : c.between(1, std::min<int64_t>(std::max<int64_t>(rows, 1) + 1, t_large ? t_max_elements : 5));
  Shape updates_shape = x_shape.empty() ? Shape{m} : x_shape;
  updates_shape[0] = m;
  clamp_numel(updates_shape);
  const int64_t m_final = updates_shape[0];
  Shape index_shape{m_final};
  if (c.chance(3)) index_shape = Shape{m_final, 1};
  if (c.chance(3)) updates_shape = change_rank(c, updates_shape);
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  g.put(*g.roles.data, data_tensor(c, t, x_shape));
  g.put(*g.roles.index, index_tensor(c, index_t, index_shape, rows, g.negatives_valid));
  const DType u_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, u_t, updates_shape));
}

// self.index_*_(dim, index, source): a 1-D index (sometimes 0-d, sometimes
// 2-D, an error) of positions along dim, values at the edges as for the
// other families; source (when the op has one) is self's shape with dim
// replaced by len(index), sometimes one off in a dim (an error).
void index_along_dim_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  const int64_t rank = pick_rank(c);
  Shape data_shape = data_shape_of_rank(c, rank);
  const int64_t r = std::max<int64_t>(rank, 1);  // a 0-d tensor has one dim to index
  const int64_t dim = g.draw_dim(r);
  const bool dim_ok = dim >= -r && dim < r;
  const int64_t d = dim < 0 ? dim + r : dim;
  const int64_t s = !dim_ok ? 1 : rank == 0 ? 1 : data_shape[static_cast<size_t>(d)];
  const int64_t m = c.chance(10) ? 0 : c.between(1, t_large ? std::min<int64_t>(2 * s + 1, t_max_elements) : 6);
  Shape index_shape{m};
  if (m == 1 && c.chance(20)) index_shape = Shape{};  // a 0-d index
  if (c.chance(4)) index_shape = Shape{m, 1};         // 2-D: an error
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  g.put(*g.roles.index, index_tensor(c, pick_dtype_for(c, *g.roles.index), index_shape, s, g.negatives_valid));
  if (!g.roles.source) return;
  Shape source_shape = data_shape;
  if (dim_ok && rank > 0) source_shape[static_cast<size_t>(d)] = checked_numel(index_shape);
  if (!source_shape.empty() && c.chance(4)) {
    const size_t k = c.below(static_cast<uint32_t>(source_shape.size()));
    source_shape[k] = std::max<int64_t>(0, source_shape[k] + (c.below(2) ? 1 : -1));
  }
  clamp_numel(source_shape);
  // A 0-d source where [1] is expected, or [1] where 0-d is: the same
  // logical shape, another physical one (torch's T-IA8 takes it, T-IA14
  // from 2.3 does not).
  if (g.knobs.rank0_as_one && (source_shape.empty() || source_shape == Shape{1}) && c.chance(10))
    source_shape = source_shape.empty() ? Shape{1} : Shape{};
  const DType source_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, source_t, source_shape));
}

// torch.take_along_dim(input, indices, dim=None). With dim (3 in 4):
// indices has input's rank and, in every dim but dim, input's size, a 1
// (indices broadcasts), or input has the 1 (input broadcasts); sometimes a
// size that broadcasts neither way or another rank (errors). Along dim any
// length (0 sometimes). Without dim: any two shapes, values bounded by
// input.numel(). Index values at the edges as for the other families.
void take_along_dim_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  const int64_t rank = pick_rank(c);
  Shape input_shape = data_shape_of_rank(c, rank);
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  if (c.chance(25)) {  // dim=None
    Shape index_shape = pick_shape(c, pick_rank(c));
    clamp_numel(index_shape);
    g.put(*g.roles.data, data_tensor(c, t, input_shape));
    g.put(*g.roles.index, index_tensor(c, index_t, index_shape, checked_numel(input_shape), g.negatives_valid));
    return;
  }
  const int64_t r = std::max<int64_t>(rank, 1);  // a 0-d tensor has one dim
  const int64_t dim = g.draw_dim(r);
  const bool dim_ok = dim >= 0 && dim < r;
  Shape index_shape = input_shape;
  for (size_t k = 0; k < index_shape.size(); ++k) {
    if (dim_ok && static_cast<int64_t>(k) == dim) {
      index_shape[k] = c.chance(8) ? 0 : c.between(1, 5);
      continue;
    }
    switch (c.below(12)) {
      case 0:
      case 1:
        index_shape[k] = 1;  // indices broadcasts
        break;
      case 2:
      case 3:
        input_shape[k] = 1;  // input broadcasts
        index_shape[k] = pick_size(c);
        break;
      case 4:  // neither broadcasts: an error
        input_shape[k] = std::max<int64_t>(input_shape[k], 2);
        index_shape[k] = input_shape[k] + 1;
        break;
      default:
        break;  // equal
    }
  }
  clamp_numel(input_shape);
  clamp_numel(index_shape);
  if (c.chance(5)) index_shape = change_rank(c, index_shape);
  const int64_t s = !dim_ok || rank == 0 ? 1 : input_shape[static_cast<size_t>(dim)];
  g.put(*g.roles.data, data_tensor(c, t, input_shape));
  g.put(*g.roles.index, index_tensor(c, index_t, index_shape, s, g.negatives_valid));
}

// An ND index (ONNX GatherND / ScatterND) of `shape` whose last dim holds
// tuples into `data` from dim `first` on: component j bounded by
// data[first + j] (1 past data's rank). Values mostly in [0, s), sometimes
// negative within [-s, 0) (they wrap), rarely s or -s - 1 (out of range);
// one mode repeats a single tuple (every position meets one target) and one
// draws from two values per component (heavy duplicates).
Tensor nd_index_tensor(Choices& c, const Shape& shape, const Shape& data, int64_t first) {
  Tensor out = Tensor::zeros(DType::Int64, shape);
  if (out.numel() == 0) return out;
  const uint32_t mode = c.below(10);
  const int64_t k = shape.back();
  std::vector<int64_t> repeated(static_cast<size_t>(std::max<int64_t>(k, 0)));
  const auto bound = [&](int64_t j) {
    const int64_t d = first + j;
    return d >= 0 && d < static_cast<int64_t>(data.size()) ? data[static_cast<size_t>(d)] : 1;
  };
  for (int64_t j = 0; j < k; ++j) repeated[static_cast<size_t>(j)] = bound(j) == 0 ? 0 : c.between(0, bound(j) - 1);
  Shape idx(shape.size(), 0);
  do {
    const int64_t j = idx.back(), s = bound(j);
    int64_t v = 0;
    if (mode <= 3) {
      v = s == 0 ? 0 : c.between(0, s - 1);
    } else if (mode == 4) {
      v = repeated[static_cast<size_t>(j)];
    } else if (mode == 5) {
      v = c.below(2) ? std::max<int64_t>(s - 1, 0) : (c.below(2) ? 0 : -1);
    } else if (mode <= 7) {
      v = s == 0 ? 0 : c.between(-s, s - 1);
    } else {
      switch (c.below(20)) {
        case 16:
          v = -s;
          break;
        case 17:
          v = s - 1;
          break;
        case 18:
          v = s;
          break;
        case 19:
          v = -s - 1;
          break;
        default:
          v = s == 0 ? 0 : c.between(0, s - 1);
      }
    }
    out.set_bits_at(idx, bits_from_value(DType::Int64, Value::of_int(v)));
  } while (next_index(idx, shape));
  return out;
}

// A few leading index dims (0 to 2 of them, sizes 0..3), kept small.
Shape nd_lead_dims(Choices& c) {
  Shape lead(c.below(3));
  for (auto& d : lead) d = c.chance(8) ? 0 : c.between(1, 3);
  return lead;
}

// ONNX GatherND(data, indices, batch_dims): indices.shape = data[:b] ++
// lead ++ [k], k in [1, r - b]; sometimes batch_dims outside [0, min(q, r)),
// a batch dim that differs, k of 0 or r - b + 1, or an index dtype other
// than int64 (errors). batch_dims absent half the time it is 0.
void gather_nd_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(30)) rank = 1;  // rank 0 is an error: keep it rarer
  if (rank > 4 && !c.chance(30)) rank = 3;
  Shape data_shape = data_shape_of_rank(c, rank);
  int64_t b = 0;
  if (rank >= 2 && c.chance(35)) b = c.between(1, rank - 1);
  if (c.chance(4)) b = c.below(2) ? -1 : rank;  // outside [0, min(q, r)): an error
  const int64_t room = std::max<int64_t>(rank - std::max<int64_t>(b, 0), 0);
  int64_t k = room == 0 ? 1 : c.between(1, room);
  if (c.chance(4)) k = c.below(2) ? 0 : room + 1;  // an error
  Shape index_shape;
  for (int64_t d = 0; d < b && d < rank; ++d) index_shape.push_back(data_shape[static_cast<size_t>(d)]);
  if (b > 0 && c.chance(5)) index_shape[c.below(static_cast<uint32_t>(index_shape.size()))] += 1;  // batch mismatch
  for (int64_t d : nd_lead_dims(c)) index_shape.push_back(d);
  index_shape.push_back(k);
  clamp_numel(index_shape);
  if (b != 0 || c.chance(50)) g.call.set_arg("batch_dims", Arg::of_int(b));
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  Tensor indices = nd_index_tensor(c, index_shape, data_shape, std::max<int64_t>(b, 0));
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  if (index_t != DType::Int64) indices = Tensor::zeros(index_t, index_shape);  // an index dtype error
  g.put(*g.roles.index, std::move(indices));
}

// ONNX ScatterND(data, indices, updates): indices.shape = lead ++ [k], k in
// [1, r]; updates.shape = lead ++ data[k:], its dtype data's; sometimes k of
// r + 1, updates one off in a dim or of another rank or dtype (errors).
void scatter_nd_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(30)) rank = 1;
  if (rank > 4 && !c.chance(30)) rank = 3;
  Shape data_shape = data_shape_of_rank(c, rank);
  int64_t k = rank == 0 ? 1 : c.between(1, rank);
  if (c.chance(4)) k = rank + 1;  // an error
  const Shape lead = nd_lead_dims(c);
  Shape index_shape = lead;
  index_shape.push_back(k);
  clamp_numel(index_shape);
  Shape updates_shape(index_shape.begin(), index_shape.end() - 1);
  for (int64_t d = std::min(k, rank); d < rank; ++d) updates_shape.push_back(data_shape[static_cast<size_t>(d)]);
  clamp_numel(updates_shape);
  if (!updates_shape.empty() && c.chance(5)) {
    const size_t d = c.below(static_cast<uint32_t>(updates_shape.size()));
    updates_shape[d] = std::max<int64_t>(0, updates_shape[d] + (c.below(2) ? 1 : -1));
  }
  if (c.chance(3)) updates_shape = change_rank(c, updates_shape);
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  Tensor indices = nd_index_tensor(c, index_shape, data_shape, 0);
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  if (index_t != DType::Int64) indices = Tensor::zeros(index_t, index_shape);
  g.put(*g.roles.index, std::move(indices));
  const DType u_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, u_t, updates_shape));
}

const FamilyGen& family_gen(const OpSpec& op) {
  using S = FamilyGen::Source;
  static const std::map<ShapeFamily, FamilyGen> kFamilies = {
      {ShapeFamily::Gather, {.build = gather_case, .source = S::None}},
      {ShapeFamily::ScatterElements, {.build = scatter_elements_case}},
      {ShapeFamily::RowScatter, {.build = row_scatter_case, .axis = false}},
      // index_select reads input along dim and has no source.
      {ShapeFamily::IndexAlongDim, {.build = index_along_dim_case, .source = S::Optional}},
      {ShapeFamily::TakeAlongDim, {.build = take_along_dim_case, .source = S::None}},
      {ShapeFamily::GatherND, {.build = gather_nd_case, .source = S::None, .axis = false, .own_arg = "batch_dims"}},
      {ShapeFamily::ScatterND, {.build = scatter_nd_case, .axis = false, .own_arg = "batch_dims"}},
  };
  const auto it = kFamilies.find(op.family);
  if (it == kFamilies.end())
    throw std::logic_error("op table entry " + op.id + ": the generator has no shape family builder for it");
  return it->second;
}

// ONNX's opset and reduction: the opset absent (the table's default, the
// latest) half the time, else one of the op's versions, or (1 in 20)
// one below the first (an error); reduction absent or none 3 times in 5,
// else add / mul / max / min whatever the opset (invalid below 16 / 18),
// or (1 in 20) a string ONNX does not define.
void draw_onnx_args(Choices& c, const OpSpec& op, OpCall& call) {
  const std::vector<int64_t>& opsets = op.opsets;  // the schema versions (op_table.h)
  if (const ArgSpec* opset = op.arg("opset"); opset && !opsets.empty() && c.chance(50)) {
    int64_t v = opsets[c.below(static_cast<uint32_t>(opsets.size()))];
    if (c.chance(5)) v = c.below(2) ? opsets.front() - 1 : 1;
    call.set_arg(opset->name, Arg::of_int(v));
  }
  if (const ArgSpec* reduction = op.arg("reduction")) {
    const uint32_t r = c.below(20);
    if (r < 8) return;
    if (r < 12) {
      call.set_arg(reduction->name, Arg::of_string("none"));
    } else if (r < 19) {
      static constexpr std::array<const char*, 4> kReductions = {"add", "mul", "max", "min"};
      call.set_arg(reduction->name, Arg::of_string(kReductions[c.below(kReductions.size())]));
    } else {
      const std::vector<std::string> invalid = invalid_strings(*reduction);
      call.set_arg(reduction->name, Arg::of_string(invalid[c.below(static_cast<uint32_t>(invalid.size()))]));
    }
  }
}

// PyTorch's out= (T-OUT*), for ops that take one: correctly shaped in any
// layout (expanded included), of another dtype, mis-shaped (empty or not),
// or a view into an operand's storage — the very same view (T-OUT4/5) or
// one shifted over it (T-OUT3).
void draw_out(Choices& c, const OpSpec& op, const OperandSpec& out_spec, OpCall& call) {
  const Tensor* like = call.tensor(op.output_dtype_of);
  if (!like) return;
  const std::optional<Shape> result_shape = output_shape_of(op, call);
  const Shape shape = result_shape ? *result_shape : like->shape();
  const DType dtype = like->dtype();
  // The formula's shape of an invalid call can be large (an index of 6 into
  // a size-0 dim of a rank-9 input): keep to the generator's sizes.
  if (checked_numel(shape) < 0 || checked_numel(shape) > t_max_elements) return;
  switch (c.below(10)) {
    case 0:  // another dtype
      call.tensors[out_spec.name] = data_tensor(c, kAllDTypes[c.below(kNumDTypes)], shape);
      return;
    case 1: {  // mis-shaped: resized (T-OUT6)
      Shape other = c.chance(50) ? Shape{0} : pick_shape(c, pick_rank(c));
      clamp_numel(other);
      call.tensors[out_spec.name] = data_tensor(c, dtype, other);
      return;
    }
    case 2:
    case 3: {  // a view into the storage of an operand of the result's dtype
      std::vector<const Tensor*> candidates;
      for (const auto& [name, t] : call.tensors)
        if (name != out_spec.name && t.dtype() == dtype && t.storage()) candidates.push_back(&t);
      if (candidates.empty()) break;
      const Tensor& base = *candidates[c.below(static_cast<uint32_t>(candidates.size()))];
      if (base.shape() == shape && c.chance(50)) {
        call.tensors[out_spec.name] = base;  // the very same view
        return;
      }
      const int64_t numel = checked_numel(shape);
      const auto room = static_cast<int64_t>(base.storage_elements()) - numel;
      if (numel < 0 || room < 0) break;
      call.tensors[out_spec.name] =
          Tensor::view(dtype, shape, contiguous_strides(shape), c.between(0, room), base.storage());
      return;
    }
    default:
      break;
  }
  call.tensors[out_spec.name] = with_layout(c, data_tensor(c, dtype, shape), false);
}

// A backward op (`<op>.backward`): a forward call of its op as the
// generator draws it (valid or not), out= dropped, and an upstream
// gradient shaped and typed like the forward's output, sometimes not (the
// backward's own shape and dtype rules), in a drawn layout.
OpCall backward_call(Choices& c, const OpSpec& backward) {
  const OpSpec& forward = op_spec(backward.backward_of);
  // Mostly floating data: gradients of other dtypes are one error (a few
  // draws keep reaching it).
  OpCall call = generate_call_for(c, forward);
  for (int tries = 0; tries < 3; ++tries) {
    const Tensor* data = call.tensor(forward.data_operand);
    if (!data || is_floating(data->dtype())) break;
    call = generate_call_for(c, forward);
  }
  call.op = backward.id;
  if (const OperandSpec* out = out_operand(forward)) call.tensors.erase(out->name);
  const Tensor* dtype_of = call.tensor(forward.output_dtype_of);
  DType dtype = dtype_of ? dtype_of->dtype() : DType::Float32;
  std::optional<Shape> shape = output_shape_of(forward, call);
  if (!shape || c.chance(5)) {
    shape = pick_shape(c, pick_rank(c));
    clamp_numel(*shape);
  }
  if (c.chance(3)) dtype = kAllDTypes[c.below(kNumDTypes)];
  call.tensors[std::string(kGradOutput)] = with_layout(c, data_tensor(c, dtype, *shape));
  return call;
}

// An empty index (its first dim 0, or [0] for a 0-d one) together with, mostly,
// another violated rule: a floating index dtype, dim out of range, an index
// one rank higher, or a source of another dtype. A backend may report any
// of them (or must report the other rule: an empty index is no error).
void empty_index_with_violation(Draw& g) {
  Choices& c = g.c;
  const std::string& name = g.roles.index->name;
  const Tensor* index = g.call.tensor(name);
  if (!index) return;
  Shape shape = index->shape();
  // Its first dim 0. (Zeroing an inner dim, [m, 0], crashes the reference's
  // Paddle PD-B1/PD-B3 checks, which read index[i] of a 2-D index as 1-D:
  // reported, to be re-enabled with the reference's fix.)
  if (shape.empty())
    shape = Shape{0};
  else
    shape[0] = 0;
  DType dtype = index->dtype();
  uint32_t rule = c.below(5);
  const ArgSpec* axis = family_gen(g.op).axis ? axis_arg(g.op) : nullptr;
  const Tensor* data = g.call.tensor(g.roles.data->name);
  const Tensor* source = g.roles.source ? g.call.tensor(g.roles.source->name) : nullptr;
  if ((rule == 2 && (!axis || !data)) || (rule == 4 && (!source || !data))) rule = 1;
  switch (rule) {
    case 1:
      dtype = DType::Float32;
      break;
    case 2: {
      const int64_t rank = std::max<int64_t>(data->rank(), 1);
      g.call.set_arg(axis->name, Arg::of_int(c.below(2) ? rank : -rank - 1));
      break;
    }
    case 3:
      shape.push_back(1);
      break;
    case 4: {
      const DType other = data->dtype() == DType::Float64 ? DType::Int64 : DType::Float64;
      g.call.tensors[g.roles.source->name] = data_tensor(c, other, source->shape());
      break;
    }
    default:
      break;
  }
  g.call.tensors[name] = Tensor::zeros(dtype, shape);
}

}  // namespace

OpCall generate_call(Choices& choices) {
  const std::vector<OpSpec>& table = op_table();
  return generate_call_for(choices, table[choices.below(static_cast<uint32_t>(table.size()))]);
}

OpCall generate_call(Choices& choices, const std::vector<const OpSpec*>& ops) {
  if (ops.empty()) return generate_call(choices);
  return generate_call_for(choices, *ops[choices.below(static_cast<uint32_t>(ops.size()))]);
}

OpCall generate_call_for(Choices& choices, const OpSpec& op) {
  if (!op.backward_of.empty()) return backward_call(choices, op);
  // The tier: kMaxLargeElements once in kLargeTierOneIn calls (the last
  // option, so shrinking leaves it), restored on return (backward_call nests).
  struct Tier {
    int64_t limit = t_max_elements;
    bool large = t_large;
    ~Tier() { t_max_elements = limit, t_large = large; }
  } const saved;
  t_large = choices.below(kLargeTierOneIn) == kLargeTierOneIn - 1;
  t_max_elements = t_large ? kMaxLargeElements : kMaxGeneratedElements;
  OpCall call;
  call.op = op.id;
  const DialectKnobs& knobs = knobs_for(op.dialect);
  if (!knobs.framework_versions.empty())
    call.framework_version =
        knobs.framework_versions[choices.below(static_cast<uint32_t>(knobs.framework_versions.size()))];
  const bool negatives_valid = knobs.negatives_in_range && knobs.negatives_in_range(call.framework_version);
  Draw draw{choices, op, roles_of(op), knobs, negatives_valid, call};
  const FamilyGen& family = family_gen(op);
  family.build(draw);
  if (choices.chance(2)) empty_index_with_violation(draw);
  // Every other argument by its declared type: not the axis (drawn with the
  // shapes) and not an operand's alternative (drawn instead of the operand).
  const ArgSpec* axis = family.axis ? axis_arg(op) : nullptr;
  for (const ArgSpec& arg : op.args) {
    if (&arg == axis) continue;
    // Drawn by the family's builder (batch_dims) and draw_onnx_args (opset, reduction).
    if (!family.own_arg.empty() && arg.name == family.own_arg) continue;
    if (knobs.opset_argument && (arg.name == "opset" || arg.name == "reduction")) continue;
    const bool is_alternative =
        std::any_of(op.operands.begin(), op.operands.end(), [&](const OperandSpec& o) { return o.or_arg == arg.name; });
    if (!is_alternative) draw_arg(choices, arg, call);
  }
  if (knobs.opset_argument) draw_onnx_args(choices, op, call);
  if (const OperandSpec* out = out_operand(op); out && choices.chance(30)) draw_out(choices, op, *out, call);
  return call;
}

}  // namespace sp::fuzz
