// torch_scatter_add.cc — Tensor.scatter_add_(dim, index, src) (in place,
// writes self) and torch.scatter_add(...) (out of place: out = a copy of
// self, then the same writes; T-S9).
//
// Formula (seed 002: "Reducing with the addition operation is the same as
// using scatter_add_()"; clause T-A1), for a 3-D tensor and dim == 0:
//   self[index[i][j][k]][j][k] += src[i][j][k]
// (dim == 1, 2 move index[...] to that place). Only index positions are
// visited (T-S5).
//
// Checks, in the order they run (the same rules as scatter_ with a tensor
// src, T-A2; LibTorch 1.13 reports them under the name "scatter"):
//   T-D1  dim in [-r, r), r = logical rank of self (rank 0 counts as 1, T-D2)
//   T-E1  index.numel() == 0: nothing is read or written; T-I1, T-S2..S4
//         and T-B1 are skipped
//   T-I1  index dtype is int64
//   T-K1  src dtype == self dtype
//   T-S2  index rank == self rank == src rank
//   T-S3  index.size(d) <= src.size(d) for all d
//   T-S4  index.size(d) <= self.size(d) for all d != dim
//   T-O1  in place only: self has no internal overlap
//   T-B1  every index value in [0, self.size(dim))
// Visit order: index positions in row-major order; every visit adds one
// term. Integer sums wrap and are exact in any order; float sums with two
// or more terms on one element are an interval (order unspecified).
#include "reference/op_table.h"
#include "reference/dialect_torch.h"
#include "reference/output_builder.h"
#include "reference/reference.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_scatter_add(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(self);
  const bool dim_ok = rules::dim_in_range(log, *call.int_arg("dim"), rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(*call.int_arg("dim"), rank) : *call.int_arg("dim");
  const bool empty = rules::index_is_empty(log, index);
  const bool index_dtype_ok = empty || rules::index_is_int64(log, "scatter", index);
  rules::src_dtype_matches(log, "scatter", self, src);
  if (!empty) {
    const bool self_rank_ok = rules::same_rank(log, "T-S2", "self", self, index);
    if (rules::same_rank(log, "T-S2", "src", src, index) && self_rank_ok) {
      const std::string message = rules::scatter_shape_message(self, index, &src, dim);
      rules::index_within_src(log, index, src, message);
      if (dim_ok) rules::index_within_self_apart_from_dim(log, self, index, dim, message);
    }
  }
  if (is_inplace_op(call.op)) rules::no_internal_overlap(log, self);
  if (log.passed() && !empty && index_dtype_ok)
    rules::index_values_in_bounds(log, index, dim, ref::logical_size(self, dim));
  if (!log.passed()) return log.error_expectation();

  const std::string out_name = output_name(call.op);
  OutputBuilder out(out_name, self, trace);
  if (!empty) {
    Shape pos(static_cast<size_t>(index.rank()), 0);
    do {
      const int64_t v = ref::read_index(index, pos);
      const Shape at = ref::logical_index(index, pos);
      Shape target = at;
      target[static_cast<size_t>(dim)] = v;
      target = ref::physical_index(self, target);
      const Shape from = ref::physical_index(src, at);
      const uint64_t bits = src.bits_at(from);
      out.reduce(target, ReduceMode::Add, value_from_bits(src.dtype(), bits),
                 Write{target, pos, v, ref::element_text("src", src, from),
                       out_name + format_index(target) + " += " + format_value(src.dtype(), bits)});
    } while (next_index(pos, index.shape()));
  }
  std::vector<std::string> notes;
  if (empty) notes.push_back("T-E1: empty index, no-op (LibTorch 1.13)");
  if (!is_inplace_op(call.op)) notes.push_back("T-S9: out-of-place, out = copy of self then the writes");
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
