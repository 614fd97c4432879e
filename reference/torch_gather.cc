// torch_gather.cc — torch.gather(input, dim, index) -> out.
//
// Formula (seed 000, "输出结果"; clause T-G1), for a 3-D input:
//   out[i][j][k] = input[index[i][j][k]][j][k]  # if dim == 0
//   out[i][j][k] = input[i][index[i][j][k]][k]  # if dim == 1
//   out[i][j][k] = input[i][j][index[i][j][k]]  # if dim == 2
// out has index's shape and input's dtype (000 "总结": output的形状与index的一致, T-G2).
//
// Checks, in the order they run (LibTorch 1.13 order; every one runs, all
// violations are collected, bounds only when the others pass):
//   T-D1  dim in [-r, r), r = logical rank of input (rank 0 counts as 1, T-D2)
//   T-E1  index.numel() == 0: out is an empty tensor of index's shape; the
//         rules below are skipped
//   T-I1  index dtype is int64
//   T-G3  index has input's rank (000 "总结": index的维数与input一致)
//   T-G4  index.size(d) <= input.size(d) for d != dim (LibTorch 1.13; along
//         dim index may be longer than input: 000's 3-wide index on a 2-wide
//         input succeeds, T-G5)
//   T-B1  every index value in [0, input.size(dim)) (000 "总结" and its
//         "index 2 is out of bounds for dimension 1 with size 2" example)
// Visit order: index positions in row-major order; every out element is
// written exactly once, so the result is exact bits (input's own bits,
// -0.0 and NaN payloads included).
#include "reference/dialect_torch.h"
#include "reference/output_builder.h"
#include "reference/reference.h"
#include "reference/semantics_common.h"

namespace sp {

Expectation torch_gather(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const int64_t dim_arg = *call.int_arg("dim");
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(input);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(dim_arg, rank) : dim_arg;
  const bool empty = rules::index_is_empty(log, index);
  if (!empty) {
    rules::scatter_gather_index_dtype(log, "gather", index, call.framework_version);
    const bool rank_ok = rules::same_rank(log, "T-G3", "input", input, index);
    if (dim_ok && rank_ok) rules::index_within_input_apart_from_dim(log, input, index, dim);
    if (dim_ok && ref::index_values_readable(index))
      rules::index_values_in_bounds(log, index, dim, ref::logical_size(input, dim));
  }
  if (!log.passed()) return log.error_expectation();

  OutputBuilder out("out", Tensor::zeros(input.dtype(), index.shape()), trace);
  // out[i][j][k] = input[index[i][j][k]][j][k]
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape from = ref::position_along_dim(input, p, dim, p.value);
    out.overwrite(p.pos, input.bits_at(from), ref::read_from(p, "input", input, from));
  });
  return ref::outputs_expectation({out.finish()}, {{"T-G4",
                                                    "index.size(d) <= input.size(d) for d != dim "
                                                    "(LibTorch 1.13; not stated by seed 000)"}});
}

}  // namespace sp
