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
#include <optional>

#include "reference/output_builder.h"
#include "reference/reference.h"

namespace sp {
namespace ref {
// scatter_'s checks and writes with a fixed reduction (torch_scatter.cc).
Expectation torch_scatter_core(const OpCall& call, std::optional<ReduceMode> fixed_mode, Trace* trace);
}  // namespace ref

// 002: "Reducing with the addition operation is the same as using
// scatter_add_()": scatter_(dim, index, src, reduce='add'), whose checks
// LibTorch runs under the same name, "scatter" (T-A2).
Expectation torch_scatter_add(const OpCall& call, Trace* trace) {
  return ref::torch_scatter_core(call, ReduceMode::Add, trace);
}

}  // namespace sp
