// cpu_torch_index_reduce_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.index_reduce_ / index_reduce
// (backends/cpu/ops/torch_index_reduce.cc). The fixture and the differential
// check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// index_reduce splits like index_add (outer positions or inner ranges):
// every floating dtype x reduce x include_self at the edge sizes (duplicates,
// int32/int64 indices, rows never named), a bad value, a mis-shaped source,
// a 0-d self, and large cases past the parallel threshold in both split
// modes with heavy duplicates (mean's per-row count included).
TEST_F(CpuBackendTest, TorchIndexReduceEveryFloatDtypeReduceAndSplit) {
  for (const char* op : {"torch.index_reduce_", "torch.index_reduce"}) {
    for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
        for (std::optional<bool> include_self : {std::optional<bool>{}, std::optional<bool>{false}}) {
          for (int64_t n : {0, 1, 7, 16, 33}) {
            const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
            for (int64_t dim : {0, 1, -1}) {
              const Shape self_shape{rows + 1, width};
              const int64_t d = dim < 0 ? dim + 2 : dim;
              const int64_t size = self_shape[static_cast<size_t>(d)];
              const int64_t m = uniform(0, 6);
              Shape source_shape = self_shape;
              source_shape[static_cast<size_t>(d)] = m;
              const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
              agree_all_threads(index_reduce_call(
                  op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                  make_index(index_t, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                  make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim, reduce, include_self));
            }
          }
          agree_all_threads(index_reduce_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                              make(t, {2, 4}, Layout::Contiguous), 0, reduce, include_self));
          agree_all_threads(index_reduce_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                              make(t, {2, 1}, Layout::Contiguous), 0, reduce, include_self));
          agree_all_threads(index_reduce_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                              make(t, {3}, Layout::Contiguous), 0, reduce, include_self));
        }
      }
    }
  }
  for (DType t : {DType::Float32, DType::BFloat16}) {
    for (const char* reduce : {"mean", "amax"}) {
      agree_all_threads(index_reduce_call("torch.index_reduce_", make(t, {700, 60}, Layout::Contiguous),
                                          make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                          make(t, {700, 90}, Layout::Contiguous), 1, reduce, false));
      agree_all_threads(index_reduce_call("torch.index_reduce", make(t, {40, 900}, Layout::Gapped),
                                          make_index(DType::Int32, {60}, Layout::Contiguous, 0, 39),
                                          make(t, {60, 900}, Layout::Transposed), 0, reduce, std::nullopt));
    }
  }
}

}  // namespace
}  // namespace sp
