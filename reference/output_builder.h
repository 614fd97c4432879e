// output_builder.h — collects what a semantic writes to each output element
// and resolves every element to what is *allowed*.
//
// A semantic file walks its index positions in its documented visit order
// and tells the builder each write: an overwrite with exact bits, or a term
// of an add/multiply reduction, or (paddle accumulate mode) a reset of the
// element to zero before accumulation. `finish` then resolves each element:
//   untouched                 -> exact bits of the initial tensor
//   overwrite, one value      -> exact bits
//   overwrite, several values -> one of the set (any writer may win)
//   reduce, integral dtype    -> exact, two's-complement wrap (order free)
//   reduce, bool              -> add = logical or, multiply = logical and
//   reduce, float, one op     -> exact (a single correctly rounded op);
//                                a computed NaN is "any NaN"
//   reduce, float, >= 2 ops   -> interval from reference/float_bounds.h
// The builder never decides validity: the semantic file has checked the
// call before the first write (as the documents' checks all precede writes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference/expectation.h"
#include "reference/tensor.h"

namespace sp {

enum class ReduceMode { None, Add, Multiply };

class OutputBuilder {
 public:
  // `initial` gives the starting contents (any layout); the builder keeps a
  // contiguous copy. `trace` may be null.
  OutputBuilder(std::string name, const Tensor& initial, Trace* trace);

  // One writer stores `bits` (already in the output's dtype) at `target`.
  void overwrite(const Shape& target, uint64_t bits, Write why);
  // One term combined into `target` by `mode` (Add or Multiply). `term` is
  // in the output's dtype's value domain.
  void reduce(const Shape& target, ReduceMode mode, Value term, Write why);
  // Sets `target` to zero before accumulation (paddle overwrite=False).
  void reset_to_zero(const Shape& target);

  ExpectedTensor finish();

  const Tensor& initial() const { return initial_; }

 private:
  struct Slot {
    std::vector<uint64_t> overwrites;
    ReduceMode mode = ReduceMode::None;
    std::vector<Value> terms;
    bool zeroed = false;
  };
  Slot& slot(const Shape& target);
  void resolve(int64_t linear, const Slot& s, ExpectedTensor& out);

  std::string name_;
  Tensor initial_;
  Trace* trace_;
  std::map<int64_t, Slot> slots_;
};

// Exact result of a single reduction op `a (+|*) b` in dtype t, as bits.
// Integral: wraps; bool: or / and; float: one correctly rounded op.
uint64_t reduce_once(DType t, ReduceMode mode, Value a, Value b);

}  // namespace sp
