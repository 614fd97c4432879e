// gather_kernel.cc — the walk, index bounds scan, strided copy and gather.
#include <atomic>
#include <cstring>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "backends/cpu/kernels.h"
#include "backends/cpu/tuning.h"

namespace sp::cpu {
namespace {

std::vector<Axis> coalesce(std::vector<Axis> axes) {
  std::vector<Axis> out;
  for (const Axis& ax : axes) {
    if (ax.size == 1) continue;
    if (!out.empty()) {
      Axis& prev = out.back();
      if (prev.a == ax.a * ax.size && prev.x == ax.x * ax.size && prev.p == ax.p * ax.size) {
        prev = Axis{prev.size * ax.size, ax.a, ax.x, ax.p};
        continue;
      }
    }
    out.push_back(ax);
  }
  return out;
}

int64_t count(const std::vector<Axis>& axes) {
  int64_t n = 1;
  for (const Axis& ax : axes) n *= ax.size;
  return n;
}

template <class I>
std::optional<int64_t> first_bad(const I* x, const IndexWalk& scan, int64_t l0, int64_t l1, int64_t lo, int64_t hi) {
  std::optional<int64_t> bad;
  scan.for_inner_runs(l0, l1, [&](Offsets off, int64_t l, int64_t n) {
    if (bad) return;
    const I* run = x + off.x;
    const int64_t step = scan.inner.empty() ? 0 : scan.inner.back().x;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t v = static_cast<int64_t>(run[j * step]);
      if (v < lo || v >= hi) {
        bad = l + j;
        return;
      }
    }
  });
  return bad;
}

// True when v lies in [0, size): one unsigned compare.
inline bool in_range(int64_t v, int64_t size) { return static_cast<uint64_t>(v) < static_cast<uint64_t>(size); }

// Whole-row gathers prefetch source rows tuning().prefetch_ahead_bytes of
// rows ahead (tuning.h: from the L1d size).

// memcpy with non-temporal stores for the 64-byte blocks (plain copies for
// the unaligned head and the tail). The caller issues the store fence.
inline void stream_copy(std::byte* dst, const std::byte* src, size_t n) {
#if defined(__x86_64__)
  const size_t head = std::min(n, (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  for (; n >= 64; n -= 64, dst += 64, src += 64) {
    const auto* from = reinterpret_cast<const __m128i*>(src);
    auto* to = reinterpret_cast<__m128i*>(dst);
    const __m128i v0 = _mm_loadu_si128(from), v1 = _mm_loadu_si128(from + 1), v2 = _mm_loadu_si128(from + 2),
                  v3 = _mm_loadu_si128(from + 3);
    _mm_stream_si128(to, v0);
    _mm_stream_si128(to + 1, v1);
    _mm_stream_si128(to + 2, v2);
    _mm_stream_si128(to + 3, v3);
  }
#endif
  std::memcpy(dst, src, n);
}

inline void store_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

// Whole contiguous rows (an index expanded along unit-stride rows: the row
// gather, index_select of rows): per row one bounds check, a prefetch of the
// row `ahead` positions later, and one copy (streamed for large outputs).
template <class E, class I>
bool gather_rows(const E* a_o, const I* x_o, E* p_o, int64_t k0, int64_t k1, const IndexWalk& w, bool stream) {
  const int64_t S = w.S, xs = w.along.x, as = w.along.a, ps = w.along.p;
  const int64_t L = w.inner_count();
  const auto row_bytes = static_cast<size_t>(L) * sizeof(E);
  const int64_t ahead =
      std::clamp<int64_t>(tuning().prefetch_ahead_bytes / static_cast<int64_t>(std::max<size_t>(row_bytes, 1)), 1, 16);
  const size_t prefetch_bytes = std::min<size_t>(row_bytes, 2048);
  for (int64_t k = k0; k < k1; ++k) {
    const auto t = static_cast<int64_t>(x_o[k * xs]);
    if (!in_range(t, S)) [[unlikely]]
      return false;
    if (k + ahead < k1) {
      const auto next = static_cast<int64_t>(x_o[(k + ahead) * xs]);
      if (in_range(next, S)) {
        const auto* row = reinterpret_cast<const char*>(a_o + next * as);
        for (size_t b = 0; b < prefetch_bytes; b += 64) prefetch_line(row + b);
      }
    }
    auto* dst = reinterpret_cast<std::byte*>(p_o + k * ps);
    const auto* src = reinterpret_cast<const std::byte*>(a_o + t * as);
    if (stream)
      stream_copy(dst, src, row_bytes);
    else
      std::memcpy(dst, src, row_bytes);
  }
  return true;
}

// Validation is fused into the copy (the output is fresh, so a bad index
// just abandons it): every index value is read once, checked and used.
template <class E>
bool gather_typed(const E* a, const std::byte* xb, DType index_dtype, E* out, const IndexWalk& w, ThreadPool& pool,
                  int64_t stream_bytes) {
  const bool whole_rows = w.index_row_constant() && w.inner.size() == 1 && w.inner[0].a == 1 && w.inner[0].p == 1;
  const int64_t out_bytes = w.outer_count() * w.K * w.inner_count() * static_cast<int64_t>(sizeof(E));
  const bool stream = whole_rows && out_bytes >= (stream_bytes < 0 ? tuning().stream_output_bytes : stream_bytes);
  // Returns false at the first index value outside [0, S).
  auto run_rows = [&]<class I>(const I* x, int64_t r0, int64_t r1) {
    const int64_t S = w.S;
    const bool row_const = w.index_row_constant();
    const Axis last = w.inner.empty() ? Axis{} : w.inner.back();
    const int64_t L = w.inner_count();
    const int64_t xs = w.along.x, as = w.along.a, ps = w.along.p;
    for (int64_t r = r0; r < r1;) {
      const int64_t o = r / w.K;
      const int64_t k_end = std::min(w.K, (r1 - o * w.K));
      const Offsets base = w.outer_offsets(o);
      const E* a_o = a + base.a;
      const I* x_o = x + base.x;
      E* p_o = out + base.p;
      if (w.inner.empty()) {
        // Gather along the last (coalesced) dim: one index read per element.
        for (int64_t k = r - o * w.K; k < k_end; ++k) {
          const auto t = static_cast<int64_t>(x_o[k * xs]);
          if (!in_range(t, S)) [[unlikely]]
            return false;
          p_o[k * ps] = a_o[t * as];
        }
      } else if (whole_rows) {
        if (!gather_rows(a_o, x_o, p_o, r - o * w.K, k_end, w, stream)) return false;
      } else {
        for (int64_t k = r - o * w.K; k < k_end; ++k) {
          const I* xk = x_o + k * xs;
          E* pk = p_o + k * ps;
          if (row_const) {
            // Index expanded along the inner dims: whole rows, memcpy when both are unit-stride.
            const auto t = static_cast<int64_t>(*xk);
            if (!in_range(t, S)) [[unlikely]]
              return false;
            const E* arow = a_o + t * as;
            w.for_inner_runs(0, L, [&](Offsets off, int64_t, int64_t n) {
              if (last.a == 1 && last.p == 1) {
                std::memcpy(pk + off.p, arow + off.a, static_cast<size_t>(n) * sizeof(E));
              } else {
                for (int64_t j = 0; j < n; ++j) pk[off.p + j * last.p] = arow[off.a + j * last.a];
              }
            });
          } else {
            bool ok = true;
            w.for_inner_runs(0, L, [&](Offsets off, int64_t, int64_t n) {
              for (int64_t j = 0; j < n && ok; ++j) {
                const auto t = static_cast<int64_t>(xk[off.x + j * last.x]);
                ok = in_range(t, S);
                if (ok) [[likely]]
                  pk[off.p + j * last.p] = a_o[t * as + off.a + j * last.a];
              }
            });
            if (!ok) return false;
          }
        }
      }
      r = o * w.K + k_end;
    }
    return true;
  };
  // Every out element is written once, so any split of the (o, k) rows is race-free.
  const int64_t rows = w.outer_count() * w.K;
  const int threads = static_cast<int>(std::clamp<int64_t>(parts_for(rows * w.inner_count(), pool), 1, rows));
  std::atomic<bool> all_in_range{true};
  pool.run(threads, [&](int tid) {
    const int64_t r0 = split_point(rows, threads, tid), r1 = split_point(rows, threads, tid + 1);
    const bool ok = index_dtype == DType::Int32 ? run_rows(reinterpret_cast<const int32_t*>(xb), r0, r1)
                                                : run_rows(reinterpret_cast<const int64_t*>(xb), r0, r1);
    if (stream) store_fence();
    if (!ok) all_in_range.store(false, std::memory_order_relaxed);
  });
  return all_in_range.load(std::memory_order_relaxed);
}

template <size_t N>
struct Bytes {
  using type = std::conditional_t<N == 1, uint8_t,
                                  std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;
};

template <class E>
void copy_typed(const E* src, E* dst, const IndexWalk& scan, ThreadPool& pool) {
  const int64_t n = scan.inner_count();
  const int threads = parts_for(n, pool);
  const Axis last = scan.inner.empty() ? Axis{} : scan.inner.back();
  pool.run(threads, [&](int tid) {
    scan.for_inner_runs(split_point(n, threads, tid), split_point(n, threads, tid + 1),
                        [&](Offsets off, int64_t l, int64_t len) {
                          if (last.a == 1) {
                            std::memcpy(dst + l, src + off.a, static_cast<size_t>(len) * sizeof(E));
                          } else {
                            for (int64_t j = 0; j < len; ++j) dst[l + j] = src[off.a + j * last.a];
                          }
                        });
  });
}

}  // namespace

int64_t IndexWalk::outer_count() const { return count(outer); }
int64_t IndexWalk::inner_count() const { return count(inner); }

bool IndexWalk::index_row_constant() const {
  return std::all_of(inner.begin(), inner.end(), [](const Axis& ax) { return ax.x == 0; });
}

Offsets IndexWalk::outer_offsets(int64_t o) const {
  Offsets off;
  for (size_t d = outer.size(); d-- > 0;) {
    const int64_t i = o % outer[d].size;
    o /= outer[d].size;
    off.a += i * outer[d].a;
    off.x += i * outer[d].x;
    off.p += i * outer[d].p;
  }
  return off;
}

IndexWalk make_walk(const Shape& index_shape, int64_t dim, const Shape& a_strides, const Shape& x_strides,
                    const Shape& p_strides, int64_t indexed_size) {
  const auto d_ = static_cast<size_t>(dim);
  auto axes = [&](size_t d0, size_t d1) {
    std::vector<Axis> v;
    for (size_t d = d0; d < d1; ++d) v.push_back(Axis{index_shape[d], a_strides[d], x_strides[d], p_strides[d]});
    return coalesce(std::move(v));
  };
  IndexWalk w;
  w.outer = axes(0, d_);
  w.inner = axes(d_ + 1, index_shape.size());
  w.K = index_shape[d_];
  w.S = indexed_size;
  w.along = Axis{w.K, a_strides[d_], x_strides[d_], p_strides[d_]};
  return w;
}

std::optional<BadIndex> find_bad_index(DType index_dtype, const std::byte* index, const Shape& shape,
                                       const Shape& strides, int64_t lo, int64_t hi, ThreadPool& pool) {
  // Scan only the dims that move through memory; an expanded dim repeats values.
  IndexWalk scan;
  std::vector<size_t> kept;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return std::nullopt;
    if (shape[d] == 1 || strides[d] == 0) continue;
    kept.push_back(d);
    scan.inner.push_back(Axis{shape[d], 0, strides[d], 0});
  }
  const int64_t n = scan.inner_count();
  const int threads = parts_for(n, pool);
  std::vector<std::optional<int64_t>> found(static_cast<size_t>(threads));
  pool.run(threads, [&](int tid) {
    const int64_t l0 = split_point(n, threads, tid), l1 = split_point(n, threads, tid + 1);
    found[static_cast<size_t>(tid)] = index_dtype == DType::Int32
                                          ? first_bad(reinterpret_cast<const int32_t*>(index), scan, l0, l1, lo, hi)
                                          : first_bad(reinterpret_cast<const int64_t*>(index), scan, l0, l1, lo, hi);
  });
  for (const std::optional<int64_t>& linear : found) {
    if (!linear) continue;
    BadIndex bad;
    bad.position.assign(shape.size(), 0);
    int64_t rem = *linear, offset = 0;
    for (size_t i = kept.size(); i-- > 0;) {
      const int64_t digit = rem % shape[kept[i]];
      rem /= shape[kept[i]];
      bad.position[kept[i]] = digit;
      offset += digit * strides[kept[i]];
    }
    bad.value = index_dtype == DType::Int32 ? reinterpret_cast<const int32_t*>(index)[offset]
                                            : reinterpret_cast<const int64_t*>(index)[offset];
    return bad;
  }
  return std::nullopt;
}

bool gather_kernel(DType dtype, DType index_dtype, const std::byte* a, const std::byte* x, std::byte* out,
                   const IndexWalk& walk, ThreadPool& pool, int64_t stream_bytes) {
  // Gather moves bits, so only the element size matters.
  auto go = [&]<class E>(E*) {
    return gather_typed(reinterpret_cast<const E*>(a), x, index_dtype, reinterpret_cast<E*>(out), walk, pool,
                        stream_bytes);
  };
  switch (dtype_size(dtype)) {
    case 1:
      return go(static_cast<uint8_t*>(nullptr));
    case 2:
      return go(static_cast<uint16_t*>(nullptr));
    case 4:
      return go(static_cast<uint32_t*>(nullptr));
    default:
      return go(static_cast<uint64_t*>(nullptr));
  }
}

void copy_to_contiguous(const Tensor& t, std::byte* out, ThreadPool& pool) {
  if (t.numel() == 0) return;
  IndexWalk scan;
  std::vector<Axis> axes;
  for (int64_t d = 0; d < t.rank(); ++d) axes.push_back(Axis{t.size(d), t.stride(d), 0, 0});
  scan.inner = coalesce(std::move(axes));
  const std::byte* src = t.element_ptr(t.offset());
  auto go = [&]<class E>(E*) { copy_typed(reinterpret_cast<const E*>(src), reinterpret_cast<E*>(out), scan, pool); };
  switch (dtype_size(t.dtype())) {
    case 1:
      return go(static_cast<uint8_t*>(nullptr));
    case 2:
      return go(static_cast<uint16_t*>(nullptr));
    case 4:
      return go(static_cast<uint32_t*>(nullptr));
    default:
      return go(static_cast<uint64_t*>(nullptr));
  }
}

}  // namespace sp::cpu
