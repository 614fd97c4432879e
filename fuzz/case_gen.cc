#include "fuzz/case_gen.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "harness/layouts.h"

namespace sp::fuzz {

Choices::Choices(uint64_t seed, std::vector<uint32_t> prefix)
    : source_(std::move(prefix)), extend_randomly_(true), rng_(static_cast<std::mt19937::result_type>(seed ^ (seed >> 32))) {}

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
constexpr std::array<DType, kNumDTypes> kDTypeOrder = {DType::Int64,   DType::Float32, DType::Float64, DType::Int32,
                                                       DType::Float16, DType::BFloat16, DType::Int16,  DType::Int8,
                                                       DType::UInt8,   DType::Bool};
constexpr std::array<const char*, 8> kInvalidReduces = {"sum", "Add", "mean", "", "multiply ", "ADD", "prod", "replace"};

DType pick_dtype(Choices& c) { return kDTypeOrder[c.below(kNumDTypes)]; }

// Mostly 1–3, sometimes 0 (a scalar) and up to 9 (over MindSpore's 8).
int64_t pick_rank(Choices& c) {
  const uint32_t r = c.below(20);
  if (r < 8) return 1;
  if (r < 14) return 2;
  if (r < 17) return 3;
  if (r == 17) return 0;
  if (r == 18) return 4;
  return c.between(5, 9);
}

int64_t pick_size(Choices& c) {
  static constexpr std::array<int64_t, 20> kSizes = {1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 0, 1, 6, 7};
  return kSizes[c.below(kSizes.size())];
}

Shape pick_shape(Choices& c, int64_t rank) {
  Shape s(static_cast<size_t>(rank));
  for (auto& d : s) d = pick_size(c);
  return s;
}

// Shrinks the largest dims until numel <= kMaxGeneratedElements.
void clamp_numel(Shape& s) {
  while (checked_numel(s) > kMaxGeneratedElements) {
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<int64_t>(1, *it / 2);
  }
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
      case 0: return bits_from_value(t, Value::of_int(dtype_int_max(t)));
      case 1: return bits_from_value(t, Value::of_int(dtype_int_min(t)));
      case 2: return bits_from_value(t, Value::of_int(t == DType::Bool ? 1 : -1));
      default: return bits_from_value(t, Value::of_int(1));
    }
  }
  switch (c.below(9)) {
    case 0: return float_bits(t, std::numeric_limits<double>::quiet_NaN());
    case 1:  // a quiet NaN with payload 1: its bits must survive untouched
      switch (t) {
        case DType::Float16: return 0x7e01;
        case DType::BFloat16: return 0x7fc1;
        case DType::Float32: return 0x7fc00001;
        default: return 0x7ff8000000000001ull;
      }
    case 2: return float_bits(t, std::numeric_limits<double>::infinity());
    case 3: return float_bits(t, -std::numeric_limits<double>::infinity());
    case 4: return float_bits(t, -0.0);
    case 5: return float_bits(t, dtype_max(t));
    case 6: return float_bits(t, dtype_lowest(t));
    case 7: return 1;  // smallest positive subnormal
    default: return float_bits(t, 0.1);
  }
}

uint64_t ordinary_bits(Choices& c, DType t) {
  if (t == DType::Bool) return c.below(2);
  const int64_t v = zigzag(c.below(9));
  if (is_floating(t) && c.chance(20)) return float_bits(t, static_cast<double>(v) + 0.5);
  return is_floating(t) ? float_bits(t, static_cast<double>(v)) : bits_from_value(t, Value::of_int(v));
}

// Fills a fresh contiguous tensor: small values, one repeated value, or
// small values sprinkled with special ones.
Tensor data_tensor(Choices& c, DType t, const Shape& shape) {
  Tensor out = Tensor::zeros(t, shape);
  if (out.numel() == 0) return out;
  const uint32_t mode = c.below(5);
  const uint64_t repeated = mode == 1 ? ordinary_bits(c, t) : 0;
  Shape idx(shape.size(), 0);
  do {
    uint64_t bits = 0;
    if (mode == 1)
      bits = repeated;
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
      switch (c.below(20)) {
        case 14: v = s - 1; break;
        case 15: v = 0; break;
        case 16: v = -1; break;
        case 17: v = -s; break;
        case 18: v = s; break;
        case 19: v = -s - 1; break;
        default: v = in_range();
      }
    }
    const Value value = is_floating(t) ? Value::of_float(static_cast<double>(v)) : Value::of_int(v);
    out.set_bits_at(idx, bits_from_value(t, value));
  } while (next_index(idx, shape));
  return out;
}

DType pick_index_dtype(Choices& c) {
  const uint32_t r = c.below(40);
  if (r < 34) return DType::Int64;
  if (r < 38) return DType::Int32;
  static constexpr std::array<DType, 4> kOdd = {DType::Int16, DType::UInt8, DType::Float32, DType::Bool};
  return kOdd[r - 38 + 2 * c.below(2)];
}

// Re-lays a tensor out: contiguous, transposed, gapped, offset, or stride 0
// along a dim whose values are made constant (on a written operand that is
// an overlapping in-place call, a documented error).
Tensor with_layout(Choices& c, Tensor t) {
  const uint32_t r = c.below(12);
  if (r < 7 || t.numel() == 0) return t;
  Shape strides = contiguous_strides(t.shape());
  if (r == 7 && t.rank() >= 2) {
    // Column-major in the last two dims; the outer dims keep their strides.
    const size_t a = strides.size() - 2, b = strides.size() - 1;
    strides[a] = 1;
    strides[b] = std::max<int64_t>(t.size(static_cast<int64_t>(a)), 1);
    return place_with_layout(t, strides, 0);
  }
  if (r == 8) {
    for (auto& s : strides) s *= 2;
    return place_with_layout(t, strides, 0);
  }
  if (r == 9 || t.rank() == 0) return place_with_layout(t, strides, c.between(1, 5));
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
  if (s.empty() || c.below(2)) s.push_back(1 + c.below(2));
  else s.pop_back();
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

Scalar pick_value(Choices& c) {
  switch (c.below(3)) {
    case 0: {
      if (!c.chance(20)) return Scalar::of_int(zigzag(c.below(9)));
      static constexpr std::array<int64_t, 7> kBig = {128, 256, -129, 40000, int64_t{1} << 31,
                                                      std::numeric_limits<int64_t>::max(),
                                                      std::numeric_limits<int64_t>::min()};
      return Scalar::of_int(kBig[c.below(kBig.size())]);
    }
    case 1: {
      if (!c.chance(25)) return Scalar::of_float(static_cast<double>(zigzag(c.below(9))) * 0.75);
      static constexpr std::array<double, 8> kOdd = {std::numeric_limits<double>::quiet_NaN(),
                                                     std::numeric_limits<double>::infinity(),
                                                     -std::numeric_limits<double>::infinity(),
                                                     -0.0, 1e40, 65504.0, 70000.0, 3.4e38};
      return Scalar::of_float(kOdd[c.below(kOdd.size())]);
    }
    default: return Scalar::of_bool(c.below(2) == 1);
  }
}

std::optional<std::string> pick_reduce(Choices& c) {
  const uint32_t r = c.below(20);
  if (r < 11) return std::nullopt;
  if (r < 14) return std::string("add");
  if (r < 18) return std::string("multiply");
  return std::string(kInvalidReduces[c.below(kInvalidReduces.size())]);
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

void torch_gather(Choices& c, OpCall& call) {
  const DType t = pick_dtype(c);
  const int64_t rank = pick_rank(c);
  Shape in_shape = pick_shape(c, rank);
  clamp_numel(in_shape);
  const int64_t r = std::max<int64_t>(rank, 1);
  call.set_arg("dim", Arg::of_int(pick_dim(c, r)));
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + r : *call.int_arg("dim");
  const Shape logical = rank == 0 ? Shape{1} : in_shape;
  Shape x_shape = rank == 0 ? Shape{} : index_shape_within(c, logical, dim);
  if (c.chance(3)) x_shape = change_rank(c, x_shape);
  const int64_t s = dim >= 0 && dim < r ? logical[static_cast<size_t>(dim)] : 1;
  call.tensors["input"] = with_layout(c, data_tensor(c, t, in_shape));
  call.tensors["index"] = with_layout(c, index_tensor(c, pick_index_dtype(c), x_shape, s, false));
}

void torch_scatter(Choices& c, OpCall& call, bool add_only) {
  const DType t = pick_dtype(c);
  const int64_t rank = pick_rank(c);
  Shape self_shape = pick_shape(c, rank);
  clamp_numel(self_shape);
  const int64_t r = std::max<int64_t>(rank, 1);
  call.set_arg("dim", Arg::of_int(pick_dim(c, r)));
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + r : *call.int_arg("dim");
  const Shape logical = rank == 0 ? Shape{1} : self_shape;
  Shape x_shape = rank == 0 ? Shape{} : index_shape_within(c, logical, dim);
  const bool use_value = !add_only && c.chance(25);
  Shape src_shape = x_shape;
  for (auto& d : src_shape)
    if (c.chance(25)) d += 1;
  if (checked_numel(src_shape) > kMaxGeneratedElements) src_shape = x_shape;
  if (!src_shape.empty() && c.chance(3)) src_shape[c.below(static_cast<uint32_t>(src_shape.size()))] -= 1;
  for (auto& d : src_shape) d = std::max<int64_t>(d, 0);
  if (c.chance(3)) x_shape = change_rank(c, x_shape);
  const int64_t s = dim >= 0 && dim < r ? logical[static_cast<size_t>(dim)] : 1;
  call.tensors["self"] = with_layout(c, data_tensor(c, t, self_shape));
  call.tensors["index"] = with_layout(c, index_tensor(c, pick_index_dtype(c), x_shape, s, false));
  if (use_value) {
    call.set_arg("value", Arg::of_scalar(pick_value(c)));
  } else {
    const DType src_t = c.chance(3) ? pick_dtype(c) : t;
    call.tensors["src"] = with_layout(c, data_tensor(c, src_t, src_shape));
  }
  if (!add_only) if (auto reduce = pick_reduce(c)) call.set_arg("reduce", Arg::of_string(*reduce));
}

void mindspore_scatter(Choices& c, OpCall& call) {
  static constexpr std::array<const char*, 3> kVersions = {"", "2.3", "2.10"};
  call.doc_version = kVersions[c.below(kVersions.size())];
  const bool negatives_valid = call.doc_version != "2.10";
  const DType t = pick_dtype(c);
  const int64_t rank = pick_rank(c);
  Shape self_shape = pick_shape(c, rank);
  clamp_numel(self_shape);
  call.set_arg("dim", Arg::of_int(pick_dim(c, rank)));
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  Shape x_shape = index_shape_within(c, self_shape, -1);
  Shape src_shape = x_shape;
  for (auto& d : src_shape)
    if (c.chance(25)) d += 1;
  if (checked_numel(src_shape) > kMaxGeneratedElements) src_shape = x_shape;
  if (!src_shape.empty() && c.chance(3)) src_shape[c.below(static_cast<uint32_t>(src_shape.size()))] -= 1;
  for (auto& d : src_shape) d = std::max<int64_t>(d, 0);
  if (c.chance(3)) x_shape = change_rank(c, x_shape);
  const int64_t s = dim >= 0 && dim < rank ? self_shape[static_cast<size_t>(dim)] : 1;
  const DType index_t = c.chance(30) ? DType::Int32 : pick_index_dtype(c);
  call.tensors["self"] = with_layout(c, data_tensor(c, t, self_shape));
  call.tensors["index"] = with_layout(c, index_tensor(c, index_t, x_shape, s, negatives_valid));
  if (c.chance(20)) {
    call.set_arg("value", Arg::of_scalar(pick_value(c)));
  } else {
    const DType src_t = c.chance(3) ? pick_dtype(c) : t;
    call.tensors["src"] = with_layout(c, data_tensor(c, src_t, src_shape));
  }
  if (auto reduce = pick_reduce(c)) call.set_arg("reduce", Arg::of_string(*reduce));
}

void paddle_scatter(Choices& c, OpCall& call) {
  const DType t = pick_dtype(c);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(50)) rank = 1;
  Shape x_shape = pick_shape(c, rank);
  clamp_numel(x_shape);
  const int64_t rows = x_shape.empty() ? 1 : x_shape[0];
  const int64_t m = c.chance(10) ? 0 : c.between(1, std::min<int64_t>(std::max<int64_t>(rows, 1) + 1, 5));
  Shape updates_shape = x_shape.empty() ? Shape{m} : x_shape;
  updates_shape[0] = m;
  clamp_numel(updates_shape);
  const int64_t m_final = updates_shape[0];
  Shape index_shape{m_final};
  if (c.chance(3)) index_shape = Shape{m_final, 1};
  if (c.chance(3)) updates_shape = change_rank(c, updates_shape);
  const DType index_t = c.chance(30) ? DType::Int32 : pick_index_dtype(c);
  call.tensors["x"] = with_layout(c, data_tensor(c, t, x_shape));
  call.tensors["index"] = with_layout(c, index_tensor(c, index_t, index_shape, rows, false));
  const DType u_t = c.chance(3) ? pick_dtype(c) : t;
  call.tensors["updates"] = with_layout(c, data_tensor(c, u_t, updates_shape));
  const uint32_t mode = c.below(3);
  if (mode > 0) call.set_arg("overwrite", Arg::of_bool(mode == 1));
}

}  // namespace

OpCall generate_call(Choices& choices) {
  static const std::array<const char*, 7> kOps = {"torch.gather",       "torch.scatter_",     "torch.scatter",
                                                  "torch.scatter_add_", "torch.scatter_add",  "mindspore.scatter_",
                                                  "paddle.scatter"};
  OpCall call;
  call.op = kOps[choices.below(kOps.size())];
  if (call.op == "torch.gather")
    torch_gather(choices, call);
  else if (call.op == "mindspore.scatter_")
    mindspore_scatter(choices, call);
  else if (call.op == "paddle.scatter")
    paddle_scatter(choices, call);
  else
    torch_scatter(choices, call, call.op == "torch.scatter_add_" || call.op == "torch.scatter_add");
  return call;
}

}  // namespace sp::fuzz
