// torch_scatter_reduce.cc — Tensor.scatter_reduce_(dim, index, src, reduce,
// *, include_self=True) (in place, writes self) and torch.scatter_reduce(
// input, dim, index, src, reduce, *, include_self=True) (out of place: out =
// a copy of self, then the same reduction; self is unchanged, T-S9).
//
// Formula (the document's listing for reduce="sum", include_self=True;
// clause T-RD1), for a 3-D tensor:
//   self[index[i][j][k]][j][k] += src[i][j][k]  # if dim == 0
//   self[i][index[i][j][k]][k] += src[i][j][k]  # if dim == 1
//   self[i][j][index[i][j][k]] += src[i][j][k]  # if dim == 2
// and for every reduce: each element of self that some index position
// points at becomes reduce(its terms) — the src[i][j][k] pointing at it,
// plus its own value "if include_self" (T-RD2):
//   "sum" +, "prod" *, "amax" max, "amin" min   (T-RD4, T-RD6)
//   "mean" the sum divided by the number of terms; integers floor (T-RD5)
// An element no index position points at keeps self's bits, whatever
// include_self says (T-RD2). Only positions of index are visited (T-S5).
//
// Checks, in the order they run (LibTorch 1.13's order; all run and every
// violation is collected):
//   T-D1  dim in [-r, r), r = logical rank of self (rank 0 counts as 1, T-D2)
//   T-E1  index.numel() == 0: no element is read or written; T-I1,
//         T-S2..S4 and T-B1 are skipped (T-K1, T-O1, T-RD3, T-RD7 still apply)
//   T-I1  index dtype is int64 ("index (LongTensor)")
//   T-K1  src dtype == self dtype
//   T-S2  index rank == self rank == src rank ("should all have the same
//         number of dimensions")
//   T-S3  index.size(d) <= src.size(d) for all d
//   T-S4  index.size(d) <= self.size(d) for all d != dim
//   T-O1  in place only: self has no internal overlap
//   T-RD3 reduce is "sum", "prod", "mean", "amax" or "amin"
//   T-RD7 the reduction supports self's dtype: bool has no "mean"
//   T-B1  every index value in [0, self.size(dim)); runs when the checks
//         above T-RD7 pass (a call breaking T-RD7 and T-B1 may report either)
// Visit order: index positions in row-major order, each adding one term to
// its target. Integer sum/prod wrap and are exact in any order; bool sum
// and amax are or, prod and amin are and; a float sum/prod of >= 2 ops and a
// float mean of >= 2 terms are intervals (order unspecified); amax/amin give
// the extreme term, NaN propagating (output_builder.h resolves each kind).
// "mean" only: an untouched NaN may come back as any NaN (T-RD10).
// Source: PyTorch documentation, torch.Tensor.scatter_reduce_ and
// torch.scatter_reduce ("Out-of-place version of
// torch.Tensor.scatter_reduce_()"), PyTorch 1.13: https://pytorch.org/docs/
// 1.13/generated/torch.Tensor.scatter_reduce_.html. The text was read from
// the stable page (.../docs/stable/generated/torch.Tensor.scatter_reduce_.html);
// its four examples give the printed results on LibTorch 1.13.1. Where the
// page is silent: LibTorch 1.13.1 (Debian), measured (reference/SEMANTICS.md).
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_scatter_reduce(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  const int64_t dim_arg = *call.int_arg("dim");
  const std::string reduce = *call.string_arg("reduce");
  const bool include_self = op.arg_or_default(call, "include_self")->b;  // default True
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(self);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(dim_arg, rank) : dim_arg;
  const bool empty = rules::index_is_empty(log, index);
  if (!empty) rules::scatter_gather_index_dtype(log, "scatter", index, call.framework_version);
  rules::src_dtype_matches(log, "scatter", self, src);
  if (!empty) {
    const bool self_rank_ok = rules::same_rank(log, "T-S2", "self", self, index);
    if (rules::same_rank(log, "T-S2", "src", src, index) && self_rank_ok) {
      const std::string message = rules::scatter_shape_message(self, index, &src, dim);
      rules::index_within_src(log, index, src, message);
      if (dim_ok) rules::index_within_self_apart_from_dim(log, self, index, dim, message);
    }
  }
  if (op.in_place) rules::no_internal_overlap(log, self);
  const std::optional<ReduceMode> mode = rules::scatter_reduce_mode(log, reduce);
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them; LibTorch
  // 1.13 reports T-RD7 first, but with include_self=False its identity fill
  // checks the bounds before).
  if (mode) rules::reduction_supports_dtype(log, *mode, self.dtype());
  if (dim_ok && !empty && ref::index_values_readable(index))
    rules::index_values_in_bounds(log, index, dim, ref::logical_size(self, dim));
  if (!log.passed()) return rules::with_undetected_overlap(log.error_expectation(), op.in_place, self);
  if (op.in_place)
    if (const auto reason = rules::undetected_overlap(self)) return ref::unspecified_expectation(*reason, trace);

  OutputBuilder out(op.output, self, trace);
  if (!include_self) out.exclude_initial_from_reductions();
  // self[index[i][j][k]][j][k] = reduce(self[...] if include_self, src[i][j][k], ...)
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape at = ref::same_position(src, p);
    out.reduce(ref::position_along_dim(self, p, dim, p.value), *mode, src.value_at(at),
               ref::read_from(p, "src", src, at));
  });
  ExpectedTensor result = out.finish();
  // T-RD10: a mean divides the whole output by the count (1 where nothing
  // points), which may quiet or canonicalise an untouched NaN.
  if (*mode == ReduceMode::Mean)
    ref::allow_any_nan_where_initial_nan(result, self.dtype(), "T-RD10: a NaN divided by its count: any NaN");
  std::vector<Note> notes;
  if (empty) notes.push_back({"T-E1", "empty index, no-op (LibTorch 1.13)"});
  if (!op.in_place) notes.push_back({"T-S9", "out-of-place, out = copy of self then the reduction"});
  if (!include_self)
    notes.push_back({"T-RD2", "include_self=False: indexed elements reduce src alone; the others keep self"});
  if (*mode == ReduceMode::Mean)
    notes.push_back({"T-RD5", is_floating(self.dtype())
                                  ? "mean = sum / number of terms"
                                  : "integer mean = floor(sum / number of terms) (LibTorch 1.13)"});
  return ref::outputs_expectation({std::move(result)}, std::move(notes));
}

}  // namespace sp
