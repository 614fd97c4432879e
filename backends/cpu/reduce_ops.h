// reduce_ops.h — the element steps of the cpu kernels' scatter_reduce-style
// reductions (torch.scatter_reduce_, torch.index_reduce_): the reduce names,
// each reduction's identity, one combining step, and mean's division.
//
//   identity: sum/mean 0, prod 1, amax -inf (integers: lowest; bool: false),
//     amin +inf (integers: max; bool: true)
//   combine: one correctly rounded op in the element's dtype (integers
//     wrap); amax/amin keep a NaN from either side, a tie keeps `a`
//   divide: float sum / count rounded once (via double), integers floor
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "backends/cpu/element.h"

namespace sp::cpu {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

inline std::optional<Reduce> parse_reduce(const std::string& s) {
  if (s == "sum") return Reduce::Sum;
  if (s == "prod") return Reduce::Prod;
  if (s == "mean") return Reduce::Mean;
  if (s == "amax") return Reduce::Amax;
  if (s == "amin") return Reduce::Amin;
  return std::nullopt;
}

template <class E>
using S = typename E::Storage;

template <class E>
bool is_nan(S<E> v) {
  if constexpr (std::is_same_v<E, HalfElem> || std::is_same_v<E, BF16Elem>)
    return std::isnan(E::load(v));
  else if constexpr (std::is_floating_point_v<S<E>>)
    return std::isnan(v);
  else
    return false;
}

template <class E>
S<E> identity(Reduce r) {
  using Storage = S<E>;
  constexpr bool kFloat = E::kFloat16Like || std::is_floating_point_v<Storage>;
  switch (r) {
    case Reduce::Sum:
    case Reduce::Mean:
      return E::kFloat16Like ? E::store(0.0f) : Storage(0);
    case Reduce::Prod:
      return E::kFloat16Like ? E::store(1.0f) : Storage(1);
    case Reduce::Amax:
      if constexpr (E::kFloat16Like) return E::store(-std::numeric_limits<float>::infinity());
      if constexpr (kFloat) return -std::numeric_limits<Storage>::infinity();
      if constexpr (std::is_same_v<E, BoolElem>) return Storage(0);
      return std::numeric_limits<Storage>::lowest();
    case Reduce::Amin:
      if constexpr (E::kFloat16Like) return E::store(std::numeric_limits<float>::infinity());
      if constexpr (kFloat) return std::numeric_limits<Storage>::infinity();
      if constexpr (std::is_same_v<E, BoolElem>) return Storage(1);
      return std::numeric_limits<Storage>::max();
  }
  return Storage(0);
}

// One step of the reduction: target `a` combined with term `b`.
template <class E>
S<E> combine(Reduce r, S<E> a, S<E> b) {
  switch (r) {
    case Reduce::Sum:
    case Reduce::Mean:
      return E::add_once(a, b);
    case Reduce::Prod:
      return E::mul_once(a, b);
    case Reduce::Amax:
    case Reduce::Amin: {
      if (is_nan<E>(a)) return a;  // NaN propagates, whichever side it is on
      if (is_nan<E>(b)) return b;
      const auto x = E::load(a), y = E::load(b);
      if (r == Reduce::Amax) return y > x ? b : a;
      return y < x ? b : a;
    }
  }
  return a;
}

// mean: sum / count, one correctly rounded division for floats (via double:
// 53 >= 2p + 2 bits, so the double rounding is innocuous for float32 and
// the 16-bit floats), floor division for integers.
template <class E>
S<E> divide(S<E> sum, int64_t count) {
  using Storage = S<E>;
  if constexpr (E::kFloat16Like) {
    const double q = static_cast<double>(E::load(sum)) / static_cast<double>(count);
    if constexpr (std::is_same_v<E, HalfElem>)
      return double_to_half_bits(q);
    else
      return double_to_bf16_bits(q);
  } else if constexpr (std::is_floating_point_v<Storage>) {
    return static_cast<Storage>(static_cast<double>(sum) / static_cast<double>(count));
  } else if constexpr (std::is_same_v<Storage, uint64_t>) {  // may not fit int64; never negative
    return static_cast<Storage>(sum / static_cast<uint64_t>(count));
  } else {
    const int64_t n = static_cast<int64_t>(sum);
    int64_t q = n / count;
    if (n % count != 0 && n < 0) --q;
    return static_cast<Storage>(q);
  }
}

}  // namespace sp::cpu
