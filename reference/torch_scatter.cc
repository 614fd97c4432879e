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
#include "reference/op_table.h"
#include "reference/dialect_torch.h"
#include "reference/output_builder.h"
#include "reference/reference.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_scatter(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: the `value` form
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(self);
  const bool dim_ok = rules::dim_in_range(log, *call.int_arg("dim"), rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(*call.int_arg("dim"), rank) : *call.int_arg("dim");
  const bool empty = rules::index_is_empty(log, index);
  const bool index_dtype_ok = empty || rules::index_is_int64(log, "scatter", index);
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
  if (is_inplace_op(call.op)) rules::no_internal_overlap(log, self);
  const std::optional<ReduceMode> mode = rules::reduce_mode(log, call.string_arg("reduce"));
  // The bounds check needs the structure checks above, not the value's
  // conversion: a call breaking both T-B1 and T-V1 may report either
  // (LibTorch reports T-V1 first for inf, T-B1 first for nan).
  if (log.passed() && !empty && index_dtype_ok)
    rules::index_values_in_bounds(log, index, dim, ref::logical_size(self, dim));
  const bool value_undefined = call.scalar_arg("value") && !empty && rules::value_conversion_is_undefined(*call.scalar_arg("value"), self.dtype());
  std::optional<uint64_t> value_bits;
  if (call.scalar_arg("value") && !empty && !value_undefined) value_bits = rules::convert_value(log, *call.scalar_arg("value"), self.dtype());
  // Undefined behaviour anywhere makes the whole call unspecified, even
  // where it also breaks a listed rule.
  if (value_undefined)
    return ref::unspecified_expectation(
        "T-V2: converting " + call.scalar_arg("value")->to_string() + " to int64 is undefined behaviour in c10", trace);
  if (!log.passed()) return log.error_expectation();

  const std::string out_name = output_name(call.op);
  OutputBuilder out(out_name, self, trace);
  const char* op_text = *mode == ReduceMode::Add ? " += " : *mode == ReduceMode::Multiply ? " *= " : " = ";
  if (!empty) {
    Shape pos(static_cast<size_t>(index.rank()), 0);
    do {
      const int64_t v = ref::read_index(index, pos);
      const Shape at = ref::logical_index(index, pos);
      Shape target = at;
      target[static_cast<size_t>(dim)] = v;
      target = ref::physical_index(self, target);
      uint64_t bits = 0;
      std::string source;
      if (src) {
        const Shape from = ref::physical_index(*src, at);
        bits = src->bits_at(from);
        source = ref::element_text("src", *src, from);
      } else {
        bits = *value_bits;
        source = "value " + call.scalar_arg("value")->to_string();
      }
      Write why{target, pos, v, source, out_name + format_index(target) + op_text + format_value(self.dtype(), bits)};
      if (*mode == ReduceMode::None)
        out.overwrite(target, bits, std::move(why));
      else
        out.reduce(target, *mode, value_from_bits(self.dtype(), bits), std::move(why));
    } while (next_index(pos, index.shape()));
  }
  std::vector<std::string> notes;
  if (empty) notes.push_back("T-E1: empty index, no-op (LibTorch 1.13)");
  if (!is_inplace_op(call.op)) notes.push_back("T-S9: out-of-place, out = copy of self then the writes");
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
