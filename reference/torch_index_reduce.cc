// torch_index_reduce.cc — Tensor.index_reduce_(dim, index, source, reduce, *,
// include_self=True) (in place, writes self) and torch.index_reduce(input,
// dim, index, source, reduce, *, include_self=True) (out of place: out = a
// copy of self, then the same reduction; self is unchanged, T-IR9).
//
// Formula (the document's listing for reduce="prod", include_self=True;
// clause T-IR1), for a 3-D tensor:
//   self[index[i], :, :] *= src[i, :, :]  # if dim == 0
//   self[:, index[i], :] *= src[:, i, :]  # if dim == 1
//   self[:, :, index[i]] *= src[:, :, i]  # if dim == 2
// and for every reduce, each element of a row (slice) of self that some
// index value names becomes reduce(its terms): the source elements reduced
// into it, one per occurrence of its row in index, plus its own value "if
// include_self" (T-IR2); with include_self=False it starts from the
// reduction's identity. A row no index value names keeps self's bits either
// way (T-IR2). The reductions are scatter_reduce's (T-IR5..T-IR7 = T-RD4..
// T-RD6: "prod" *, "mean" sum / count, "amax" max, "amin" min, NaN
// propagating; OutputBuilder resolves each kind).
//
// Checks, in the order they run (LibTorch 1.13's order; all run and every
// violation is collected):
//   T-IR3  reduce is "prod", "mean", "amax" or "amin" (before everything)
//   T-D1   dim in [-r, r), r = logical rank of self (rank 0 counts as 1)
//   T-IA2  index is a vector (rank <= 1), also when empty
//   T-IA3  index dtype is int32 or int64, also when empty
//   T-IA4  source dtype == self dtype
//   T-IA5  dim == 0 or dim < source's rank
//   T-IA6  len(index) == source.size(dim) (1 for a 0-d source)
//   T-O1   in place only: self has no internal overlap
//   T-IR8  an empty index reduces nothing: for a self of rank >= 2 nothing
//          below runs; for rank <= 1 T-IA8 still runs
//   T-IA8  source's shape is self's with dim replaced by len(index)
//          (logical shapes); LibTorch 1.13 CPU accepts a source whose slices
//          broadcast to self's (T-IR11), the document does not
//   T-IA10 every index value in [0, self.size(dim)); negative values do not
//          wrap. Runs when the checks above T-IR8 pass, whatever T-IA8 says
//          (LibTorch checks the bounds while it writes, in its identity fill
//          (include_self=False) or its loop, around building the slice
//          iterator that refuses the shape: either may be reported)
//   T-IR4  self's dtype is floating (float16, bfloat16, float32, float64);
//          any other makes the whole call unspecified, over every error
//          above ("This function only supports floating point tensors")
// Visit order: index positions in order, each reducing source's slice i
// into self's slice index[i] row-major. A float prod of >= 2 ops and a mean
// of >= 2 terms are intervals (order unspecified); "mean" only: a NaN of
// self may come back as any NaN (T-IR10, LibTorch divides the whole output).
// Source: PyTorch documentation, torch.Tensor.index_reduce_ and
// torch.index_reduce ("See index_reduce_() for function description"),
// PyTorch 1.13: https://pytorch.org/docs/1.13/generated/torch.Tensor.index_reduce_.html.
// The 1.13 page is not stored; the text was read from the stable page
// (.../docs/stable/generated/torch.Tensor.index_reduce_.html), whose two
// examples give the printed results on LibTorch 1.13.1. Where the page is
// silent: LibTorch 1.13.1 (Debian), measured (reference/SEMANTICS.md).
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_index_reduce(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t dim_arg = *call.int_arg("dim");
  const std::string reduce = *call.string_arg("reduce");
  const bool include_self = op.arg_or_default(call, "include_self")->b;  // default True
  ref::RuleLog log(trace);

  const std::optional<ReduceMode> mode = rules::index_reduce_mode(log, reduce);
  // index_add_'s meta checks (the meta function both share), T-IA14 on torch >= 2.3 among them.
  const auto [dim_ok, dim, vector, physical_shape] =
      rules::index_add_meta(log, self, index, source, dim_arg, op.in_place, call.framework_version);
  const bool empty = index.numel() == 0;
  const bool before_shape_ok = log.passed();
  // T-IR8: LibTorch 1.13's rank >= 2 loop returns on an empty index before it
  // builds the slice iterator; its rank <= 1 loop checks source's rank first.
  if (!physical_shape && (!empty || self.rank() < 2) && dim_ok && vector && before_shape_ok)
    rules::index_add_source_shape(log, self, index, source, dim);
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them).
  if (dim_ok && !empty && ref::index_values_readable(index))
    rules::index_add_values_in_bounds(log, index, ref::logical_size(self, dim));
  if (!is_floating(self.dtype()))
    return ref::unspecified_expectation("T-IR4: index_reduce of a " + std::string(dtype_name(self.dtype())) +
                                            " self: the document supports floating point tensors only",
                                        trace);
  // A note on every answer, campaign expectation entries key by it: PyTorch's
  // CPU kernel asserts on a 16-bit prod whose source slices repeat one
  // element (every dim but dim of size 1 or stride 0).
  bool one_element_slices = dim_ok && self.rank() >= 2 && source.rank() >= 2;
  for (int64_t d = 0; d < source.rank(); ++d)
    one_element_slices = one_element_slices && (d == dim || source.size(d) == 1 || source.stride(d) == 0);
  std::optional<Note> prod_note;
  if (mode == ReduceMode::Multiply && (self.dtype() == DType::Float16 || self.dtype() == DType::BFloat16) &&
      one_element_slices)
    prod_note = Note{"T-IR7", "a 16-bit prod whose source slices repeat one element (size 1 or stride 0)"};
  if (!log.passed()) {
    Expectation e = rules::with_undetected_overlap(log.error_expectation(), op.in_place, self);
    if (prod_note) e.notes.push_back(*prod_note);
    return e;
  }
  if (op.in_place)
    if (const auto reason = rules::undetected_overlap(self)) return ref::unspecified_expectation(*reason, trace);

  OutputBuilder out(op.output, self, trace);
  if (!include_self) out.exclude_initial_from_reductions();
  // self[...][index[i]][...] = reduce(self[...] if include_self, source[...][i][...], ...)
  ref::for_each_slice_position(index, source, dim,
                               [&](const ref::IndexPosition& p, const Shape& at, const Shape& target) {
                                 out.reduce(ref::physical_index(self, target), *mode, source.value_at(at),
                                            ref::read_from(p, "source", source, at));
                               });
  ExpectedTensor result = out.finish();
  if (*mode == ReduceMode::Mean)
    ref::allow_any_nan_where_initial_nan(result, self.dtype(), "T-IR10: a NaN divided by its count: any NaN");
  std::vector<Note> notes;
  if (empty) notes.push_back({"T-IR8", "empty index, no-op (LibTorch 1.13)"});
  if (!op.in_place) notes.push_back({"T-IR9", "out-of-place, out = copy of self then the reduction"});
  if (!include_self)
    notes.push_back({"T-IR2", "include_self=False: indexed rows reduce source alone; the others keep self"});
  if (*mode == ReduceMode::Mean)
    notes.push_back({"T-IR5", "mean = sum / number of terms (self counts if include_self)"});
  if (prod_note) notes.push_back(*prod_note);
  return ref::outputs_expectation({std::move(result)}, std::move(notes));
}

}  // namespace sp
