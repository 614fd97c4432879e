// cpu_torch_index_select_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.index_select (backends/cpu/ops/torch_index_select.cc).
// The fixture and the differential check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// index_select runs as a gather over the index expanded along out's other
// dims: whole-slice memcpy when input is unit-stride after dim (dim 0 of a
// contiguous input), the per-element path when dim is last, the strided
// path otherwise; rows split across threads past the parallel threshold.
// A bad value first or last (the fused check), 0-d inputs and indices, an
// empty index and size-0 dims elsewhere (values still checked).
TEST_F(CpuBackendTest, TorchIndexSelectEveryPathAndSplit) {
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      for (int64_t dim : {0, 1, -1}) {
        const Shape input_shape{rows + 1, width};
        const int64_t size = input_shape[static_cast<size_t>(dim < 0 ? dim + 2 : dim)];
        const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
        agree_all_threads(index_select_call(
            make(t, input_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
            make_index(index_t, {n}, kLayouts[static_cast<size_t>(uniform(0, 3))], 0, size - 1), dim));
      }
    }
  }
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int8, DType::Float64}) {
    for (Layout layout : kLayouts) {
      // Slices of 33 past the parallel threshold (memcpy when contiguous).
      agree_all_threads(index_select_call(make(t, {500, 33}, layout),
                                          make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499), 0));
      // Last dim past the threshold: one index read per element.
      agree_all_threads(
          index_select_call(make(t, {67, 601}, layout), make_index(DType::Int32, {599}, Layout::Gapped, 0, 600), 1));
      // Middle dim of rank 3.
      agree_all_threads(index_select_call(make(t, {9, 40, 130}, layout),
                                          make_index(DType::Int64, {41}, Layout::Contiguous, 0, 39), 1));
    }
  }
  for (int64_t bad : {int64_t{-1}, int64_t{500}, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      Tensor index = make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499);
      index.set_bits_at({at_end ? 3000 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(index_select_call(make(DType::Float32, {500, 33}, Layout::Contiguous), index, 0));
      agree_all_threads(index_select_call(make(DType::Float32, {33, 500}, Layout::Transposed), index, 1));
    }
  }
  // 0-d input (one value, which must be 0; other lengths are unspecified) and 0-d index.
  for (const Shape& index_shape : {Shape{}, Shape{1}, Shape{3}, Shape{0}})
    for (int64_t hi : {0, 1})
      agree_all_threads(index_select_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, index_shape, Layout::Contiguous, 0, hi), -1));
  agree_all_threads(index_select_call(make(DType::Int16, {4, 5}, Layout::Contiguous),
                                      make_index(DType::Int32, {}, Layout::Contiguous, 0, 4), 1));
  // Nothing to write, values still checked: size-0 dims and an empty index.
  for (int64_t hi : {2, 3}) {
    agree_all_threads(index_select_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {4}, Layout::Contiguous, 0, hi), 1));
    agree_all_threads(index_select_call(make(DType::Float32, {3, 0}, Layout::Contiguous),
                                        make_index(DType::Int64, {4}, Layout::Contiguous, 0, hi), 0));
  }
  agree_all_threads(index_select_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                      make_index(DType::Int64, {2}, Layout::Contiguous, 0, 0), 0));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int64, {0}, Layout::Contiguous, 0, 0), 1));
  // Argument errors, in LibTorch's order.
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int64, {2, 1}, Layout::Contiguous, 0, 1), 2));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int16, {2, 1}, Layout::Contiguous, 0, 1), 0));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::UInt8, {2}, Layout::Contiguous, 0, 9), 0));
}

}  // namespace
}  // namespace sp
