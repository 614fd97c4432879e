// backends/cpu/nd_slices.h: the shared ND walk reads index tuples of every
// integer dtype (MindSpore's ND ops take any), refuses an unsigned value
// past int64's range instead of wrapping it, and drops an outside tuple
// where asked (tensor_scatter_mul) instead of failing.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backends/cpu/nd_slices.h"
#include "reference/tensor.h"

namespace sp {
namespace {

// A (rows x 2) index tensor of dtype t holding `bits`, row-major.
Tensor index_tensor(DType t, const std::vector<uint64_t>& bits) {
  Tensor ix = Tensor::zeros(t, {static_cast<int64_t>(bits.size() / 2), 2});
  for (size_t i = 0; i < bits.size(); ++i)
    ix.set_bits_at({static_cast<int64_t>(i / 2), static_cast<int64_t>(i % 2)}, bits[i]);
  return ix;
}

TEST(CpuNdSlices, EveryIntegerIndexDtypeResolvesToTheSameOffsets) {
  const Tensor input = Tensor::zeros(DType::Float32, {3, 4, 5});  // strides 20, 5, 1
  for (DType t : {DType::UInt8, DType::Int8, DType::Int16, DType::UInt16, DType::Int32, DType::UInt32, DType::Int64,
                  DType::UInt64}) {
    const cpu::NdTuples r = cpu::resolve_nd_tuples(input, index_tensor(t, {2, 3, 0, 1, 1, 0}), 0, false);
    ASSERT_FALSE(r.error) << dtype_name(t);
    EXPECT_EQ(r.offsets, (std::vector<int64_t>{2 * 20 + 3 * 5, 1 * 5, 1 * 20})) << dtype_name(t);
  }
}

TEST(CpuNdSlices, AnUnsignedValuePastInt64IsOutsideNotWrapped) {
  const Tensor input = Tensor::zeros(DType::Float32, {3, 4});
  // 2^64 - 1 would read as -1, which wraps to the last row where negatives wrap.
  const Tensor ix = index_tensor(DType::UInt64, {0, 1, ~uint64_t{0}, 0});
  for (bool wrap : {false, true}) {
    const cpu::NdTuples r = cpu::resolve_nd_tuples(input, ix, 0, wrap);
    ASSERT_TRUE(r.error) << wrap;
    EXPECT_EQ(*r.error->error, ErrorCategory::IndexOutOfBounds);
  }
  const cpu::NdTuples dropped = cpu::resolve_nd_tuples(input, ix, 0, false, true);
  EXPECT_FALSE(dropped.error);
  EXPECT_EQ(dropped.offsets, (std::vector<int64_t>{1, -1}));
}

TEST(CpuNdSlices, DroppingKeepsTheTuplesInsideAndMarksEachOutsideOne) {
  const Tensor input = Tensor::zeros(DType::Float32, {2, 3});
  const Tensor ix = index_tensor(DType::Int8, {1, 2, static_cast<uint8_t>(-1), 0, 0, 3, 1, 0});
  const cpu::NdTuples r = cpu::resolve_nd_tuples(input, ix, 0, false, true);
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{5, -1, -1, 3}));
  const cpu::NdTuples failed = cpu::resolve_nd_tuples(input, ix, 0, false);
  ASSERT_TRUE(failed.error);
  EXPECT_NE(failed.error->message.find("indices[1][0] = -1"), std::string::npos) << failed.error->message;
}

}  // namespace
}  // namespace sp
