// cpu_torch_gather_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.gather (backends/cpu/ops/torch_gather.cc,
// gather_kernel.cc). The fixture and the differential check:
// cpu_backend_fixture.h.
#include "backends/cpu/kernels.h"
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

TEST_F(CpuBackendTest, GatherEveryDtypeLayoutAndEdgeSize) {
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const Layout layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const Layout index_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      const int64_t dim = uniform(0, 1);
      const Shape input_shape{rows + 1, width};
      Shape index_shape{rows, n};
      index_shape[static_cast<size_t>(dim)] = dim == 0 ? rows + 2 : n;  // along dim the index may be longer
      const int64_t size = input_shape[static_cast<size_t>(dim)];
      agree_all_threads(gather_call(make(t, input_shape, layout),
                                    make_index(DType::Int64, index_shape, index_layout, 0, size - 1), dim));
    }
  }
}

TEST_F(CpuBackendTest, GatherLargeLastDimAndExpandedRows) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int8, DType::Float64}) {
    // Last-dim gather past the parallel threshold; rows split across threads.
    agree_all_threads(gather_call(make(t, {67, 601}, Layout::Contiguous),
                                  make_index(DType::Int64, {67, 599}, Layout::Contiguous, 0, 600), 1));
    // Row gather along dim 0 with an index expanded along the last dim (memcpy rows).
    Tensor rows = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
    Tensor expanded = Tensor::view(DType::Int64, {3001, 33}, {1, 0}, rows.offset(), rows.storage());
    agree_all_threads(gather_call(make(t, {500, 33}, Layout::Contiguous), expanded, 0));
    agree_all_threads(gather_call(make(t, {500, 33}, Layout::Gapped), expanded, 0));
    // Rank 3, middle dim, transposed input.
    agree_all_threads(gather_call(make(t, {9, 40, 130}, Layout::Transposed),
                                  make_index(DType::Int64, {9, 41, 129}, Layout::Gapped, 0, 39), 1));
  }
  // Rank-0 input and index.
  agree_all_threads(gather_call(make(DType::Float32, {}, Layout::Contiguous),
                                make_index(DType::Int64, {}, Layout::Contiguous, 0, 0), -1));
}

// Gather checks its index inside the kernel (no separate pass): a bad value
// at the first or last position of each kernel path, on both sides of the
// range, must still be an IndexOutOfBounds error (and a 1-thread fallback
// part must not miss it).
TEST_F(CpuBackendTest, GatherFusedBoundsCheckCatchesEveryPath) {
  const int64_t rows = 67, cols = 601;
  for (int64_t bad : {int64_t{-1}, cols, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      // Last-dim path, past the parallel threshold.
      Tensor index = make_index(DType::Int64, {rows, cols - 2}, Layout::Contiguous, 0, cols - 1);
      index.set_bits_at({at_end ? rows - 1 : 0, at_end ? cols - 3 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(gather_call(make(DType::Float32, {rows, cols}, Layout::Contiguous), index, 1));
      // Row path: an index expanded along the last dim.
      Tensor per_row = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
      per_row.set_bits_at({at_end ? 3000 : 0, 0}, static_cast<uint64_t>(bad < 0 ? bad : 500 + (bad - cols)));
      agree_all_threads(gather_call(make(DType::Float32, {500, 33}, Layout::Contiguous),
                                    Tensor::view(DType::Int64, {3001, 33}, {1, 0}, 0, per_row.storage()), 0));
      // Element path: a strided index along a middle dim.
      Tensor mid = make_index(DType::Int64, {9, 41, 129}, Layout::Gapped, 0, 39);
      mid.set_bits_at({at_end ? 8 : 0, at_end ? 40 : 0, at_end ? 128 : 0}, static_cast<uint64_t>(bad < 0 ? bad : 40));
      agree_all_threads(gather_call(make(DType::Float32, {9, 40, 130}, Layout::Transposed), mid, 1));
    }
  }
}

}  // namespace
// The streamed row copy of gather_kernel (non-temporal stores, taken for
// large outputs) called directly with a zero threshold: the same bytes as the
// plain copy for rows of every width (head and tail bytes outside the 64-byte
// blocks, out rows not 16-byte aligned), and a bad value still refused.
TEST(CpuGatherKernel, StreamedRowCopyWritesWhatThePlainCopyWrites) {
  cpu::ThreadPool pool(2);
  std::mt19937_64 gen(5);
  for (int64_t width : {1, 3, 16, 17, 40, 129}) {
    const int64_t rows = 300, out_rows = 5000;
    std::vector<uint32_t> input(static_cast<size_t>(rows * width));
    for (auto& v : input) v = static_cast<uint32_t>(gen());
    std::vector<int64_t> index(static_cast<size_t>(out_rows));
    for (auto& v : index) v = static_cast<int64_t>(gen() % rows);
    // Index [out_rows, width] with strides [1, 0]; out and input contiguous.
    const cpu::IndexWalk walk = cpu::make_walk({out_rows, width}, 0, {width, 1}, {1, 0}, {width, 1}, rows);
    for (int64_t misalign : {0, 1}) {
      std::vector<uint32_t> plain(static_cast<size_t>(out_rows * width + 1)), streamed(plain.size());
      const auto run = [&](std::vector<uint32_t>& out, int64_t threshold) {
        return cpu::gather_kernel(DType::Int32, DType::Int64, reinterpret_cast<const std::byte*>(input.data()),
                                  reinterpret_cast<const std::byte*>(index.data()),
                                  reinterpret_cast<std::byte*>(out.data() + misalign), walk, pool, threshold);
      };
      ASSERT_TRUE(run(plain, INT64_MAX));
      ASSERT_TRUE(run(streamed, 0));
      ASSERT_EQ(plain, streamed) << "width " << width << ", out misaligned by " << misalign * 4 << " bytes";
      for (int64_t r = 0; r < out_rows; r += 997)
        EXPECT_EQ(streamed[static_cast<size_t>(r * width + misalign)],
                  input[static_cast<size_t>(index[static_cast<size_t>(r)] * width)]);
    }
    index[static_cast<size_t>(out_rows - 1)] = rows;
    std::vector<uint32_t> out(static_cast<size_t>(out_rows * width));
    EXPECT_FALSE(cpu::gather_kernel(DType::Int32, DType::Int64, reinterpret_cast<const std::byte*>(input.data()),
                                    reinterpret_cast<const std::byte*>(index.data()),
                                    reinterpret_cast<std::byte*>(out.data()), walk, pool, 0));
  }
}

}  // namespace sp
