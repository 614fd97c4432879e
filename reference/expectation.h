// expectation.h — what the reference says is *allowed*, not one answer.
//
// An Expectation is one of:
//  * an error: the backend must fail with one of `errors` (the first is the
//    reference's primary category; the others are further rules the same
//    call violates — a backend that checks in another order may report any
//    of them);
//  * outputs: each output tensor is given element by element; most elements
//    are exact bit patterns, some are loose (ElementAllowed): one of a set
//    (duplicate writers), within an interval (float reduction whose order
//    is unspecified), any NaN (a computed NaN), or unspecified;
//  * unspecified as a whole (the document leaves the call undefined): any
//    output or error passes; only a crash or timeout does not.
// Elements nobody writes are exact bits (-0.0 and NaN payloads included).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reference/errors.h"
#include "reference/tensor.h"

namespace sp {

struct ElementAllowed {
  std::vector<uint64_t> bits;  // exact patterns allowed
  bool any_nan = false;        // any NaN bit pattern allowed
  bool has_interval = false;   // value within [lo, hi] (±0 compare equal)
  double lo = 0.0;
  double hi = 0.0;
  bool unspecified = false;  // anything allowed
  std::string why;           // e.g. "3 writers: src[0][1], src[2][1], src[3][1]"

  bool allows(DType t, uint64_t actual_bits) const;
  std::string describe(DType t) const;  // "one of {3.0, 2.0}", "in [2.4599, 2.4601] or NaN"
};

struct ExpectedTensor {
  std::string name;  // "self" / "out"
  // Contiguous. Where an element is not loose: its exact bits. Where it is
  // loose: the result of the reference's own visit order (last writer wins,
  // sequential accumulation), a representative member of the allowed set.
  Tensor exact;
  std::map<int64_t, ElementAllowed> loose;  // row-major linear index -> allowed set

  bool allows(int64_t linear, uint64_t actual_bits) const;
  std::string describe_allowed(int64_t linear) const;
};

// A decision the reference applied to a call: the clause of
// reference/SEMANTICS.md it follows and what it did there, in words. The
// clause is data beside the sentence, not a prefix parsed out of it
// (harness/run_judge.h, cited_clauses): rewording `text` never changes which
// clauses an answer cites, nor the expectation entries keyed by them.
struct Note {
  std::string clause;  // "T-S9"; empty for a decision no clause covers
  std::string text;    // "out-of-place, out = copy of self then the writes"

  std::string line() const;  // "T-S9: out-of-place, ..." (explain prints it)
  bool operator==(const Note&) const = default;
};

struct Expectation {
  std::vector<ErrorCategory> errors;  // non-empty: an error is expected
  std::string error_message;          // the reference's message for the primary error
  std::string error_clause;           // clause id in reference/SEMANTICS.md
  std::optional<std::vector<ExpectedTensor>> outputs;
  bool unspecified = false;  // the whole call is undefined by the document
  std::string unspecified_reason;
  std::vector<Note> notes;  // decisions the reference applied, each with its clause

  bool expects_error() const { return !errors.empty() && !outputs && !unspecified; }
  bool allows_error(ErrorCategory c) const;
  // Adds c to the allowed errors (once); with a clause, names it (and its
  // message) as the primary error where none is named yet.
  void allow_error(ErrorCategory c);
  void allow_error(ErrorCategory c, const std::string& clause, const std::string& message);
  std::string summary() const;  // "error index_out_of_bounds", "outputs (2 loose elements)", "unspecified: ..."
};

// A single write performed by the reference, for `explain` and failure
// diagnostics: where the value came from and where it went.
struct Write {
  Shape target;             // multi-index into the output
  Shape index_pos;          // position in `index` that chose the target (empty for none)
  int64_t index_value = 0;  // the raw index value read there
  std::string source;       // "src[1][0]=4", "value 1.23", "updates[3][1]=4", "input[0][1]=2"
  std::string effect;       // "self[1][0] = 4", "self[0][2] = 2 * 1.23 -> 2.46"
  // The operand element the write read, as data (programs trace which
  // output elements read which operand elements, reference/program.h):
  // the operand's name and its position in the tensor the semantic read
  // (the operand's own multi-index, or a broadcast / flattened one); empty
  // when the value was a scalar argument or is not known.
  std::string read_operand;
  Shape read_at;
};

struct Trace {
  std::vector<std::string> checks;  // each check performed, in order, with its outcome
  std::vector<Write> writes;        // in visit order
  std::vector<std::string> finals;  // how loose elements were resolved (sets, intervals)
};

}  // namespace sp
