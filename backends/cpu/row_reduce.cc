// row_reduce.cc — the sorted whole-row reduction (row_reduce.h).
#include "backends/cpu/row_reduce.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <vector>

#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/tuning.h"

namespace sp::cpu {
namespace {

// How far ahead source rows are prefetched, in bytes of rows, comes from the
// caches (tuning.h); of one row, at most half of that is prefetched (the
// hardware prefetcher streams the rest of a long one).
// Shares of the sorted positions per thread: a thread slowed by other
// processes takes fewer (ThreadPool::run hands them out as threads come).
constexpr int kSharesPerThread = 4;
// Per-share accumulator space is bounded: fewer shares for very long rows.
constexpr int64_t kScratchBytesCap = int64_t{64} << 20;

// Stable counting sort of the positions by target row: order[start[r] ..
// start[r + 1]) are row r's positions, in index order. Each of `parts`
// threads counts and places its own contiguous chunk of the index. False when
// a value is out of range (nothing written yet).
template <class I>
bool sort_by_target(const RowReduceArgs& g, ThreadPool& pool, int parts, std::vector<int64_t>& start,
                    std::vector<int64_t>& order, std::vector<int64_t>& cursor) {
  const I* x = reinterpret_cast<const I*>(g.index);
  const int64_t S = g.S, K = g.K, stride = g.index_stride, lo = g.index_lo;
  cursor.assign(static_cast<size_t>(parts * S), 0);
  std::atomic<bool> bad{false};
  pool.run(parts, [&](int p) {
    int64_t* count = cursor.data() + p * S;
    const int64_t k1 = split_point(K, parts, p + 1);
    for (int64_t k = split_point(K, parts, p); k < k1; ++k) {
      const auto v = static_cast<int64_t>(x[k * stride]);
      if (v < lo || v >= S) [[unlikely]] {
        bad.store(true, std::memory_order_relaxed);
        return;
      }
      ++count[v < 0 ? v + S : v];
    }
  });
  if (bad.load()) return false;
  // Row r starts after every earlier row; within it, chunk p after chunks < p.
  start.assign(static_cast<size_t>(S + 1), 0);
  int64_t total = 0;
  for (int64_t r = 0; r < S; ++r) {
    start[static_cast<size_t>(r)] = total;
    for (int p = 0; p < parts; ++p) {
      int64_t& c = cursor[static_cast<size_t>(p * S + r)];
      const int64_t n = c;
      c = total;
      total += n;
    }
  }
  start[static_cast<size_t>(S)] = total;
  order.resize(static_cast<size_t>(K));
  pool.run(parts, [&](int p) {
    int64_t* next = cursor.data() + p * S;
    const int64_t k1 = split_point(K, parts, p + 1);
    for (int64_t k = split_point(K, parts, p); k < k1; ++k) {
      const auto v = static_cast<int64_t>(x[k * stride]);
      order[static_cast<size_t>(next[v < 0 ? v + S : v]++)] = k;
    }
  });
  return true;
}

template <class E, Reduce R>
class Rows {
  using St = typename E::Storage;
  using A = typename E::Acc;
  static constexpr bool kMean = R == Reduce::Mean;

 public:
  Rows(const RowReduceArgs& g, const std::vector<int64_t>& start, const std::vector<int64_t>& order)
      : g_(g),
        start_(start),
        order_(order),
        self_(reinterpret_cast<St*>(g.self)),
        src_(reinterpret_cast<const St*>(g.src)),
        row_bytes_(g.L * static_cast<int64_t>(sizeof(St))),
        ahead_(std::clamp<int64_t>(tuning().prefetch_ahead_bytes / std::max<int64_t>(row_bytes_, 1), 2, 16)),
        prefetch_row_bytes_(std::min(row_bytes_, tuning().prefetch_ahead_bytes / 2)),
        start_value_(E::load(identity<E>(R))),
        // A partial starts from the neutral element: -0.0, not +0.0, for
        // float sums (-0.0 + -0.0 must stay -0.0).
        neutral_(R == Reduce::Sum || R == Reduce::Mean ? static_cast<A>(-0.0) : start_value_) {
    if (g.alpha_bits) {
      St alpha;
      std::memcpy(&alpha, &*g.alpha_bits, sizeof(St));  // little-endian: the low bytes
      // alpha 1 leaves every term as it is (x * 1 == x; a NaN stays a NaN).
      const St one = identity<E>(Reduce::Prod);
      if (std::memcmp(&alpha, &one, sizeof(St)) != 0) alpha_ = alpha;
    }
  }

  // Reduces the sorted positions [b, e). Rows wholly inside are finished in
  // self; a row cut at b or e leaves its partial in first / last (rows
  // first_row / last_row, -1 when none).
  void share(int64_t b, int64_t e, A* acc, A* first, A* last, int64_t& first_row, int64_t& last_row) const {
    first_row = last_row = -1;
    if (b >= e) return;
    const int64_t L = g_.L;
    // The row holding position b: the last r with start[r] <= b.
    auto r = static_cast<int64_t>(std::upper_bound(start_.begin(), start_.end(), b) - start_.begin()) - 1;
    for (int64_t q = b; q < e;) {
      while (start_[static_cast<size_t>(r + 1)] <= q) ++r;  // skip rows nothing targets
      const int64_t s0 = start_[static_cast<size_t>(r)], s1 = start_[static_cast<size_t>(r + 1)];
      const int64_t q1 = std::min(s1, e);
      const bool whole = s0 >= b && s1 <= e;
      St* row = self_ + r * g_.self_row;
      A* dst = whole ? acc : q == b ? first : last;
      if (!whole) (q == b ? first_row : last_row) = r;
      const auto start_row = [&] {
        if (!whole)
          std::fill(dst, dst + L, neutral_);
        else if (g_.include_self)
          for (int64_t j = 0; j < L; ++j) dst[j] = E::load(row[j]);
        else
          std::fill(dst, dst + L, start_value_);
      };
      start_row();
      bool nan_term = false;
      for (int64_t i = q; i < q1; ++i) {
        if (i + ahead_ < e) prefetch_row(src_ + order_[static_cast<size_t>(i + ahead_)] * g_.src_row);
        nan_term |= accumulate(dst, src_ + order_[static_cast<size_t>(i)] * g_.src_row);
      }
      if (nan_term) {  // amax/amin met a NaN term: this row again, by step()'s rules
        start_row();
        for (int64_t i = q; i < q1; ++i) accumulate_exact(dst, src_ + order_[static_cast<size_t>(i)] * g_.src_row);
      }
      if (whole) finish(row, dst, s1 - s0);
      q = q1;
    }
  }

  // Row r from its own value (or the identity) and its partials, in share order.
  void merge(int64_t r, const std::vector<const A*>& partials, A* acc) const {
    const int64_t L = g_.L;
    St* row = self_ + r * g_.self_row;
    if (g_.include_self)
      for (int64_t j = 0; j < L; ++j) acc[j] = E::load(row[j]);
    else
      std::fill(acc, acc + L, start_value_);
    for (const A* part : partials)
      for (int64_t j = 0; j < L; ++j) acc[j] = step(acc[j], part[j]);
    finish(row, acc, start_[static_cast<size_t>(r + 1)] - start_[static_cast<size_t>(r)]);
  }

 private:
  static A step(A acc, A t) {
    if constexpr (R == Reduce::Sum || R == Reduce::Mean) {
      return E::add(acc, t);
    } else if constexpr (R == Reduce::Prod) {
      return E::mul(acc, t);
    } else {
      // A NaN propagates, whichever side it is on (acc's first).
      const A better = R == Reduce::Amax ? (t > acc ? t : acc) : (t < acc ? t : acc);
      const A with_t_nan = t != t ? t : better;
      return acc != acc ? acc : with_t_nan;
    }
  }

  // Combines one source row into acc. amax/amin take the larger (smaller)
  // term by one compare and select, which vectorises to maxps/minps; that
  // select keeps acc when the term is a NaN, so it reports a NaN term (true)
  // and share() redoes the row with step(), whose rules propagate it.
  bool accumulate(A* __restrict acc, const St* __restrict src) const {
    if constexpr (R == Reduce::Amax || R == Reduce::Amin) {
      const int64_t L = g_.L;
      int nan = 0;  // an int, not a bool: GCC vectorises an int OR-reduction
      for (int64_t j = 0; j < L; ++j) {
        const A t = E::load(src[j]);
        acc[j] = R == Reduce::Amax ? (t > acc[j] ? t : acc[j]) : (t < acc[j] ? t : acc[j]);
        nan |= t != t ? 1 : 0;
      }
      return nan != 0;
    } else {
      accumulate_exact(acc, src);
      return false;
    }
  }

  void accumulate_exact(A* acc, const St* src) const {
    const int64_t L = g_.L;
    if (alpha_) {
      const St alpha = *alpha_;
      for (int64_t j = 0; j < L; ++j) acc[j] = step(acc[j], E::load(E::mul_once(alpha, src[j])));
    } else {
      for (int64_t j = 0; j < L; ++j) acc[j] = step(acc[j], E::load(src[j]));
    }
  }

  void finish(St* row, const A* acc, int64_t terms) const {
    const int64_t L = g_.L;
    if constexpr (kMean) {
      const int64_t n = terms + (g_.include_self ? 1 : 0);
      for (int64_t j = 0; j < L; ++j) row[j] = divide<E>(E::store(acc[j]), n);
    } else {
      for (int64_t j = 0; j < L; ++j) row[j] = E::store(acc[j]);
    }
  }

  void prefetch_row(const St* row) const {
    const auto* bytes = reinterpret_cast<const char*>(row);
    const int64_t n = prefetch_row_bytes_;
    for (int64_t b = 0; b < n; b += 64) prefetch_line(bytes + b);
    prefetch_line(bytes + n - 1);
  }

  const RowReduceArgs& g_;
  const std::vector<int64_t>& start_;
  const std::vector<int64_t>& order_;
  St* self_;
  const St* src_;
  int64_t row_bytes_, ahead_, prefetch_row_bytes_;
  A start_value_;  // a targeted row's start without include_self: the identity
  A neutral_;
  std::optional<St> alpha_;
};

template <class E, Reduce R>
void reduce_sorted(const RowReduceArgs& g, ThreadPool& pool, int threads, const std::vector<int64_t>& start,
                   const std::vector<int64_t>& order, std::vector<std::byte>& bytes) {
  using A = typename E::Acc;
  const Rows<E, R> rows(g, start, order);
  const int64_t L = g.L;
  const int64_t per_share = 3 * L * static_cast<int64_t>(sizeof(A));
  int shares = threads == 1 ? 1 : threads * kSharesPerThread;
  shares = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(shares, kScratchBytesCap / per_share), 1, g.K));
  // operator new aligns the bytes for any A; every slot is written before it is read.
  bytes.resize(static_cast<size_t>(shares * per_share));
  A* scratch = reinterpret_cast<A*>(bytes.data());
  std::vector<std::array<int64_t, 2>> cut(static_cast<size_t>(shares));
  auto space = [&](int s, int slot) { return scratch + (static_cast<int64_t>(s) * 3 + slot) * L; };
  pool.run(shares, [&](int s) {
    rows.share(split_point(g.K, shares, s), split_point(g.K, shares, s + 1), space(s, 0), space(s, 1), space(s, 2),
               cut[static_cast<size_t>(s)][0], cut[static_cast<size_t>(s)][1]);
  });
  // Cut rows come in increasing order across shares: merge each once.
  std::vector<const A*> partials;
  std::vector<A> acc(static_cast<size_t>(L));
  int64_t current = -1;
  for (int s = 0; s < shares; ++s) {
    for (int slot = 0; slot < 2; ++slot) {
      const int64_t r = cut[static_cast<size_t>(s)][static_cast<size_t>(slot)];
      if (r < 0) continue;
      if (r != current) {
        if (current >= 0) rows.merge(current, partials, acc.data());
        partials.clear();
        current = r;
      }
      partials.push_back(space(s, 1 + slot));
    }
  }
  if (current >= 0) rows.merge(current, partials, acc.data());
}

}  // namespace

RowReduceArgs walk_row_args(const IndexWalk& w, int64_t o, DType dtype, DType index_dtype, std::byte* a,
                            const std::byte* x, const std::byte* p) {
  const Offsets base = w.outer_offsets(o);
  const auto element = static_cast<int64_t>(dtype_size(dtype));
  RowReduceArgs g;
  g.dtype = dtype;
  g.index_dtype = index_dtype;
  g.index = x + base.x * static_cast<int64_t>(dtype_size(index_dtype));
  g.index_stride = w.along.x;
  g.K = w.K;
  g.S = w.S;
  g.L = w.inner_count();
  g.self = a + base.a * element;
  g.self_row = w.along.a;
  g.src = p + base.p * element;
  g.src_row = w.along.p;
  return g;
}

bool row_reduce_applies(int64_t K, int64_t S, int64_t L, int threads) {
  return L >= kMinRowElements && K > 0 && S <= 4 * K + 65536 && L <= (kScratchBytesCap / 24) &&
         static_cast<int64_t>(threads) * S <= int64_t{1} << 28;
}

bool row_reduce(const RowReduceArgs& g, ThreadPool& pool, RowReduceScratch* keep) {
  RowReduceScratch local;
  RowReduceScratch& space = keep ? *keep : local;
  const int threads = threads_for(g.K * g.L, pool);
  const int sort_parts = g.K >= kMinParallelWork ? threads : 1;
  const bool in_range = g.index_dtype == DType::Int32
                            ? sort_by_target<int32_t>(g, pool, sort_parts, space.start, space.order, space.cursor)
                            : sort_by_target<int64_t>(g, pool, sort_parts, space.start, space.order, space.cursor);
  if (in_range) {
    dispatch_dtype(g.dtype, [&]<class E>(E) {
      switch (g.reduce) {
        case Reduce::Sum:
          return reduce_sorted<E, Reduce::Sum>(g, pool, threads, space.start, space.order, space.accumulators);
        case Reduce::Prod:
          return reduce_sorted<E, Reduce::Prod>(g, pool, threads, space.start, space.order, space.accumulators);
        case Reduce::Mean:
          if constexpr (!std::is_same_v<E, BoolElem>)
            return reduce_sorted<E, Reduce::Mean>(g, pool, threads, space.start, space.order, space.accumulators);
          return;
        case Reduce::Amax:
          return reduce_sorted<E, Reduce::Amax>(g, pool, threads, space.start, space.order, space.accumulators);
        case Reduce::Amin:
          return reduce_sorted<E, Reduce::Amin>(g, pool, threads, space.start, space.order, space.accumulators);
      }
    });
  }
  const size_t kept = (space.start.capacity() + space.cursor.capacity() + space.order.capacity()) * sizeof(int64_t) +
                      space.accumulators.capacity();
  if (kept > RowReduceScratch::kKeptBytes) space = RowReduceScratch{};
  return in_range;
}

}  // namespace sp::cpu
