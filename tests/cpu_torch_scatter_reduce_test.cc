// cpu_torch_scatter_reduce_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.scatter_reduce_ / scatter_reduce
// (backends/cpu/ops/torch_scatter_reduce.cc). The fixture and the differential
// check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// scatter_reduce splits its work by outer position or by inner ranges
// (never by k, so no two threads meet on a target): small cases at the
// vector-width edges, and large ones past the parallel threshold in both
// split modes, every reduce, include_self both ways, heavy duplicates.
TEST_F(CpuBackendTest, TorchScatterReduceEveryDtypeReduceAndSplit) {
  const char* reduces[] = {"sum", "prod", "mean", "amax", "amin"};
  const auto call_of = [&](const char* op, DType t, const char* reduce, bool include_self, const Shape& self_shape,
                           const Shape& index_shape, int64_t dim, Layout layout) {
    Tensor index = make_index(DType::Int64, index_shape, kLayouts[static_cast<size_t>(uniform(0, 3))], 0,
                              self_shape[static_cast<size_t>(dim)] - 1);
    Shape src_shape = index_shape;
    for (auto& d : src_shape) d += uniform(0, 1);
    OpCall call = scatter_call(op, make(t, self_shape, layout), index, make(t, src_shape, Layout::Contiguous), dim);
    call.set_arg("reduce", Arg::of_string(reduce));
    if (!include_self || uniform(0, 1)) call.set_arg("include_self", Arg::of_bool(include_self));
    return call;
  };
  for (const char* op : {"torch.scatter_reduce_", "torch.scatter_reduce"}) {
    for (DType t : kAllDTypes) {
      for (const char* reduce : reduces) {
        for (bool include_self : {true, false}) {
          for (int64_t n : {0, 1, 9, 17}) {
            const int64_t dim = uniform(0, 1);
            const Shape self_shape{5, std::max<int64_t>(n, 1) + 1};
            agree_all_threads(call_of(op, t, reduce, include_self, self_shape, {dim == 0 ? 8 : 5, n}, dim,
                                      kLayouts[static_cast<size_t>(uniform(0, 2))]));
          }
        }
      }
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16}) {
    for (const char* reduce : reduces) {
      for (bool include_self : {true, false}) {
        // Many outer positions: split by outer (dim 1 of a tall tensor).
        agree_all_threads(
            call_of("torch.scatter_reduce_", t, reduce, include_self, {700, 60}, {700, 90}, 1, Layout::Contiguous));
        // Few outer positions, long rows: split by inner ranges (dim 0).
        agree_all_threads(
            call_of("torch.scatter_reduce", t, reduce, include_self, {40, 900}, {60, 900}, 0, Layout::Gapped));
      }
    }
  }
}

}  // namespace
}  // namespace sp
