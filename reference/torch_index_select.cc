// torch_index_select.cc — torch.index_select(input, dim, index) -> out.
//
// Formula (the document: "Returns a new tensor which indexes the input
// tensor along dimension dim using the entries in index"; clause T-IS1),
// for a 3-D input:
//   out[i][j][k] = input[index[i]][j][k]  # if dim == 0
//   out[i][j][k] = input[i][index[j]][k]  # if dim == 1
//   out[i][j][k] = input[i][j][index[k]]  # if dim == 2
// out has input's dtype and input's shape with dim replaced by len(index)
// ("The dim th dimension has the same size as the length of index; other
// dimensions have the same size as in the original tensor", T-IS2); a 0-d
// input gives a 0-d out (T-IS7).
//
// Checks, in the order they run (LibTorch 1.13's order, measured; all run
// and every violation is collected, bounds only when the others pass):
//   T-D1  dim in [-r, r), r = logical rank of input (rank 0 counts as 1, T-D2)
//   T-IS3 index is a vector: rank 1, or 0-d (one element)
//   T-IS4 index dtype is int32 or int64 (an empty index too)
//   T-IS7 a 0-d input takes a one-element index only; with any other
//         length the call is unspecified (LibTorch 1.13 leaves out
//         uninitialised or writes past it)
//   T-IS5 index.numel() == 0: out is empty along dim, no value is read and
//         T-IS6 is skipped (T-D1, T-IS3, T-IS4 still apply)
//   T-IS6 every index value in [0, input.size(dim)); negative values are
//         out of bounds, not wrapped
// Visit order: out positions in row-major order; every out element is
// written exactly once, so the result is exact bits (input's own bits,
// -0.0 and NaN payloads included; duplicates in index copy the same row
// twice, T-IS8).
// Source: PyTorch documentation, torch.index_select, PyTorch 1.13:
// https://pytorch.org/docs/1.13/generated/torch.index_select.html. The text
// was read from torch 1.13.1's own docstring (torch.index_select.__doc__,
// which that page is generated from) and the stored stable page
// (.../docs/stable/generated/torch.index_select.html), which has the same
// example. Where the page is silent: LibTorch 1.13.1 (Debian), measured
// (reference/SEMANTICS.md).
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_index_select(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const int64_t dim_arg = *call.int_arg("dim");
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(input);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(dim_arg, rank) : dim_arg;
  rules::index_is_vector(log, index);
  rules::index_is_int32_or_int64(log, index);
  // T-IS7 with another rule broken: torch 2.x refuses the 0-d input's
  // index of several values ("Index to scalar can have only 1 value"), one
  // more error a backend may report (C-1).
  if (!log.passed() && input.rank() == 0 && index.numel() != 1)
    log.check(
        false, "T-IS7", "a 0-d input takes an index of one value, got " + std::to_string(index.numel()),
        ErrorCategory::InvalidArgument,
        "index_select(): Index to scalar can have only 1 value, got " + std::to_string(index.numel()) + " value(s)");
  if (log.passed() && input.rank() == 0 && index.numel() != 1)
    return ref::unspecified_expectation("T-IS7: a 0-d input with an index of " + std::to_string(index.numel()) +
                                            " values: LibTorch 1.13 returns an uninitialised out (none) or writes "
                                            "past its one element (several); the document is silent",
                                        trace);
  const bool empty = index.numel() == 0;
  if (empty) log.note("index is empty: out is empty along dim, no value is read; T-IS6 skipped [T-IS5]");
  // The bounds rule runs whenever the values can be compared with a bound (C-1).
  if (dim_ok && !empty && ref::index_values_readable(index))
    rules::index_select_values_in_bounds(log, index, ref::logical_size(input, dim));
  if (!log.passed()) return log.error_expectation();

  const Shape out_shape = *output_shape_of(op, call);
  OutputBuilder out(op.output, Tensor::zeros(input.dtype(), out_shape), trace);
  std::vector<Note> notes;
  if (empty) notes.push_back({"T-IS5", "empty index, out is empty along dim"});
  // out[...][i][...] = input[...][index[i]][...]
  Shape pos(out_shape.size(), 0);
  if (checked_numel(out_shape) > 0) do {
      const Shape logical = ref::logical_index(input, pos);  // a 0-d out is read as [0] (T-IS7)
      const int64_t i = logical[static_cast<size_t>(dim)];
      const Shape index_pos = index.rank() == 0 ? Shape{} : Shape{i};
      const ref::IndexPosition p{index_pos, Shape{i}, ref::read_index(index, index_pos)};
      Shape from_logical = logical;
      from_logical[static_cast<size_t>(dim)] = p.value;
      const Shape from = ref::physical_index(input, from_logical);
      out.overwrite(pos, input.bits_at(from), ref::read_from(p, "input", input, from));
    } while (next_index(pos, out_shape));
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
