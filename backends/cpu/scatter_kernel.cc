// scatter_kernel.cc — scatter / scatter-reduce over a validated walk.
//
// Race freedom: two index positions can hit the same element of self only
// when they share the outer and inner coordinates (o, l), so the strategies
// below either split (o, l) among threads, or split the *targets*, or keep
// private accumulators merged afterwards. Overwrites always leave the last
// writer in row-major index order (the reference's visit order), whatever
// the thread count, so runs are reproducible.
#include <array>
#include <atomic>
#include <cstring>

#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/row_reduce.h"
#include "backends/cpu/tuning.h"

namespace sp::cpu {
namespace {

// Rows at least this long take the sorted path; shorter rows scan.
constexpr int64_t kWideRow = 16;
// Cap on the private accumulators of the narrow-row reduce path, and on
// the part of them the backend keeps for the next call.
constexpr int64_t kPrivateBytesCap = int64_t{512} << 20;
constexpr size_t kKeptScratchBytes = size_t{64} << 20;
// Positions per work unit of the narrow-row reduce path: threads claim
// units as they go, so a thread slowed by other processes does less.
constexpr int64_t kPrivateChunk = int64_t{1} << 16;

template <class E, class I, ScatterOp Op>
class Scatter {
  using S = typename E::Storage;
  using A = typename E::Acc;

 public:
  Scatter(const ScatterArgs& args, ThreadPool& pool)
      : w_(args.walk),
        a_(reinterpret_cast<S*>(args.a)),
        x_(reinterpret_cast<const I*>(args.x)),
        p_(reinterpret_cast<const S*>(args.p)),
        dtype_(args.dtype),
        zero_first_(args.zero_targets_first),
        check_bounds_(args.check_index_from.has_value()),
        index_from_(args.check_index_from.value_or(0)),
        scratch_(args.scratch),
        row_scratch_(args.row_scratch),
        pool_(pool),
        last_(w_.inner.empty() ? Axis{} : w_.inner.back()),
        L_(w_.inner_count()),
        O_(w_.outer_count()) {}

  // False when an index value is out of range (self untouched).
  bool run() {
    const int threads = threads_for(O_ * w_.K * L_, pool_);
    const bool split = threads == 1 || O_ >= 2 * threads || !w_.index_row_constant();
    const bool reduce_privately = !split && L_ < kWideRow && Op != ScatterOp::Overwrite && private_fits(threads);
    // The private path writes self only in its merges, one per outer
    // position: with a single one it checks the index as it reads it.
    // Overwrites along the last dim check each value as they write it
    // (reference/SEMANTICS.md SE-2: before index_out_of_bounds a partial
    // write is allowed), which saves a whole read of the index.
    const bool fuse_check = check_bounds_ && Op == ScatterOp::Overwrite && split && w_.inner.empty() && !zero_first_;
    if (fuse_check) return run_rows_checked(threads);
    if (check_bounds_ && !(reduce_privately && O_ == 1)) {
      if (!all_in_range()) return false;
      check_bounds_ = false;
    }
    if (reduce_privately) return run_private(threads);
    if (!split && rows_reduce_sorted(threads)) {
      run_row_reduce();
      return true;
    }
    if (split)
      run_split_positions(threads);
    else if (L_ >= kWideRow)
      run_sorted(threads);
    else
      run_target_ranges(threads);
    return true;
  }

 private:
  // -0.0, not +0.0, is the additive identity of IEEE floats (-0.0 + -0.0
  // must stay -0.0); for integers and bool it is plain 0.
  static constexpr A kIdentity = Op == ScatterOp::Multiply ? A(1) : static_cast<A>(-0.0);

  // v in [index_from_, S): one unsigned compare.
  bool in_range(int64_t v) const {
    return static_cast<uint64_t>(v - index_from_) < static_cast<uint64_t>(w_.S - index_from_);
  }
  // Every index value of the walk in range? For the paths that write self
  // as they go.
  bool all_in_range() const {
    const int64_t rows = O_ * w_.K;
    const bool row_const = w_.index_row_constant();
    const int parts = parts_for(row_const ? rows : rows * L_, pool_);
    std::atomic<bool> ok{true};
    pool_.run(parts, [&](int part) {
      const int64_t r1 = split_point(rows, parts, part + 1);
      for (int64_t r = split_point(rows, parts, part); r < r1 && ok.load(std::memory_order_relaxed);) {
        const int64_t o = r / w_.K, k_end = std::min(w_.K, r1 - o * w_.K);
        const I* x = x_ + w_.outer_offsets(o).x;
        bool good = true;
        const int64_t k0 = r - o * w_.K;
        if (row_const && w_.along.x == 1) {
          for (int64_t k = k0; k < k_end; ++k) good &= in_range(static_cast<int64_t>(x[k]));  // vectorizable
        } else {
          for (int64_t k = k0; k < k_end; ++k) {
            const I* xk = x + k * w_.along.x;
            if (row_const) {
              good &= in_range(static_cast<int64_t>(*xk));
            } else {
              w_.for_inner_runs(0, L_, [&](Offsets off, int64_t, int64_t n) {
                for (int64_t j = 0; j < n; ++j) good &= in_range(static_cast<int64_t>(xk[off.x + j * last_.x]));
              });
            }
          }
        }
        if (!good) ok.store(false, std::memory_order_relaxed);
        r = o * w_.K + k_end;
      }
    });
    return ok.load();
  }

  int64_t target(const I* xi) const {
    const auto v = static_cast<int64_t>(*xi);
    return v < 0 ? v + w_.S : v;
  }
  static void combine(S& dst, S src) {
    if constexpr (Op == ScatterOp::Overwrite)
      dst = src;
    else if constexpr (Op == ScatterOp::Add)
      dst = E::add_once(dst, src);
    else
      dst = E::mul_once(dst, src);
  }
  static A accumulate(A acc, A term) {
    if constexpr (Op == ScatterOp::Multiply)
      return E::mul(acc, term);
    else
      return E::add(acc, term);
  }
  // dst (strides last_.a) op= src (strides last_.p) over n elements.
  void row_combine(S* dst, const S* src, int64_t n) const {
    if (last_.a == 1 && last_.p == 1) {
      for (int64_t j = 0; j < n; ++j) combine(dst[j], src[j]);  // unit stride: vectorizable
    } else {
      for (int64_t j = 0; j < n; ++j) combine(dst[j * last_.a], src[j * last_.p]);
    }
  }
  void zero_row(S* dst) const {
    w_.for_inner_runs(0, L_, [&](Offsets off, int64_t, int64_t n) {
      for (int64_t j = 0; j < n; ++j) dst[off.a + j * last_.a] = S{};
    });
  }
  void load_row(A* acc, const S* row) const {
    w_.for_inner_runs(0, L_, [&](Offsets off, int64_t l, int64_t n) {
      for (int64_t j = 0; j < n; ++j) acc[l + j] = E::load(row[off.a + j * last_.a]);
    });
  }
  void store_row(S* row, const A* acc) const {
    w_.for_inner_runs(0, L_, [&](Offsets off, int64_t l, int64_t n) {
      for (int64_t j = 0; j < n; ++j) row[off.a + j * last_.a] = E::store(acc[l + j]);
    });
  }
  // acc[l] op= src row (positional strides).
  void accumulate_row(A* acc, const S* src) const {
    w_.for_inner_runs(0, L_, [&](Offsets off, int64_t l, int64_t n) {
      if (last_.p == 1) {
        for (int64_t j = 0; j < n; ++j) acc[l + j] = accumulate(acc[l + j], E::load(src[off.p + j]));
      } else {
        for (int64_t j = 0; j < n; ++j) acc[l + j] = accumulate(acc[l + j], E::load(src[off.p + j * last_.p]));
      }
    });
  }
  // The starting value of a targeted row: self, or zero in accumulate mode.
  void base_row(A* acc, const S* row) const {
    if (zero_first_)
      std::fill(acc, acc + L_, A(0));
    else
      load_row(acc, row);
  }

  // The src rows of the sorted path come in target order, i.e. from random
  // places: fetching a few rows ahead hides the latency of the jumps.
  static constexpr int64_t kPrefetchAhead = 4;
  void prefetch_row(const S* row) const {
    if (w_.inner.size() != 1 || last_.p != 1) return;  // only a single unit-stride run is worth it
    const auto* bytes = reinterpret_cast<const char*>(row);
    for (int64_t b = 0; b < L_ * static_cast<int64_t>(sizeof(S)); b += 64) prefetch_line(bytes + b);
  }

  // Random accumulator reads are prefetched this many positions ahead when
  // the targets span more than tuning().cached_target_bytes (a quarter of L2).
  static constexpr int64_t kAccumulatorAhead = 32;

  // Visits every position of outer o within inner range [l0, l1), in
  // row-major order; Zero sets targets to zero instead of combining.
  template <bool Zero>
  void visit(int64_t o, int64_t l0, int64_t l1) const {
    const Offsets base = w_.outer_offsets(o);
    S* a = a_ + base.a;
    const I* x = x_ + base.x;
    const S* p = p_ + base.p;
    if (w_.inner.empty()) {
      // Scatter along the last (coalesced) dim: one index read per element.
      if (!Zero && Op != ScatterOp::Overwrite && w_.along.x == 1 && w_.along.p == 1 && w_.along.a == 1 &&
          w_.S * static_cast<int64_t>(sizeof(S)) > tuning().cached_target_bytes) {
        // Targets spread past the cache: prefetch each one ahead (values checked).
        const int64_t k_ahead = w_.K - kAccumulatorAhead;
        for (int64_t k = 0; k < w_.K; ++k) {
          if (k < k_ahead) prefetch_line(a + target(x + k + kAccumulatorAhead));
          combine(a[target(x + k)], p[k]);
        }
        return;
      }
      for (int64_t k = 0; k < w_.K; ++k) {
        S& dst = a[target(x + k * w_.along.x) * w_.along.a];
        if constexpr (Zero)
          dst = S{};
        else
          combine(dst, p[k * w_.along.p]);
      }
      return;
    }
    const bool row_const = w_.index_row_constant();
    for (int64_t k = 0; k < w_.K; ++k) {
      const I* xk = x + k * w_.along.x;
      const S* pk = p + k * w_.along.p;
      if (row_const) {
        // Index expanded along the inner dims: one read addresses a row.
        S* arow = a + target(xk) * w_.along.a;
        w_.for_inner_runs(l0, l1, [&](Offsets off, int64_t, int64_t n) {
          if constexpr (Zero) {
            for (int64_t j = 0; j < n; ++j) arow[off.a + j * last_.a] = S{};
          } else {
            row_combine(arow + off.a, pk + off.p, n);
          }
        });
      } else {
        w_.for_inner_runs(l0, l1, [&](Offsets off, int64_t, int64_t n) {
          for (int64_t j = 0; j < n; ++j) {
            S& dst = a[target(xk + off.x + j * last_.x) * w_.along.a + off.a + j * last_.a];
            if constexpr (Zero)
              dst = S{};
            else
              combine(dst, pk[off.p + j * last_.p]);
          }
        });
      }
    }
  }

  // Splits (outer, inner-chunk) units among threads; no two units share a target.
  void run_split_positions(int threads) {
    int64_t per_o = 1;
    if (threads > 1 && O_ < 2 * threads)
      per_o = std::clamp<int64_t>((2 * threads + O_ - 1) / O_, 1, std::max<int64_t>(L_ / kWideRow, 1));
    const int64_t chunk = (L_ + per_o - 1) / per_o;
    const int64_t units = O_ * per_o;
    threads = static_cast<int>(std::clamp<int64_t>(threads, 1, units));
    pool_.run(threads, [&](int tid) {
      for (int64_t u = split_point(units, threads, tid); u < split_point(units, threads, tid + 1); ++u) {
        const int64_t o = u / per_o, c = u % per_o;
        const int64_t l0 = c * chunk, l1 = std::min(L_, l0 + chunk);
        if (zero_first_) visit<true>(o, l0, l1);
        visit<false>(o, l0, l1);
      }
    });
  }

  // Overwrites along the last dim, one outer position per unit, each index
  // value checked as it is used: false at the first bad one (units not yet
  // started are skipped; self may be partly written).
  bool run_rows_checked(int threads) {
    const int parts = static_cast<int>(std::clamp<int64_t>(threads == 1 ? 1 : threads * kPartsPerThread, 1, O_));
    std::atomic<bool> bad{false};
    pool_.run(parts, [&](int part) {
      const int64_t o1 = split_point(O_, parts, part + 1);
      for (int64_t o = split_point(O_, parts, part); o < o1 && !bad.load(std::memory_order_relaxed); ++o) {
        if (!overwrite_row_checked(o)) bad.store(true, std::memory_order_relaxed);
      }
    });
    return !bad.load();
  }
  bool overwrite_row_checked(int64_t o) const {
    const Offsets base = w_.outer_offsets(o);
    S* a = a_ + base.a;
    const I* x = x_ + base.x;
    const S* p = p_ + base.p;
    const int64_t K = w_.K, n = w_.S;
    if (w_.along.x == 1 && w_.along.p == 1 && w_.along.a == 1) {
      for (int64_t k = 0; k < K; ++k) {
        const auto v = static_cast<int64_t>(x[k]);
        if (!in_range(v)) [[unlikely]]
          return false;
        a[v < 0 ? v + n : v] = p[k];
      }
      return true;
    }
    for (int64_t k = 0; k < K; ++k) {
      const auto v = static_cast<int64_t>(x[k * w_.along.x]);
      if (!in_range(v)) [[unlikely]]
        return false;
      a[(v < 0 ? v + n : v) * w_.along.a] = p[k * w_.along.p];
    }
    return true;
  }

  // Whole unit-stride rows combined by add or multiply: the sorted row
  // reduction (row_reduce.h), one outer position at a time.
  bool rows_reduce_sorted(int threads) const {
    return Op != ScatterOp::Overwrite && !zero_first_ && walk_has_whole_rows(w_) &&
           row_reduce_applies(w_.K, w_.S, L_, threads);
  }
  void run_row_reduce() {
    for (int64_t o = 0; o < O_; ++o) {
      RowReduceArgs g = walk_row_args(w_, o, dtype_, std::is_same_v<I, int32_t> ? DType::Int32 : DType::Int64,
                                      reinterpret_cast<std::byte*>(a_), reinterpret_cast<const std::byte*>(x_),
                                      reinterpret_cast<const std::byte*>(p_));
      g.reduce = Op == ScatterOp::Add ? Reduce::Sum : Reduce::Prod;
      g.index_lo = -w_.S;  // run() has checked every value (all_in_range) before this path
      row_reduce(g, pool_, row_scratch_);
    }
  }

  // Wide rows, few outer positions: sort positions by target row (a stable
  // counting sort), give each thread an equal share of the sorted list, and
  // reduce each row in a float/exact accumulator rounded once. A row split
  // between threads is reduced into private partials merged in thread order,
  // so heavily duplicated targets (contention) still balance.
  void run_sorted(int threads) {
    const int64_t n_targets = w_.S, K = w_.K;
    const bool combine_in_place = !E::kFloat16Like && !zero_first_;
    std::vector<int64_t> start(static_cast<size_t>(n_targets + 2)), order(static_cast<size_t>(K));
    std::vector<std::vector<A>> scratch(static_cast<size_t>(threads));
    std::vector<std::array<int64_t, 2>> partial_row(static_cast<size_t>(threads));
    for (int64_t o = 0; o < O_; ++o) {
      const Offsets base = w_.outer_offsets(o);
      S* a = a_ + base.a;
      const I* x = x_ + base.x;
      const S* p = p_ + base.p;
      std::fill(start.begin(), start.end(), 0);
      for (int64_t k = 0; k < K; ++k) ++start[static_cast<size_t>(target(x + k * w_.along.x) + 2)];
      for (int64_t r = 2; r <= n_targets + 1; ++r) start[static_cast<size_t>(r)] += start[static_cast<size_t>(r - 1)];
      for (int64_t k = 0; k < K; ++k)
        order[static_cast<size_t>(start[static_cast<size_t>(target(x + k * w_.along.x) + 1)]++)] = k;
      // Now row r's positions are order[start[r] .. start[r+1]).
      pool_.run(threads, [&](int tid) {
        auto& mine = scratch[static_cast<size_t>(tid)];
        mine.resize(static_cast<size_t>(3 * L_));
        partial_row[static_cast<size_t>(tid)] = {-1, -1};
        const int64_t b = split_point(K, threads, tid), e = split_point(K, threads, tid + 1);
        if (b == e) return;
        auto row_of = [&](int64_t pos) {
          return static_cast<int64_t>(std::upper_bound(start.begin(), start.begin() + n_targets + 1, pos) -
                                      start.begin()) -
                 1;
        };
        const int64_t r_first = row_of(b), r_last = row_of(e - 1);
        for (int64_t r = r_first; r <= r_last; ++r) {
          const int64_t s0 = start[static_cast<size_t>(r)], s1 = start[static_cast<size_t>(r + 1)];
          if (s0 == s1) continue;
          S* arow = a + r * w_.along.a;
          if constexpr (Op == ScatterOp::Overwrite) {
            // Only the last writer in index order matters; its owner copies it.
            if (s1 - 1 >= b && s1 - 1 < e) {
              const S* prow = p + order[static_cast<size_t>(s1 - 1)] * w_.along.p;
              w_.for_inner_runs(0, L_,
                                [&](Offsets off, int64_t, int64_t n) { row_combine(arow + off.a, prow + off.p, n); });
            }
          } else if (combine_in_place && s0 >= b && s1 <= e) {
            // A whole row of a type whose accumulator is its storage: adding
            // straight into self in index order is the accumulator path exactly.
            for (int64_t q = s0; q < s1; ++q) {
              if (q + kPrefetchAhead < e) prefetch_row(p + order[static_cast<size_t>(q + kPrefetchAhead)] * w_.along.p);
              const S* prow = p + order[static_cast<size_t>(q)] * w_.along.p;
              w_.for_inner_runs(0, L_,
                                [&](Offsets off, int64_t, int64_t n) { row_combine(arow + off.a, prow + off.p, n); });
            }
          } else {
            const bool whole = s0 >= b && s1 <= e;
            const int slot = r == r_first ? 0 : 1;
            A* acc = mine.data() + (whole ? 2 : slot) * L_;
            if (whole) {
              base_row(acc, arow);
            } else {
              std::fill(acc, acc + L_, kIdentity);
              partial_row[static_cast<size_t>(tid)][static_cast<size_t>(slot)] = r;
            }
            const int64_t q1 = std::min(s1, e);
            for (int64_t q = std::max(s0, b); q < q1; ++q) {
              if (q + kPrefetchAhead < e) prefetch_row(p + order[static_cast<size_t>(q + kPrefetchAhead)] * w_.along.p);
              accumulate_row(acc, p + order[static_cast<size_t>(q)] * w_.along.p);
            }
            if (whole) store_row(arow, acc);
          }
        }
      });
      if constexpr (Op != ScatterOp::Overwrite) merge_partials(a, threads, scratch, partial_row);
    }
  }

  void merge_partials(S* a, int threads, const std::vector<std::vector<A>>& scratch,
                      const std::vector<std::array<int64_t, 2>>& partial_row) const {
    std::vector<A> acc(static_cast<size_t>(L_));
    int64_t current = -1;
    for (int tid = 0; tid < threads; ++tid) {
      for (size_t slot = 0; slot < 2; ++slot) {
        const int64_t r = partial_row[static_cast<size_t>(tid)][slot];
        if (r < 0) continue;
        if (r != current) {
          if (current >= 0) store_row(a + current * w_.along.a, acc.data());
          current = r;
          base_row(acc.data(), a + r * w_.along.a);
        }
        const A* part = scratch[static_cast<size_t>(tid)].data() + static_cast<int64_t>(slot) * L_;
        for (int64_t l = 0; l < L_; ++l) acc[static_cast<size_t>(l)] = accumulate(acc[static_cast<size_t>(l)], part[l]);
      }
    }
    if (current >= 0) store_row(a + current * w_.along.a, acc.data());
  }

  bool private_fits(int threads) const {
    const int64_t bytes = threads * w_.S * (L_ * static_cast<int64_t>(sizeof(A)) + 1);
    return bytes <= kPrivateBytesCap && w_.S * threads <= 4 * w_.K;
  }

  // Narrow rows (1-D scatter_add): each thread reduces the chunks of
  // positions it claims into its own accumulator array (floats may add in
  // any order); a parallel merge over target ranges then combines self (or
  // zero) with every thread's partials. A row
  // whose partials are all the identity (bit for bit) is left alone: it was
  // not targeted, or adding the identity would not change it (any NaN is
  // allowed for a targeted NaN). Two cases need an explicit "targeted" mark
  // (a byte per row, which costs: random byte stores next to the adds):
  // accumulate mode zeroes targeted rows, and bool canonicalizes them.
  static bool is_identity(A v) { return std::memcmp(&v, &kIdentity, sizeof(A)) == 0; }

  bool accumulate_1d(const I* x, const S* p, A* sums, int64_t k0, int64_t k1) const {
    const int64_t n_targets = w_.S;
    const int64_t k_ahead = std::max(k0, k1 - kAccumulatorAhead);
    for (int64_t k = k0; k < k1; ++k) {
      if (k < k_ahead) {
        const auto ahead = static_cast<int64_t>(x[k + kAccumulatorAhead]);
        if (in_range(ahead)) prefetch_line(sums + (ahead < 0 ? ahead + n_targets : ahead));
      }
      const auto v = static_cast<int64_t>(x[k]);
      if (check_bounds_ && !in_range(v)) [[unlikely]]
        return false;
      const int64_t r = v < 0 ? v + n_targets : v;
      sums[r] = accumulate(sums[r], E::load(p[k]));
    }
    return true;
  }

  bool run_private(int threads) {
    const int64_t n_targets = w_.S, K = w_.K;
    const bool mark_targets = zero_first_ || std::is_same_v<E, BoolElem>;
    const size_t bytes = static_cast<size_t>(n_targets * L_) * sizeof(A);
    std::vector<std::vector<std::byte>> local;
    std::vector<std::vector<std::byte>>& space = scratch_ && bytes * threads <= kKeptScratchBytes ? *scratch_ : local;
    if (space.size() < static_cast<size_t>(threads)) space.resize(static_cast<size_t>(threads));
    // operator new aligns the bytes for any A.
    auto sums_of = [&](int part) { return reinterpret_cast<A*>(space[static_cast<size_t>(part)].data()); };
    std::vector<std::vector<uint8_t>> touched(static_cast<size_t>(threads));
    const int64_t chunks = (K + kPrivateChunk - 1) / kPrivateChunk;
    for (int64_t o = 0; o < O_; ++o) {
      const Offsets base = w_.outer_offsets(o);
      S* a = a_ + base.a;
      const I* x = x_ + base.x;
      const S* p = p_ + base.p;
      std::atomic<int64_t> next_chunk{0};
      std::atomic<bool> out_of_range{false};
      // A part that claimed no chunk (its thread came late) has no partials.
      std::vector<uint8_t> used(static_cast<size_t>(threads), 0);
      pool_.run(threads, [&](int part) {
        A* sums = nullptr;
        uint8_t* hit = nullptr;
        for (int64_t c = next_chunk.fetch_add(1); c < chunks && !out_of_range.load(std::memory_order_relaxed);
             c = next_chunk.fetch_add(1)) {
          if (!sums) {
            auto& mine = space[static_cast<size_t>(part)];
            if (mine.size() < bytes) mine.resize(bytes);
            sums = sums_of(part);
            std::fill(sums, sums + n_targets * L_, kIdentity);
            if (mark_targets) {
              touched[static_cast<size_t>(part)].assign(static_cast<size_t>(n_targets), 0);
              hit = touched[static_cast<size_t>(part)].data();
            }
            used[static_cast<size_t>(part)] = 1;
          }
          const int64_t k1 = std::min(K, (c + 1) * kPrivateChunk);
          if (w_.inner.empty() && !hit && w_.along.x == 1 && w_.along.p == 1) {
            // 1-D, unit strides: the accumulators are read at random, so
            // each one is prefetched kAccumulatorAhead positions early.
            if (!accumulate_1d(x, p, sums, c * kPrivateChunk, k1)) {
              out_of_range.store(true, std::memory_order_relaxed);
              return;
            }
            continue;
          }
          for (int64_t k = c * kPrivateChunk; k < k1; ++k) {
            const auto v = static_cast<int64_t>(x[k * w_.along.x]);
            if (check_bounds_ && !in_range(v)) [[unlikely]] {
              out_of_range.store(true, std::memory_order_relaxed);
              return;
            }
            const int64_t r = v < 0 ? v + n_targets : v;
            if (hit) hit[r] = 1;
            if (w_.inner.empty())
              sums[r] = accumulate(sums[r], E::load(p[k * w_.along.p]));
            else
              accumulate_row(sums + r * L_, p + k * w_.along.p);
          }
        }
      });
      if (out_of_range.load()) return false;
      if (w_.inner.empty() && !mark_targets) {
        // 1-D: the same merge, one element per row, without the row machinery.
        pool_.run(threads * kPartsPerThread, [&](int part) {
          const int64_t r1 = split_point(n_targets, threads * kPartsPerThread, part + 1);
          for (int64_t r = split_point(n_targets, threads * kPartsPerThread, part); r < r1; ++r) {
            S& dst = a[r * w_.along.a];
            A sum = E::load(dst);
            bool targeted = false;
            for (int t = 0; t < threads; ++t) {
              if (!used[static_cast<size_t>(t)]) continue;
              const A partial = sums_of(t)[r];
              targeted |= !is_identity(partial);
              sum = accumulate(sum, partial);
            }
            if (targeted) dst = E::store(sum);
          }
        });
        continue;
      }
      pool_.run(threads, [&](int part) {
        std::vector<A> row(static_cast<size_t>(L_));
        const int64_t r1 = split_point(n_targets, threads, part + 1);
        for (int64_t r = split_point(n_targets, threads, part); r < r1; ++r) {
          bool targeted = false;
          for (int t = 0; t < threads && !targeted; ++t) {
            if (!used[static_cast<size_t>(t)]) continue;
            if (mark_targets) {
              targeted = touched[static_cast<size_t>(t)][static_cast<size_t>(r)] != 0;
            } else {
              const A* partial = sums_of(t) + r * L_;
              targeted = !std::all_of(partial, partial + L_, is_identity);
            }
          }
          if (!targeted) continue;
          base_row(row.data(), a + r * w_.along.a);
          for (int t = 0; t < threads; ++t) {
            if (!used[static_cast<size_t>(t)]) continue;
            const A* partial = sums_of(t) + r * L_;
            for (int64_t l = 0; l < L_; ++l)
              row[static_cast<size_t>(l)] = accumulate(row[static_cast<size_t>(l)], partial[l]);
          }
          store_row(a + r * w_.along.a, row.data());
        }
      });
    }
    return true;
  }

  // Narrow rows otherwise: each thread owns a range of target rows and scans
  // every position, applying those that land in its range, in index order.
  void run_target_ranges(int threads) {
    threads = static_cast<int>(std::clamp<int64_t>(threads, 1, w_.S));
    for (int64_t o = 0; o < O_; ++o) {
      const Offsets base = w_.outer_offsets(o);
      S* a = a_ + base.a;
      const I* x = x_ + base.x;
      const S* p = p_ + base.p;
      pool_.run(threads, [&](int tid) {
        const int64_t r0 = split_point(w_.S, threads, tid), r1 = split_point(w_.S, threads, tid + 1);
        if (zero_first_) {
          for (int64_t k = 0; k < w_.K; ++k) {
            const int64_t r = target(x + k * w_.along.x);
            if (r >= r0 && r < r1) zero_row(a + r * w_.along.a);
          }
        }
        for (int64_t k = 0; k < w_.K; ++k) {
          const int64_t r = target(x + k * w_.along.x);
          if (r < r0 || r >= r1) continue;
          S* arow = a + r * w_.along.a;
          const S* prow = p + k * w_.along.p;
          if (w_.inner.empty())
            combine(*arow, *prow);
          else
            w_.for_inner_runs(0, L_,
                              [&](Offsets off, int64_t, int64_t n) { row_combine(arow + off.a, prow + off.p, n); });
        }
      });
    }
  }

  const IndexWalk& w_;
  S* a_;
  const I* x_;
  const S* p_;
  DType dtype_;
  bool zero_first_;
  bool check_bounds_;  // index values still to check, from index_from_
  int64_t index_from_;
  std::vector<std::vector<std::byte>>* scratch_;
  RowReduceScratch* row_scratch_;
  ThreadPool& pool_;
  Axis last_;
  int64_t L_, O_;
};

template <class E, class I>
bool scatter_with(const ScatterArgs& args, ThreadPool& pool) {
  switch (args.op) {
    case ScatterOp::Overwrite:
      return Scatter<E, I, ScatterOp::Overwrite>(args, pool).run();
    case ScatterOp::Add:
      return Scatter<E, I, ScatterOp::Add>(args, pool).run();
    case ScatterOp::Multiply:
      return Scatter<E, I, ScatterOp::Multiply>(args, pool).run();
  }
  return true;  // unreachable: every op is a case
}

}  // namespace

bool scatter_kernel(const ScatterArgs& args, ThreadPool& pool) {
  bool in_range = true;
  dispatch_dtype(args.dtype, [&]<class E>(E) {
    in_range =
        args.index_dtype == DType::Int32 ? scatter_with<E, int32_t>(args, pool) : scatter_with<E, int64_t>(args, pool);
  });
  return in_range;
}

}  // namespace sp::cpu
