// row_reduce.h — whole-row reductions by a sorted index: the fast path of
// scatter_add_ / scatter_reduce_ with an index expanded along the row (the
// graph-network aggregation) and of index_add_ over contiguous slices.
//
// K source rows of L elements each land on target rows: source row k is
// combined into target row index[k] (negative values count from the end).
// Within a row the elements are unit-stride in both operands; rows are
// `*_row` elements apart. The index is sorted by target with a stable,
// parallel counting sort, then each thread reduces an equal share of the
// sorted positions row by row in the dtype's accumulator (float32 for
// half/bfloat16) and rounds once. Reading source rows in target order means
// random row reads: they are prefetched several rows ahead, across target
// boundaries. A target row cut between two shares is reduced into partials
// that are merged in share order afterwards, so a hot target (half of the
// rows into one) still splits evenly.
//
// What the reduction may do is what the reference allows
// (reference/SEMANTICS.md FR-1..FR-5): float terms combined in any order and
// accumulated wider, integers wrap (exact in any order), amax/amin exact.
// Targets no index value names keep their bits.
//
// Thread-safety: one call at a time per pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce_ops.h"
#include "backends/cpu/thread_pool.h"
#include "reference/dtype.h"

namespace sp::cpu {

struct RowReduceArgs {
  DType dtype = DType::Float32;
  DType index_dtype = DType::Int64;
  const std::byte* index = nullptr;  // K values, `index_stride` elements apart
  int64_t index_stride = 1;
  int64_t K = 0;              // source rows
  int64_t S = 0;              // target rows
  int64_t L = 0;              // elements per row
  std::byte* self = nullptr;  // target row r at self + r * self_row elements
  int64_t self_row = 0;
  const std::byte* src = nullptr;  // source row k at src + k * src_row elements
  int64_t src_row = 0;
  Reduce reduce = Reduce::Sum;
  // True: a target's own value is a term. False: a targeted row starts from
  // the reduction's identity (reduce_ops.h), as scatter_reduce_ does.
  bool include_self = true;
  // index_add_'s alpha as the element's bits: each term is alpha * source
  // rounded to the dtype. Unset: the term is the source element.
  std::optional<uint64_t> alpha_bits;
  // Index values must lie in [index_lo, S); a negative value v in range
  // addresses row v + S.
  int64_t index_lo = 0;
};

// Space a backend may keep between calls (page faults of fresh allocations
// cost more than the sort): the sort's histograms and order, the
// accumulators. Released after a call that grew it past kKeptBytes.
struct RowReduceScratch {
  std::vector<int64_t> start, cursor, order;
  std::vector<std::byte> accumulators;
  static constexpr size_t kKeptBytes = size_t{128} << 20;
};

// True when the sorted path is worth taking and its scratch space bounded:
// rows at least kMinRowElements long, and the per-thread histograms
// (threads * S counters) no bigger than the index itself times four.
bool row_reduce_applies(int64_t K, int64_t S, int64_t L, int threads);
inline constexpr int64_t kMinRowElements = 16;

// Runs the reduction. False when some index value lies outside
// [index_lo, S): the target is then untouched. REQUIRES: bool has no mean.
// The walk's rows, when they are whole unit-stride rows the index value
// does not change along (an index expanded along them).
inline bool walk_has_whole_rows(const IndexWalk& w) {
  return w.index_row_constant() && w.inner.size() == 1 && w.inner[0].a == 1 && w.inner[0].p == 1;
}
// The arguments for outer position `o` of such a walk: self `a`, index `x`
// and source `p` at their first elements. Reduce, include_self, alpha and
// index_lo keep their defaults.
RowReduceArgs walk_row_args(const IndexWalk& w, int64_t o, DType dtype, DType index_dtype, std::byte* a,
                            const std::byte* x, const std::byte* p);

// `keep`: the backend's scratch (null: allocate for this call only).
bool row_reduce(const RowReduceArgs& args, ThreadPool& pool, RowReduceScratch* keep = nullptr);

}  // namespace sp::cpu
