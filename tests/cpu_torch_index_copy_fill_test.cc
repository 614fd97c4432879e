// cpu_torch_index_copy_fill_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.index_copy_ / index_copy and index_fill_ / index_fill
// (backends/cpu/ops/torch_index_copy.cc, torch_index_fill.cc). The fixture and
// the differential check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// index_copy / index_fill split their work like index_add (outer positions
// or inner ranges, never index positions): every dtype at the edge sizes,
// duplicates (index_copy: the set of writers), a bad or negative value,
// argument errors, 0-d tensors, and large cases past the parallel threshold
// in both split modes.
TEST_F(CpuBackendTest, TorchIndexCopyAndFillEveryDtypeAndSplit) {
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
        for (const char* op : {"torch.index_copy_", "torch.index_copy"})
          agree_all_threads(
              index_copy_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                              make_index(DType::Int64, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                              make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim));
        for (const char* op : {"torch.index_fill_", "torch.index_fill"})
          agree_all_threads(
              index_fill_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                              make_index(DType::Int64, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                              dim, uniform(0, 1) ? Scalar::of_int(uniform(0, 1)) : Scalar::of_float(0.75)));
      }
    }
    // Bad values (self untouched), an int32 index, a mis-shaped source, 0-d tensors.
    for (const char* op : {"torch.index_copy_", "torch.index_copy"}) {
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 3}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i32({2}, {0, 1}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                        make(t, {2, 1}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                        make(t, {3}, Layout::Contiguous), 0));
    }
    for (const char* op : {"torch.index_fill_", "torch.index_fill"}) {
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 4}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -5}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i32({1}, {0}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({1}, {0}), 0, Scalar::of_int(300)));
      agree_all_threads(
          index_fill_call(op, make(t, {}, Layout::Contiguous), test::i64({}, {0}), -1, Scalar::of_float(-2.5)));
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16, DType::Bool}) {
    // Many outer positions: split by outer (dim 1 of a tall tensor), heavy duplicates.
    agree_all_threads(index_copy_call("torch.index_copy_", make(t, {700, 60}, Layout::Contiguous),
                                      make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                      make(t, {700, 90}, Layout::Contiguous), 1));
    agree_all_threads(index_fill_call("torch.index_fill_", make(t, {700, 60}, Layout::Contiguous),
                                      make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59), 1, Scalar::of_int(1)));
    // Few outer positions, long rows: split by inner ranges (dim 0).
    agree_all_threads(index_copy_call("torch.index_copy", make(t, {40, 900}, Layout::Gapped),
                                      make_index(DType::Int64, {60}, Layout::Contiguous, 0, 39),
                                      make(t, {60, 900}, Layout::Transposed), 0));
    agree_all_threads(index_fill_call("torch.index_fill", make(t, {40, 900}, Layout::Gapped),
                                      make_index(DType::Int64, {60}, Layout::Contiguous, 0, 39), 0, Scalar::of_int(0)));
  }
}

}  // namespace
}  // namespace sp
