// paddle_scatter_nd.cc — paddle.scatter_nd(index, updates, shape) -> out.
//
// Formula ("scatter_nd(index, updates, shape) is equal to
// scatter_nd_add(paddle.zeros(shape, updates.dtype), index, updates)";
// PD-SN1), Q = index.shape[-1]:
//   out = zeros(shape, updates.dtype)
//   for idx in ndindex(index.shape[:-1]):
//     out[tuple(index[idx])] += updates[idx]   # a slice shape[Q:] when Q < len(shape)
// "If index has repeated elements, then the corresponding updates are
// accumulated. Because of the numerical approximation issues, the different
// order of repeated elements in index may cause different results": the
// adds of a float element are an interval (reference/float_bounds.h); 0.0
// is their first term (a single -0.0 update gives +0.0). The rules are
// scatter_nd_add's with `shape` as x's shape (reference/paddle_nd_add.h).
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   PD-SN2  every entry of shape >= 0                           (invalid_argument)
//   PD-SN3  index.ndim >= 1 ("The index input with ndim >= 1")  (invalid_argument)
//   PD-SN4  index dtype int32 or int64                          (index_dtype)
//   PD-SN5  Q <= len(shape)                                     (shape_mismatch)
//   PD-SN6  updates.shape == index.shape[:-1] + shape[Q:]       (rank_mismatch
//           for another rank, else shape_mismatch)
//   PD-SN7  every index[..., j] < s = shape[j] and, from Paddle 3.0, >= -s
//           (index_out_of_bounds); from 3.0 v < 0 is v + s, before a
//           negative value makes the call unspecified
//   PD-SN8  updates dtype documented (float32, float64); another allows
//           both the result and unsupported_dtype
// Notes (campaign expectation entries key by them): an operand with no
// element (PD-SN9: every rule still applies), Q = 0 (PD-SN10), a rank above
// 8 (PD-SN11), a 0-d updates (PD-SN12).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/scatter_nd_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring and its code example; 2.6.2's
// is the same); where silent, PaddlePaddle 3.3.1, 3.0.0 and 2.6.2 CPU
// measured (SEMANTICS.md PD-SN*).
#include "reference/op_table.h"
#include "reference/paddle_nd_add.h"

namespace sp {

Expectation paddle_scatter_nd(const OpCall& call, Trace* trace) {
  const Tensor &index = *call.tensor("index"), &updates = *call.tensor("updates");
  const std::vector<int64_t> shape = op_spec(call).arg_or_default(call, "shape")->ints;
  static const ref::paddle_nd::NdAddClauses kClauses{.formula = "PD-SN1",
                                                     .index_rank = "PD-SN3",
                                                     .min_index_rank = 1,
                                                     .index_rank_text = "The index input with ndim >= 1",
                                                     .index_dtype = "PD-SN4",
                                                     .tuple_length = "PD-SN5",
                                                     .updates_shape = "PD-SN6",
                                                     .bounds = "PD-SN7",
                                                     .dtype = "PD-SN8",
                                                     .empty = "PD-SN9",
                                                     .whole = "PD-SN10",
                                                     .rank = "PD-SN11",
                                                     .scalar_updates = "PD-SN12",
                                                     .base_name = "shape"};
  ref::RuleLog log(trace);
  bool shape_ok = true;
  for (size_t d = 0; d < shape.size() && shape_ok; ++d)
    shape_ok =
        log.check(shape[d] >= 0, "PD-SN2", "shape[" + std::to_string(d) + "]=" + std::to_string(shape[d]) + " >= 0",
                  ErrorCategory::InvalidArgument, "Each value of attribute 'shape' is expected to be no less than 0");
  std::optional<Tensor> base;
  if (shape_ok) base = Tensor::zeros(updates.dtype(), Shape(shape.begin(), shape.end()));
  const DType t = updates.dtype();
  return ref::paddle_nd::add_slices(call, log, base, static_cast<int64_t>(shape.size()), index, updates,
                                    t == DType::Float32 || t == DType::Float64, kClauses, trace);
}

}  // namespace sp
