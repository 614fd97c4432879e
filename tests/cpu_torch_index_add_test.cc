// cpu_torch_index_add_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.index_add_ / index_add
// (backends/cpu/ops/torch_index_add.cc). The fixture and the differential check:
// cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// index_add splits its work by outer position or by inner ranges (never by
// index position, so no two threads meet on a target): every dtype at the
// edge sizes (duplicates, int32/int64 and 0-d indices, alpha int / float /
// bool, a bad value, a mis-shaped source), and large cases past the parallel
// threshold in both split modes with heavy duplicates.
TEST_F(CpuBackendTest, TorchIndexAddEveryDtypeAlphaAndSplit) {
  const auto alpha_of = [&](DType t) -> std::optional<Scalar> {
    switch (uniform(0, 3)) {
      case 0:
        return std::nullopt;
      case 1:
        return Scalar::of_int(uniform(-2, 3));
      case 2:
        return Scalar::of_bool(uniform(0, 1) != 0);
      default:
        return t == DType::UInt8 ? Scalar::of_float(1.5) : Scalar::of_float(-0.75);
    }
  };
  for (const char* op : {"torch.index_add_", "torch.index_add"}) {
    for (DType t : kAllDTypes) {
      for (int64_t n : kEdgeSizes) {
        const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
        for (int64_t dim : {0, 1, -1}) {
          const Shape self_shape{rows + 1, width};
          const int64_t d = dim < 0 ? dim + 2 : dim;
          const int64_t size = self_shape[static_cast<size_t>(d)];
          const int64_t m = uniform(0, 6);
          Shape source_shape = self_shape;
          source_shape[static_cast<size_t>(d)] = m;
          const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
          Tensor index = make_index(index_t, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1);
          agree_all_threads(index_add_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]), index,
                                           make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim,
                                           alpha_of(t)));
        }
      }
      // A bad value (self untouched), a mis-shaped source, a 0-d index and self.
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 3}),
                                       make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                       make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                       make(t, {2, 1}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({}, {2}),
                                       make(t, {3, 1}, Layout::Contiguous), 1, Scalar::of_int(2)));
      agree_all_threads(index_add_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                       make(t, {3}, Layout::Contiguous), 0));
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16, DType::Bool}) {
    // Many outer positions: split by outer (dim 1 of a tall tensor).
    agree_all_threads(index_add_call("torch.index_add_", make(t, {700, 60}, Layout::Contiguous),
                                     make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                     make(t, {700, 90}, Layout::Contiguous), 1, Scalar::of_int(3)));
    // Few outer positions, long rows: split by inner ranges (dim 0).
    agree_all_threads(index_add_call("torch.index_add", make(t, {40, 900}, Layout::Gapped),
                                     make_index(DType::Int32, {60}, Layout::Contiguous, 0, 39),
                                     make(t, {60, 900}, Layout::Transposed), 0));
  }
}

}  // namespace
}  // namespace sp
