// gen_values.cc — the generator's value, shape and tensor draws
// (gen_detail.h): sizes and ranks, element values at the edges, index
// values, layouts.
#include <algorithm>
#include <cmath>
#include <limits>

#include "fuzz/gen_detail.h"
#include "harness/layouts.h"

namespace sp::fuzz::gen {

thread_local int64_t t_max_elements = kMaxGeneratedElements;
thread_local bool t_large = false;
thread_local bool t_row_shaped = false;

bool row_shaped(Choices& c, uint32_t percent) {
  if (!t_row_shaped && !(t_large && c.chance(percent))) return false;
  t_large = true;
  t_max_elements = kMaxLargeElements;
  return true;
}

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

namespace {

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

}  // namespace

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

namespace {

// NaN with a payload, ±inf, -0.0, extremes and the smallest subnormal for
// floats; min, max and -1 for integers.
uint64_t special_bits(Choices& c, DType t) {
  if (t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64) {
    // max, 0, the powers where narrower kinds end (2^31, 2^32, 2^63; capped
    // at t's max), 2^63 - 1 and max - 1 (capped alike), 1.
    const uint64_t max = dtype_uint_max(t);
    constexpr uint64_t kEdges[] = {uint64_t{1} << 31, uint64_t{1} << 32, uint64_t{1} << 63, (uint64_t{1} << 63) - 1};
    const uint32_t k = c.below(8);
    if (k == 0) return max;
    if (k == 1) return 0;
    if (k <= 5) return std::min(kEdges[k - 2], max);
    return k == 6 ? max - 1 : 1;
  }
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

}  // namespace

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
  // A narrower index dtype cannot hold the huge values: its extremes instead (uint64 wraps a negative v).
  const auto bits_of = [&](int64_t v) {
    if (is_integral(t) && dtype_size(t) < 8 && t != DType::Bool) v = std::clamp(v, dtype_int_min(t), dtype_int_max(t));
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
Tensor with_layout(Choices& c, Tensor t, bool read_only) {
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

}  // namespace sp::fuzz::gen
