// torch_index_copy.cc — Tensor.index_copy_(dim, index, source) (in place,
// writes self) and torch.index_copy(input, dim, index, source) (out of
// place: out = a copy of self, then the same copies; self is unchanged,
// T-IC8).
//
// Formula (the document's; clause T-IC1), for dim 0:
//   self[index[i], ...] = source[i, ...]
// and the analogues along dim. A 0-d self / source counts as shape [1] and
// a 0-d index as [index] (T-D2). An element no index value points at keeps
// self's bits. Duplicate index values: several slices are copied to one
// place, "the result is nondeterministic since it depends on which copy
// occurs last": any one writer may win (a set).
//
// Checks, in the order they run (LibTorch 1.13's; all run and every
// violation is collected):
//   T-D1   dim in [-r, r), r = logical rank of self
//   T-O1   in place only: self has no internal overlap
//   T-IC2  index is a vector (rank <= 1), also when empty
//   T-IC3  index dtype is int64 (int32 refused), also when empty
//   T-IC4  source dtype == self dtype
//   T-IC5  source's logical shape is self's with dim replaced by len(index)
//          (LibTorch 1.13 checks the ranks before T-IC3, the other dims and
//          then len(index) after T-IC4: all shape_mismatch)
//   T-IC6  an empty index copies nothing (the checks above still apply)
//   T-IC7  every index value in [0, self.size(dim)); negative values do not
//          wrap. A self with no elements: the document writes nothing there
//          and LibTorch 1.13 checks no value when the slice it would copy
//          has no elements either: error or no-op are both allowed
// Visit order: index positions in order, each copying source's slice i to
// self's slice index[i] row-major; the reference's representative is the
// last writer.
// Source: PyTorch documentation, torch.Tensor.index_copy_ and
// torch.index_copy, PyTorch 1.13:
// https://pytorch.org/docs/1.13/generated/torch.Tensor.index_copy_.html (the
// text was read from torch 1.13.1's own docstring,
// torch.Tensor.index_copy_.__doc__, which the page is generated from).
// Where the page is silent: LibTorch 1.13.1 (Debian), measured
// (reference/SEMANTICS.md).
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_index_copy(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t dim_arg = *call.int_arg("dim");
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(self);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(dim_arg, rank) : dim_arg;
  if (op.in_place) rules::no_internal_overlap(log, self);
  const bool vector = rules::index_copy_index_is_vector(log, index);
  rules::index_copy_index_dtype(log, index);
  rules::index_copy_source_dtype(log, self, source);
  if (dim_ok && vector) rules::index_copy_source_shape(log, self, index, source, dim);
  // C-1: with another rule broken, the bounds rule is one more a backend may
  // report (whenever the values can be compared with a bound).
  if (!log.passed() && dim_ok && ref::index_values_readable(index))
    rules::index_copy_values_in_bounds(log, index, dim, ref::logical_size(self, dim));
  if (!log.passed()) return rules::with_undetected_overlap(log.error_expectation(), op.in_place, self);
  if (op.in_place)
    if (const auto reason = rules::undetected_overlap(self)) return ref::unspecified_expectation(*reason, trace);

  const int64_t size = ref::logical_size(self, dim);
  ref::RuleLog bounds(trace);
  rules::index_copy_values_in_bounds(bounds, index, dim, size);
  OutputBuilder out(op.output, self, trace);
  std::vector<Note> notes;
  if (!op.in_place) notes.push_back({"T-IC8", "out-of-place, out = copy of self then the copies"});
  if (!bounds.passed()) {
    if (self.numel() > 0) return bounds.error_expectation();
    // Nothing to write into: the error or the unchanged (empty) tensor.
    Expectation either = bounds.error_expectation();
    either.outputs = std::vector<ExpectedTensor>{out.finish()};
    either.notes.push_back({"T-IC7", "self has no elements; an out-of-range index value may be refused or ignored"});
    return either;
  }
  if (index.numel() == 0) {
    notes.push_back({"T-IC6", "empty index, nothing copied"});
    return ref::outputs_expectation({out.finish()}, std::move(notes));
  }

  ref::for_each_slice_position(
      index, source, dim, [&](const ref::IndexPosition& p, const Shape& at, const Shape& target) {
        out.overwrite(ref::physical_index(self, target), source.bits_at(at), ref::read_from(p, "source", source, at));
      });
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
