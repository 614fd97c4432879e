// semantics_common.h — mechanics shared by the semantic files; no rules.
//
// What lives here: reading an index element as int64, treating a rank-0
// tensor as one element addressed by a logical multi-index, wrapping a dim,
// walking the positions of an index (`for_each_index_position`, the loop
// every semantic file's formula is written over), naming elements for
// traces, and `RuleLog`, which records each rule check
// (for `explain`) and collects every violated rule so the error Expectation
// can list them all in check order. Which rules exist, their order and
// their clause ids belong to the dialect files (dialect_*.h) and the
// semantic files; nothing here decides validity.
//
// Thread-safety: pure functions; a RuleLog is used by one evaluation.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/errors.h"
#include "reference/expectation.h"
#include "reference/output_builder.h"
#include "reference/tensor.h"

namespace sp::ref {

// The index value stored at `pos` of an integral tensor, sign-extended; a
// uint64 above 2^63-1 saturates to INT64_MAX (every index rule compares it
// with a bound that fits int64, and the two compare alike with any such bound).
// REQUIRES: is_integral(index.dtype()); pos is a physical multi-index.
int64_t read_index(const Tensor& index, const Shape& pos);

// A rank-0 tensor is addressed as if it had shape [1] (PyTorch's
// ensure_nonempty_dim/size); other tensors keep their shape.
Shape logical_shape(const Tensor& t);
int64_t logical_rank(const Tensor& t);
int64_t logical_size(const Tensor& t, int64_t d);
// The logical multi-index of a position of `t` ([0] for a rank-0 tensor).
Shape logical_index(const Tensor& t, const Shape& physical);
// Maps a logical multi-index back to the tensor's own (drops the [0] of a
// rank-0 tensor).
Shape physical_index(const Tensor& t, Shape logical);

// Whether an index's values can be compared with a bound: an integral,
// non-bool dtype. The bounds rules run whenever this holds, the dim is valid
// and the index is not empty, whatever other rule the call breaks: a backend
// may check the bounds first (C-1, "any of the violated rules").
bool index_values_readable(const Tensor& index);

// dim in [-rank, rank) -> [0, rank). REQUIRES: the caller checked the range.
int64_t wrap_dim(int64_t dim, int64_t rank);

// "src[1][0]=4" for the element at physical position `pos` of `t`.
std::string element_text(std::string_view name, const Tensor& t, const Shape& pos);

// One position of an index tensor, as the formulas read it: in
// `self[index[i][j][k]][j][k] op= src[i][j][k]`, `pos` is (i, j, k) and
// `value` is index[i][j][k].
struct IndexPosition {
  Shape pos;      // physical position in index ({} for a rank-0 index)
  Shape logical;  // the same position with a rank-0 index read as shape [1]
  int64_t value;  // the index value stored there
};
// Calls `visit` for every position of `index` in row-major order (the visit
// order of every semantic file); an empty index visits nothing.
// REQUIRES: is_integral(index.dtype()).
void for_each_index_position(const Tensor& index, const std::function<void(const IndexPosition&)>& visit);
// The element of `t` that position `p` addresses along `dim`: p's logical
// position with coordinate `dim` replaced by `along_dim`, as t's own
// multi-index (rank 0 drops the [0]). The formulas' `self[index[i][j][k]][j][k]`.
Shape position_along_dim(const Tensor& t, const IndexPosition& p, int64_t dim, int64_t along_dim);
// The element of `t` at p's own position (`src[i][j][k]`).
Shape same_position(const Tensor& t, const IndexPosition& p);

// The slice walk of the index-along-dim ops (`self[:, index[i], :] op=
// source[:, i, :]`): for every position i of a vector (or 0-d) `index`, in
// order, and every position of `source`'s logical slice i (dim held at i,
// the others row-major), calls visit(p, at, target): `at` is source's own
// multi-index, `target` the logical position with dim replaced by
// index[i] (map it with physical_index). `p.logical` is {i}.
// REQUIRES: is_integral(index.dtype()), index rank <= 1, dim < logical rank of source.
void for_each_slice_position(const Tensor& index, const Tensor& source, int64_t dim,
                             const std::function<void(const IndexPosition&, const Shape&, const Shape&)>& visit);

// A NaN stored in `initial` (the output's starting contents) may come back
// as any NaN wherever the result keeps its bits exactly: for reductions that
// divide the whole output by a count (scatter_reduce / index_reduce "mean").
void allow_any_nan_where_initial_nan(ExpectedTensor& result, DType t, const std::string& why);

// What a write read, for the trace: operand `name` of `t` at `at`, chosen by
// index position `p`. Non-owning; text is built only when tracing.
WriteOrigin read_from(const IndexPosition& p, std::string_view name, const Tensor& t, const Shape& at);
// A write of a scalar argument (`text` is e.g. "value 1.23").
WriteOrigin scalar_from(const IndexPosition& p, std::string_view text);

// Records rule checks in order. `check` returns whether the rule holds; a
// violated rule is kept (category, message, clause) and the trace line says
// "VIOLATED". `skip` records a rule that was not evaluated and why.
class RuleLog {
 public:
  explicit RuleLog(Trace* trace) : trace_(trace) {}

  bool check(bool holds, std::string_view clause, const std::string& fact, ErrorCategory category,
             const std::string& message);
  void note(const std::string& line);

  bool passed() const { return violations_.empty(); }
  const std::vector<RuleViolation>& violations() const { return violations_; }
  // errors = every violated category (once) in check order; message and clause
  // from the first. REQUIRES: !passed().
  Expectation error_expectation() const;

 private:
  Trace* trace_;
  std::vector<RuleViolation> violations_;
};

// A call the document leaves undefined: anything but a crash/timeout passes.
Expectation unspecified_expectation(const std::string& reason, Trace* trace);
// A successful call: the given outputs plus the notes of decisions applied.
Expectation outputs_expectation(std::vector<ExpectedTensor> outputs, std::vector<Note> notes);

}  // namespace sp::ref
