// case_gen.h — the one case generator of every fuzzer: a choice sequence in,
// an OpCall out.
//
// Hypothesis-style: every decision the generator makes reads one uint32
// choice from a `Choices` stream, so a case *is* its choice sequence. The
// random fuzzer (`scatterproof fuzz`), the shrinker (fuzz/shrink.h), the
// RapidCheck properties (choices drawn by rc::gen) and the libFuzzer target
// (choices read from the fuzzer's bytes) all drive the same generator.
//
// The generator knows no op by name: it draws an entry of the op table
// (reference/op_table.h) and builds the case with the builder of the
// entry's ShapeFamily (family_gen, fuzz/families.cc), naming operands as the table does
// and picking them by role (the in-place or first read operand is the data,
// the Index operand the index, the operand with an or_arg alternative or
// the other read operand the source), dtypes mostly from each operand's
// documented set; every other argument is drawn by its ArgSpec type (String
// mostly from `allowed`, sometimes absent or invalid; Bool true / false /
// absent; Scalar from the edge values below). What a dialect changes
// (MindSpore's doc_version and its negative indices, PyTorch's 0-d tensor
// addressed as [1]) is keyed by OpSpec::dialect. A new op of an existing
// family is generated with no change here.
//
// Choice 0 always means the simplest option (rank 1, size 1, value 0, index
// 0, contiguous, valid argument), so a shrinker that moves choices toward
// zero moves the case toward a small, plain, valid one. Everything else is
// biased toward edges: ranks 0–9 (mostly 1–3), zero- and one-sized dims,
// index values at 0, s-1, s, -1, -s, -s-1, index sizes at and one over their
// limits, heavy duplicates, transposed / gapped / offset / expanded layouts,
// every dtype, NaN (with payload), ±inf, -0.0 and extremes, invalid reduce
// strings, out-of-range dims, non-int64 index dtypes, every scalar kind.
// About a third of generated calls are invalid (an error is expected).
// Tensors stay small (numel <= kMaxGeneratedElements) so thousands of cases
// run per second, except in the rare large tier.
//
// The hard inputs, each drawn at a rare nonzero choice (so a shrinker moves
// away from them): a large tier (1 call in kLargeTierOneIn: a data operand
// of kLargeMinElements..kMaxLargeElements elements, over every chunk, part
// and thread boundary of the cpu kernels — kMinParallelWork, kPrivateChunk —
// and many CUDA blocks, the other operands sized from it); row-shaped large
// calls of the scatter families (kRowShapedTiers, fuzz/families.cc: an index
// expanded along rows, a row scatter into few or many rows, an index along
// dim 0 of wide rows, just past kMinParallelWork); ranks up to
// kMaxGeneratedRank (dims past the fourth mostly 1); transposed layouts
// that store the dims in any permutation; index views whose strides mix 1
// and 0 ([1, 1, 0]); index values at ±2^31, 2^32 past an in-range value
// and the int64 extremes (saturated to the extremes of narrower index
// dtypes); scalars that are fractional, negative, out of range of integer
// dtypes or halfway cases of float16 / bfloat16 whose rounding through
// float32 differs from direct rounding; float data at rounding edges (half
// an ulp of 1, subnormals, float64 values no float32 holds); and (1 call in
// 50) an empty index together with another violated rule (index dtype,
// dim, index rank, source dtype).
//
// Files: case_gen.cc (Choices, generate_call), gen_values.cc (sizes, values,
// tensors, layouts), gen_args.cc (scalars, dtypes, arguments, dialect knobs,
// operand roles), families.cc / families_nd.cc (the family builders and
// family_gen); gen_detail.h declares what they share.
//
// Thread-safety: a Choices object belongs to one thread; generate_call is
// otherwise pure.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "reference/op_call.h"
#include "reference/op_table.h"

namespace sp::fuzz {

inline constexpr int64_t kMaxGeneratedElements = 64;
// The large tier: one call in kLargeTierOneIn has a data operand of
// kLargeMinElements..kMaxLargeElements elements (the cpu backend goes
// parallel above 1 << 15 and chunks its reductions by 1 << 16).
inline constexpr uint32_t kLargeTierOneIn = 500;
inline constexpr int64_t kLargeMinElements = (int64_t{1} << 15) + 1;
inline constexpr int64_t kMaxLargeElements = (int64_t{1} << 16) + 4500;
// Two more values of the tier's choice, below the large tier's, are kept for
// the row-shaped large draws of the scatter families (fuzz/families.cc):
// an index expanded along rows, a row scatter into few or many rows, an
// index-along-dim over wide rows, each past the parallel threshold, the
// shapes of the cpu backend's row-reduction, sorted, private-accumulator
// and target-range paths. Calls of other families take them as small.
inline constexpr uint32_t kRowShapedTiers = 2;
inline constexpr int64_t kMaxGeneratedRank = 16;
// A generated call's output (by the op table's shape rule) has at most
// kMaxGeneratedOutput elements; a draw past it is redrawn (generate_call_for).
inline constexpr int64_t kMaxGeneratedOutput = 2 * kMaxLargeElements;
inline constexpr int kOutputRedraws = 8;

class Choices {
 public:
  // Generation: choices are read from `prefix` first, then drawn from a
  // std::mt19937 seeded with `seed` (and recorded).
  explicit Choices(uint64_t seed, std::vector<uint32_t> prefix = {});
  // Replay: choices are read from `sequence`; past its end every choice is 0.
  static Choices replay(std::vector<uint32_t> sequence);

  // A value in [0, n); n == 0 or 1 gives 0. A recorded choice c replays as
  // c % n, so any uint32 sequence is a valid case.
  uint32_t below(uint32_t n);
  // True with probability ~percent/100; choice 0 is false.
  bool chance(uint32_t percent);
  // Uniform-ish integer in [lo, hi]; choice 0 gives lo.
  int64_t between(int64_t lo, int64_t hi);

  // The choices consumed so far (a replay of them reproduces the case).
  const std::vector<uint32_t>& consumed() const { return consumed_; }

 private:
  Choices() = default;
  uint32_t next_raw(uint32_t n);

  std::vector<uint32_t> source_;
  size_t position_ = 0;
  bool extend_randomly_ = false;
  std::mt19937 rng_;
  std::vector<uint32_t> consumed_;
};

// A call of an op drawn from op_table() (choice 0: its first entry).
OpCall generate_call(Choices& choices);
// The same, choosing the op among `ops` (empty: every op of the table).
OpCall generate_call(Choices& choices, const std::vector<const OpSpec*>& ops);
// A call of `op`, which need not be in the table (tests build entries).
OpCall generate_call_for(Choices& choices, const OpSpec& op);

}  // namespace sp::fuzz
