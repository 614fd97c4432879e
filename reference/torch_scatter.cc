// torch_scatter.cc — Tensor.scatter_(dim, index, src|value, reduce=None)
// (in place, writes self) and torch.scatter(...) (out of place: out = a
// copy of self, then the same writes; self is unchanged, T-S9).
//
// Formula (seed 002, the 3-D listing; clause T-S1), for dim == 0:
//   self[index[i][j][k]][j][k]  = src[i][j][k]   # reduce None
//   self[index[i][j][k]][j][k] += src[i][j][k]   # reduce 'add'      (T-S8)
//   self[index[i][j][k]][j][k] *= src[i][j][k]   # reduce 'multiply' (T-S8)
// with src[i][j][k] replaced by the converted scalar for the `value` form
// (002's examples pass 1.23). dim == 1, 2 move index[...] to that place.
// Only positions of index are visited: src elements outside index's extent
// are never read (T-S5, against seed 001's worked example).
//
// Checks, in the order they run (LibTorch 1.13 order; every rule runs and
// all violations are collected):
//   T-D1  dim in [-r, r), r = logical rank of self (rank 0 counts as 1, T-D2)
//   T-E1  index.numel() == 0: no element is read or written; T-I1, T-S2..S4,
//         T-V1 and T-B1 are skipped (T-K1, T-O1, T-R1 still apply)
//   T-I1  index dtype is int64
//   T-K1  src dtype == self dtype
//   T-S2  index rank == self rank, index rank == src rank (002)
//   T-S3  index.size(d) <= src.size(d) for all d (002)
//   T-S4  index.size(d) <= self.size(d) for all d != dim (002)
//   T-O1  in place only: self has no internal overlap
//   T-R1  reduce, when given, is "add" or "multiply"
//   T-B1  every index value in [0, self.size(dim)) (002: "between 0 and
//         self.size(dim) - 1 inclusive"); runs when the checks above pass
//   T-V1  value converts to self's dtype without overflow (T-V2: a
//         conversion that is undefined behaviour makes the call unspecified)
// Visit order: index positions in row-major order. Duplicate targets
// without reduce: any writer may win (002 Warning, T-S7); with reduce the
// builder gives exact integer results and float intervals.
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {
namespace ref {

// scatter_'s checks and writes. `fixed_mode` is the reduction of an op that
// takes no reduce argument: scatter_add_ is scatter_ with reduce='add'
// (002, T-A1). nullopt for scatter_ itself, whose reduce is checked (T-R1).
Expectation torch_scatter_core(const OpCall& call, std::optional<ReduceMode> fixed_mode, Trace* trace) {
  namespace rules = torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: the `value` form
  const std::optional<Scalar> value = call.scalar_arg("value");
  const int64_t dim_arg = *call.int_arg("dim");
  RuleLog log(trace);

  const int64_t rank = logical_rank(self);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? wrap_dim(dim_arg, rank) : dim_arg;
  const bool empty = rules::index_is_empty(log, index);
  if (!empty) rules::scatter_gather_index_dtype(log, "scatter", index, call.framework_version);
  if (src) rules::src_dtype_matches(log, "scatter", self, *src);
  if (!empty) {
    bool ranks_ok = rules::same_rank(log, "T-S2", "self", self, index);
    if (src) ranks_ok = rules::same_rank(log, "T-S2", "src", *src, index) && ranks_ok;
    if (ranks_ok) {
      const std::string message = rules::scatter_shape_message(self, index, src, dim);
      if (src) rules::index_within_src(log, index, *src, message);
      if (dim_ok) rules::index_within_self_apart_from_dim(log, self, index, dim, message);
    }
  }
  if (op.in_place) rules::no_internal_overlap(log, self);
  const std::optional<ReduceMode> mode = fixed_mode ? fixed_mode : rules::reduce_mode(log, call.string_arg("reduce"));
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them; LibTorch
  // reports T-V1 first for inf, T-B1 first for nan).
  if (dim_ok && !empty && index_values_readable(index))
    rules::index_values_in_bounds(log, index, dim, logical_size(self, dim));
  const bool value_undefined = value && !empty && rules::value_conversion_is_undefined(*value, self.dtype());
  std::optional<uint64_t> value_bits;
  if (value && !empty && !value_undefined) value_bits = rules::convert_value(log, *value, self.dtype());
  // Undefined behaviour anywhere makes the whole call unspecified, even
  // where it also breaks a listed rule.
  if (value_undefined)
    return unspecified_expectation("T-V2: converting " + value->to_string() + " to int64 is undefined behaviour in c10",
                                   trace);
  if (!log.passed()) return rules::with_undetected_overlap(log.error_expectation(), op.in_place, self);
  if (op.in_place)
    if (const auto reason = rules::undetected_overlap(self)) return unspecified_expectation(*reason, trace);

  OutputBuilder out(op.output, self, trace);
  const std::string value_text = value && trace ? "value " + value->to_string() : "";
  const auto write = [&](const Shape& target, uint64_t bits, const WriteOrigin& from) {
    if (*mode == ReduceMode::None)
      out.overwrite(target, bits, from);
    else
      out.reduce(target, *mode, value_from_bits(self.dtype(), bits), from);
  };
  // self[index[i][j][k]][j][k] (op)= src[i][j][k]  (or the converted value)
  for_each_index_position(index, [&](const IndexPosition& p) {
    const Shape target = position_along_dim(self, p, dim, p.value);
    if (src) {
      const Shape at = same_position(*src, p);
      write(target, src->bits_at(at), read_from(p, "src", *src, at));
    } else {
      write(target, *value_bits, scalar_from(p, value_text));
    }
  });
  std::vector<Note> notes;
  if (empty) notes.push_back({"T-E1", "empty index, no-op (LibTorch 1.13)"});
  if (!op.in_place) notes.push_back({"T-S9", "out-of-place, out = copy of self then the writes"});
  return outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace ref

Expectation torch_scatter(const OpCall& call, Trace* trace) {
  return ref::torch_scatter_core(call, std::nullopt, trace);
}

}  // namespace sp
