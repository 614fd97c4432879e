// The CUDA backend's per-element index arithmetic (backends/cuda/index_math.h),
// compiled by the host compiler and checked against sp::Tensor's own
// addressing. The kernels call these same functions, so this is the part of
// the CUDA backend that is tested on machines without a GPU.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "backends/cuda/index_math.h"
#include "backends/cuda/tensor_meta.h"
#include "reference/tensor.h"

namespace sp::cuda {
namespace {

enum class Layout { Contiguous, Transposed, Sliced, Offset, Expanded };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Transposed:
      return "transposed";
    case Layout::Sliced:
      return "sliced";
    case Layout::Offset:
      return "offset";
    case Layout::Expanded:
      return "expanded";
  }
  return "?";
}

// A float32 view of `shape` with the given layout over a storage just large
// enough for it.
Tensor make_view(const Shape& shape, Layout layout) {
  Shape strides = contiguous_strides(shape);
  int64_t offset = 0;
  const size_t rank = shape.size();
  switch (layout) {
    case Layout::Contiguous:
      break;
    case Layout::Transposed: {
      // Strides of the reversed shape, reversed: a full transpose.
      Shape reversed(shape.rbegin(), shape.rend());
      Shape rs = contiguous_strides(reversed);
      strides.assign(rs.rbegin(), rs.rend());
      break;
    }
    case Layout::Sliced:  // gaps between elements along every dim (widths 2, 4, 6, ...), from element 1
      for (int64_t& s : strides) s *= 2;
      for (size_t d = 0; d < rank; ++d) strides[d] = strides[d] * (d + 1);
      offset = 1;
      break;
    case Layout::Offset:
      offset = 7;
      break;
    case Layout::Expanded:  // broadcast every odd dim
      for (size_t d = 1; d < rank; d += 2) strides[d] = 0;
      offset = 2;
      break;
  }
  int64_t last = offset;
  for (size_t d = 0; d < rank; ++d)
    if (shape[d] > 0) last += (shape[d] - 1) * strides[d];
  auto storage = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(last + 1) * 4);
  return Tensor::view(DType::Float32, shape, strides, offset, storage);
}

constexpr Layout kLayouts[] = {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Offset,
                               Layout::Expanded};

// Shapes of rank 0..9 with small sizes (at most a few hundred elements).
std::vector<Shape> test_shapes() {
  std::vector<Shape> shapes;
  std::mt19937 rng(12345);
  for (int rank = 0; rank <= 9; ++rank) {
    for (int variant = 0; variant < 3; ++variant) {
      Shape s(static_cast<size_t>(rank));
      for (int64_t& size : s) size = 1 + static_cast<int64_t>(rng() % (rank <= 4 ? 4u : 2u));
      shapes.push_back(s);
    }
  }
  return shapes;
}

TEST(CudaIndexMath, LinearToMultiIndexAndOffsetMatchTensorOnEveryLayout) {
  for (const Shape& shape : test_shapes()) {
    for (Layout layout : kLayouts) {
      const Tensor t = make_view(shape, layout);
      const TensorMeta m = *meta_of(t, false);
      SCOPED_TRACE(t.describe() + " (" + layout_name(layout) + ")");
      ASSERT_EQ(meta_numel(m), t.numel());
      Shape expected(shape.size(), 0);
      for (int64_t linear = 0; linear < t.numel(); ++linear) {
        int64_t idx[kMaxMetaRank] = {};
        linear_to_multi_index(linear, m, idx);
        ASSERT_EQ(Shape(idx, idx + shape.size()), expected) << "linear " << linear;
        ASSERT_EQ(element_offset(m, idx), t.element_offset(expected)) << "at " << format_index(expected);
        next_index(expected, shape);
      }
    }
  }
}

TEST(CudaIndexMath, RankZeroIsOneElementAtTheOffset) {
  auto storage = std::make_shared<std::vector<std::byte>>(40);
  const Tensor scalar = Tensor::view(DType::Float32, {}, {}, 9, storage);
  const TensorMeta own = *meta_of(scalar, false);
  EXPECT_EQ(own.rank, 0);
  EXPECT_EQ(meta_numel(own), 1);
  EXPECT_EQ(element_offset(own, nullptr), scalar.element_offset(Shape{}));
  // PyTorch's logical view: shape [1], so dim 0 and index value 0 address it.
  const TensorMeta logical = *meta_of(scalar, true);
  ASSERT_EQ(logical.rank, 1);
  EXPECT_EQ(logical.sizes[0], 1);
  const int64_t pos[kMaxMetaRank] = {};  // the kernels' buffer size
  int64_t at = -1;
  EXPECT_EQ(scatter_target_offset(logical, pos, 0, 0, IndexRule::ZeroBased, &at), IndexStatus::Ok);
  EXPECT_EQ(at, 9);
  EXPECT_EQ(scatter_target_offset(logical, pos, 0, 1, IndexRule::ZeroBased, &at), IndexStatus::AboveRange);
}

TEST(CudaIndexMath, SizeZeroDimsHaveNoPositions) {
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{0, 2, 4}, Shape{2, 3, 0, 1}}) {
    const Tensor t = make_view(shape, Layout::Transposed);
    EXPECT_EQ(meta_numel(*meta_of(t, false)), 0) << format_shape(shape);
  }
}

TEST(CudaIndexMath, RankAboveCapacityIsRefused) {
  const Shape ones(static_cast<size_t>(kMaxMetaRank + 1), 1);
  EXPECT_FALSE(meta_of(Tensor::zeros(DType::Float32, ones), false).has_value());
  const Shape at_capacity(static_cast<size_t>(kMaxMetaRank), 1);
  EXPECT_TRUE(meta_of(Tensor::zeros(DType::Float32, at_capacity), false).has_value());
}

TEST(CudaIndexMath, BoundsFollowEachDialect) {
  for (int64_t s : {1, 3, 8}) {
    SCOPED_TRACE("size " + std::to_string(s));
    int64_t n = -99;
    // PyTorch / Paddle: [0, s).
    EXPECT_EQ(check_index_value(0, s, IndexRule::ZeroBased, &n), IndexStatus::Ok);
    EXPECT_EQ(n, 0);
    EXPECT_EQ(check_index_value(s - 1, s, IndexRule::ZeroBased, &n), IndexStatus::Ok);
    EXPECT_EQ(n, s - 1);
    EXPECT_EQ(check_index_value(s, s, IndexRule::ZeroBased, &n), IndexStatus::AboveRange);
    EXPECT_EQ(check_index_value(-1, s, IndexRule::ZeroBased, &n), IndexStatus::BelowRange);
    EXPECT_EQ(check_index_value(-s, s, IndexRule::ZeroBased, &n), IndexStatus::BelowRange);
    EXPECT_EQ(check_index_value(-s - 1, s, IndexRule::ZeroBased, &n), IndexStatus::BelowRange);
    // MindSpore: [-s, s), negative counts from the end.
    EXPECT_EQ(check_index_value(0, s, IndexRule::NegativeWraps, &n), IndexStatus::Ok);
    EXPECT_EQ(n, 0);
    EXPECT_EQ(check_index_value(s - 1, s, IndexRule::NegativeWraps, &n), IndexStatus::Ok);
    EXPECT_EQ(n, s - 1);
    EXPECT_EQ(check_index_value(s, s, IndexRule::NegativeWraps, &n), IndexStatus::AboveRange);
    EXPECT_EQ(check_index_value(-1, s, IndexRule::NegativeWraps, &n), IndexStatus::Ok);
    EXPECT_EQ(n, s - 1);
    EXPECT_EQ(check_index_value(-s, s, IndexRule::NegativeWraps, &n), IndexStatus::Ok);
    EXPECT_EQ(n, 0);
    EXPECT_EQ(check_index_value(-s - 1, s, IndexRule::NegativeWraps, &n), IndexStatus::BelowRange);
  }
  int64_t n = 0;
  for (IndexRule rule : {IndexRule::ZeroBased, IndexRule::NegativeWraps}) {
    EXPECT_EQ(check_index_value(0, 0, rule, &n), IndexStatus::AboveRange);  // a size-0 dim has no valid index
    EXPECT_EQ(check_index_value(-1, 0, rule, &n), IndexStatus::BelowRange);
  }
}

// The offset a position lands on (scatter) or reads from (gather) equals
// Tensor::element_offset of the position with `dim` replaced by the
// normalized index value, on every layout, for every dim and every value
// in and just outside the dialect's range.
TEST(CudaIndexMath, ScatterTargetAndGatherSourceMatchTensorOnEveryLayout) {
  for (const Shape& shape : test_shapes()) {
    if (shape.empty()) continue;
    for (Layout layout : kLayouts) {
      const Tensor t = make_view(shape, layout);
      const TensorMeta m = *meta_of(t, false);
      SCOPED_TRACE(t.describe() + " (" + layout_name(layout) + ")");
      for (int dim = 0; dim < m.rank; ++dim) {
        const int64_t s = shape[static_cast<size_t>(dim)];
        for (IndexRule rule : {IndexRule::ZeroBased, IndexRule::NegativeWraps}) {
          const int64_t lowest = rule == IndexRule::NegativeWraps ? -s : 0;
          Shape pos(shape.size(), 0);
          do {
            for (int64_t v = lowest - 1; v <= s; ++v) {
              int64_t scatter_at = -1, gather_from = -1;
              const IndexStatus st = scatter_target_offset(m, pos.data(), dim, v, rule, &scatter_at);
              const IndexStatus gt = gather_source_offset(m, pos.data(), dim, v, rule, &gather_from);
              ASSERT_EQ(st, gt);
              if (v < lowest || v >= s) {
                ASSERT_NE(st, IndexStatus::Ok) << "value " << v << " dim " << dim;
                continue;
              }
              ASSERT_EQ(st, IndexStatus::Ok) << "value " << v << " dim " << dim;
              Shape replaced = pos;
              replaced[static_cast<size_t>(dim)] = v < 0 ? v + s : v;
              ASSERT_EQ(scatter_at, t.element_offset(replaced)) << format_index(pos) << " dim " << dim << " v " << v;
              ASSERT_EQ(gather_from, scatter_at);
            }
          } while (next_index(pos, shape));
        }
      }
    }
  }
}

TEST(CudaIndexMath, DimOutsideTheRankIsAnErrorNotAnAccess) {
  const Tensor t = make_view({2, 3}, Layout::Contiguous);
  const TensorMeta m = *meta_of(t, false);
  const int64_t pos[kMaxMetaRank] = {};
  int64_t at = 0;
  EXPECT_EQ(scatter_target_offset(m, pos, 2, 0, IndexRule::ZeroBased, &at), IndexStatus::BadDim);
  EXPECT_EQ(gather_source_offset(m, pos, -1, 0, IndexRule::ZeroBased, &at), IndexStatus::BadDim);
}

// Paddle's row scatter runs as a dim-0 scatter whose index is the 1-D index
// expanded over the row (stride 0 on dims >= 1); each position must read
// the index element of its row.
TEST(CudaIndexMath, ExpandedRowIndexReadsOneValuePerRow) {
  auto storage = std::make_shared<std::vector<std::byte>>(64);
  const Tensor index = Tensor::view(DType::Int64, {3}, {2}, 1, storage);  // a strided 1-D index
  TensorMeta rows;
  rows.rank = 3;
  rows.sizes[0] = 3;
  rows.sizes[1] = 2;
  rows.sizes[2] = 4;
  rows.strides[0] = index.stride(0);
  rows.offset = index.offset();
  for (int64_t linear = 0; linear < meta_numel(rows); ++linear) {
    int64_t pos[kMaxMetaRank] = {};
    linear_to_multi_index(linear, rows, pos);
    EXPECT_EQ(element_offset(rows, pos), index.element_offset(Shape{pos[0]})) << "linear " << linear;
  }
}

}  // namespace
}  // namespace sp::cuda
