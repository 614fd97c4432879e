// output_builder.h — collects what a semantic writes to each output element
// and resolves every element to what is *allowed*.
//
// A semantic file walks its index positions in its documented visit order
// and tells the builder each write: an overwrite with exact bits, or a term
// of a reduction (add, multiply, mean, max, min), or (paddle accumulate
// mode) a reset of the element to zero before accumulation. `finish` then
// resolves each element:
//   untouched                 -> exact bits of the initial tensor
//   overwrite, one value      -> exact bits
//   overwrite, several values -> one of the set (any writer may win)
//   add/multiply/mean, integral dtype
//                             -> exact, two's-complement wrap (order free);
//                                bool: add = or, multiply = and. Mean:
//                                floor(sum / count); where the sum wraps,
//                                the true floor mean is allowed too
//   add/multiply, float, one op
//                             -> exact (a single correctly rounded op);
//                                a computed NaN is "any NaN"
//   add/multiply, float, >= 2 ops
//                             -> interval from reference/float_bounds.h
//   mean, float               -> one term: that term; >= 2 terms: the
//                                interval of float_mean_bounds
//   max/min                   -> one of the terms that are maximal (minimal):
//                                exact, or {+0, -0} when both zeros tie;
//                                any NaN when a term is NaN (NaN propagates)
// By default the element's initial value is the first term of a reduction
// (scatter_add_, scatter_(reduce=...), scatter_reduce include_self=True).
// After `exclude_initial_from_reductions()` it is not (scatter_reduce
// include_self=False): an element reduced into starts from the reduction's
// identity (0, 1, -inf, +inf) and its result depends on the terms alone; the
// identity's own op is exact, except that +0 + -0 = +0, so a float sum or
// mean of one -0.0 term may be +0 or -0.
// The builder never decides validity: the semantic file has checked the
// call before the first write (as the documents' checks all precede writes).
//
// Trace text (the `Write` records of `explain`) is built only when a Trace
// was given; a write's origin travels as a non-owning WriteOrigin.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reference/expectation.h"
#include "reference/tensor.h"

namespace sp {

enum class ReduceMode { None, Add, Multiply, Mean, Max, Min };

// Where a written value came from. Non-owning: every pointer is valid for
// the duration of the write call only. Value-initialized: nothing known.
struct WriteOrigin {
  std::string_view name;             // the operand read ("src"), or a scalar's text ("value 1.23")
  const Tensor* tensor = nullptr;    // the operand read; null for a scalar
  const Shape* at = nullptr;         // the position read in `tensor`
  const Shape* index_pos = nullptr;  // the position of index that chose the target
  int64_t index_value = 0;           // the index value read there
};

class OutputBuilder {
 public:
  // `initial` gives the starting contents (any layout); the builder keeps a
  // contiguous copy. `trace` may be null.
  OutputBuilder(std::string name, const Tensor& initial, Trace* trace);

  // One writer stores `bits` (already in the output's dtype) at `target`.
  void overwrite(const Shape& target, uint64_t bits, const WriteOrigin& from);
  // One term combined into `target` by `mode` (not None). `term` is in the
  // output's dtype's value domain. REQUIRES: one mode per element; Mean
  // not on bool.
  void reduce(const Shape& target, ReduceMode mode, Value term, const WriteOrigin& from);
  // Sets `target` to zero before accumulation (paddle overwrite=False).
  void reset_to_zero(const Shape& target);
  // From now on, reductions do not count an element's initial value as a
  // term (scatter_reduce include_self=False). Call before the first write.
  void exclude_initial_from_reductions() { include_initial_ = false; }

  // The answer. Once: the output's storage is the builder's own.
  ExpectedTensor finish();

  const Tensor& initial() const { return initial_; }

 private:
  struct Slot {
    std::vector<uint64_t> overwrites;
    ReduceMode mode = ReduceMode::None;
    std::vector<Value> terms;
    bool zeroed = false;
  };
  Slot& slot(const Shape& target) { return slot_at(initial_.element_offset(target)); }
  void record(const Shape& target, ReduceMode mode, uint64_t bits, const WriteOrigin& from);
  void resolve(int64_t linear, const Slot& s, ExpectedTensor& out);
  void resolve_reduction(int64_t linear, const Slot& s, ExpectedTensor& out);
  std::string element_name(int64_t linear) const;

  // The slot of the element at `linear`, made if it has none; its index in
  // slots_ for an element that has one, else kNoSlot.
  Slot& slot_at(int64_t linear);
  uint32_t slot_index(int64_t linear) const;

  std::string name_;
  Tensor initial_;
  Trace* trace_;
  bool include_initial_ = true;
  bool finished_ = false;
  // An element overwritten exactly once needs no slot: its bits go straight
  // into initial_ (its old value is never read again: overwrites and
  // reductions do not mix on one element) and its bit in written_once_ is
  // set; a second write moves both into a slot. A gather's output, every
  // element written once, thus costs one bit an element beyond the output.
  std::vector<uint64_t> written_once_;
  // Slots of the elements written twice or reduced into, and each element's
  // slot number (kNoSlot: none). Up to kDenseSlotElements output elements
  // the map is dense over them, made at the first slot: 4 bytes an element,
  // against a node allocation a write that an ordered map cost (the
  // reference's hot spot in large cases); beyond (a huge case's output,
  // --allow-huge) a hash map of the slotted elements alone.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  static constexpr int64_t kDenseSlotElements = int64_t{1} << 24;
  std::vector<Slot> slots_;
  std::vector<uint32_t> slot_of_;
  std::unordered_map<int64_t, uint32_t> sparse_slot_of_;
};

// Exact result of a single reduction op `a (+|*|max|min) b` in dtype t, as
// bits (Mean combines like Add). Integral: wraps; bool: or / and; float:
// one correctly rounded op; max/min: NaN propagates (b's NaN first), a tie
// keeps a.
uint64_t reduce_once(DType t, ReduceMode mode, Value a, Value b);

}  // namespace sp
