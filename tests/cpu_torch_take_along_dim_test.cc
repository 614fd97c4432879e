// cpu_torch_take_along_dim_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.take_along_dim
// (backends/cpu/ops/torch_take_along_dim.cc). The fixture and the differential
// check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

TEST_F(CpuBackendTest, TorchTakeAlongDimBroadcastNoneAndSplit) {
  // Every dtype and layout, indices broadcast on either side of every dim
  // but dim (T-TA5), sizes around the walk's thresholds.
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      for (int64_t dim : {0, 1, -1}) {
        const int64_t d = dim < 0 ? dim + 2 : dim;
        const Shape input_shape{rows + 1, width};
        const int64_t size = input_shape[static_cast<size_t>(d)];
        Shape input_s = input_shape, index_s = input_shape;
        index_s[static_cast<size_t>(d)] = n;
        const size_t other = d == 0 ? 1 : 0;
        switch (uniform(0, 2)) {
          case 0:
            index_s[other] = 1;  // indices broadcasts
            break;
          case 1:
            input_s[other] = 1;  // input broadcasts
            break;
          default:
            break;
        }
        agree_all_threads(
            take_along_dim_call(make(t, input_s, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                                make_index(DType::Int64, index_s, kLayouts[static_cast<size_t>(uniform(0, 3))], 0,
                                           std::max<int64_t>(size, 1) - 1),
                                dim));
      }
      // dim=None: both flattened, every layout (copies where not contiguous).
      const Layout input_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const Layout index_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      agree_all_threads(take_along_dim_call(make(t, {rows, 3}, input_layout),
                                            make_index(DType::Int64, {2, width}, index_layout, 0, rows * 3 - 1),
                                            std::nullopt));
    }
  }
  for (Layout layout : kLayouts) {
    // Past the parallel threshold, a broadcast [1, 601] indices and a [1, 33] input.
    agree_all_threads(take_along_dim_call(make(DType::Float32, {67, 601}, layout),
                                          make_index(DType::Int64, {1, 601}, Layout::Contiguous, 0, 66), 0));
    agree_all_threads(take_along_dim_call(make(DType::BFloat16, {1, 33}, layout),
                                          make_index(DType::Int64, {500, 40}, Layout::Gapped, 0, 32), 1));
    agree_all_threads(take_along_dim_call(make(DType::Int8, {9, 40, 130}, layout),
                                          make_index(DType::Int64, {9, 41, 1}, layout, 0, 39), 1));
  }
  // A bad value anywhere (first or last), with dim and without.
  for (int64_t bad : {int64_t{500}, int64_t{-501}, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      Tensor index = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
      index.set_bits_at({at_end ? 3000 : 0, 0}, static_cast<uint64_t>(bad));
      agree_all_threads(take_along_dim_call(make(DType::Float32, {500, 33}, Layout::Contiguous), index, 0));
      Tensor flat = make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499);
      flat.set_bits_at({at_end ? 3000 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(take_along_dim_call(make(DType::Float32, {20, 25}, Layout::Transposed), flat, std::nullopt));
    }
  }
  // Negative values in [-s, 0): the reference allows the wrap or the error
  // (T-TA7); the cpu backend refuses them as LibTorch 1.13 does.
  for (std::optional<int64_t> dim : {std::optional<int64_t>{1}, std::optional<int64_t>{}}) {
    OpCall c = take_along_dim_call(make(DType::Float32, {2, 3}, Layout::Contiguous),
                                   make_index(DType::Int64, {2, 1}, Layout::Contiguous, -1, -1), dim);
    ASSERT_TRUE(evaluate(c).allows_error(ErrorCategory::IndexOutOfBounds));
    const Outcome got = backend(1).run(c);
    ASSERT_EQ(got.kind, Outcome::Kind::Error) << got.message;
    EXPECT_EQ(*got.error, ErrorCategory::IndexOutOfBounds) << got.message;
  }
  // 0-d operands, empty outs (no value read), and the argument errors in
  // LibTorch's order.
  for (int64_t hi : {0, 1}) {
    agree_all_threads(take_along_dim_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, {}, Layout::Contiguous, 0, hi), 0));
    agree_all_threads(take_along_dim_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, {3}, Layout::Contiguous, 0, hi), std::nullopt));
  }
  agree_all_threads(take_along_dim_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {1, 2}, Layout::Contiguous, 5, 9), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {1, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {0, 1}, Layout::Contiguous, 0, 0), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 0}, Layout::Contiguous),
                                        make_index(DType::Int64, {3, 2}, Layout::Contiguous, 0, 0), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {2}, Layout::Contiguous, 0, 0), std::nullopt));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int64, {2, 2}, Layout::Contiguous, 0, 1), 1));  // shape
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {3, 1}, Layout::Contiguous, 0, 1), 5));  // dtype
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {3}, Layout::Contiguous, 0, 1), 5));  // rank
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int64, {3, 1}, Layout::Contiguous, 0, 1), -3));  // dim
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {0}, Layout::Contiguous, 0, 1), std::nullopt));
}

}  // namespace
}  // namespace sp
