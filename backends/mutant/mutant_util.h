// mutant_util.h — what the mutant op files share: reading a call the way
// its op table entry describes it (which operand is written, which one is
// the source of values, the dim, every write the op performs) and building
// replacement operands with the reference's Tensor API. Internal to
// backends/mutant.
//
// REQUIRES (every function taking a call): the call fits its op's
// signature (check_signature), as MutantBackend guarantees.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "reference/op_table.h"

namespace sp::mutant {

const OpSpec& spec_of(const OpCall& c);
// The operand written (in place) or copied into the output: self / x; for a
// gather the operand read through the index (input).
const std::string& data_name(const OpCall& c);
// The operand whose values are written: src / updates; for a gather, input.
std::string source_name(const OpCall& c);
// The operand holding the indices (role Index): "index", or the op's own
// name for it ("indices" for torch.take_along_dim).
std::string index_name(const OpCall& c);

// Rank as the op's dialect counts it (PyTorch addresses a scalar as [1]).
int64_t op_rank(const OpCall& c);
// dim in [0, op_rank), or nullopt when out of range; 0 for row scatters.
std::optional<int64_t> normalized_dim(const OpCall& c);
// Size of the data operand along dim.
int64_t indexed_size(const OpCall& c, int64_t dim);
int64_t read_int(const Tensor& t, const Shape& pos);

// A fresh contiguous tensor whose element at each position is bits_at(position).
Tensor remap(DType dtype, const Shape& shape, const std::function<uint64_t(const Shape&)>& bits_at);
// `index` with each value v at position p replaced by fn(p, v).
Tensor with_index_values(const Tensor& index, const std::function<int64_t(const Shape&, int64_t)>& fn);

// Every write a scatter-like call performs, in row-major index order:
// (target position in the data operand, position in the source operand).
// Empty when dim or any index value is out of range.
struct Write {
  Shape target, source;
};
std::vector<Write> writes_of(const OpCall& c);

// The reduction a scatter applies at a target: none (overwrite), add or
// multiply. scatter_add ops add (the document: "the same as scatter_ with
// reduce add"); a reduce argument of "add" / "multiply" names its mode;
// overwrite=False adds. Ops with other reduce strings (scatter_reduce's
// "sum", "amax", ...) are for their own op file's mutants to read.
enum class Reduction { None, Add, Multiply };
Reduction reduction_of(const OpCall& c);

// The index family's shared bugs (index_add_, index_copy_, index_fill_),
// one definition each, registered by each op's mutant file under its own
// name. Each runs the cpu backend on the rewritten call, or on the call as
// it is where the bug does not apply:
//   negative index values wrapped by self.size(dim) instead of refused, for
//   an int64 index (int32 too where `int32_too`: index_add_'s dtype gate);
Outcome index_wraps_negative(Backend& cpu, OpCall& c, bool int32_too);
//   a source whose dims other than dim differ from self's cropped or
//   zero-padded to the expected shape instead of refused;
Outcome index_accepts_misshaped_source(Backend& cpu, OpCall& c);
//   index position 0 dropped, with source's slice 0 where the op has a
//   source: the loop runs i = 1..M-1.
Outcome index_skips_first(Backend& cpu, OpCall& c);

// Runs the cpu backend on a scratch copy, leaving `call` untouched.
Outcome dry_run(Backend& cpu, const OpCall& call);
bool is_error(const Outcome& o, ErrorCategory c);

}  // namespace sp::mutant
