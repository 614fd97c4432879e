// tensor_meta.h — host-only: an sp::Tensor's layout as a device TensorMeta.
//
// Kept apart from index_math.h so that header stays free of the reference's
// host types (std::vector, shared storage) and compiles for the device.
#pragma once

#include <optional>

#include "backends/cuda/index_math.h"
#include "reference/tensor.h"

namespace sp::cuda {

// The layout of `t`; nullopt when its rank exceeds kMaxMetaRank. With
// `rank0_as_1`, a rank-0 tensor is described as shape [1] (PyTorch's
// logical view of a scalar, which scatter/gather address by dim 0).
inline std::optional<TensorMeta> meta_of(const Tensor& t, bool rank0_as_1) {
  if (t.rank() > kMaxMetaRank) return std::nullopt;
  TensorMeta m;
  m.offset = t.offset();
  if (t.rank() == 0 && rank0_as_1) {
    m.rank = 1;
    m.sizes[0] = 1;
    m.strides[0] = 0;
    return m;
  }
  m.rank = static_cast<int>(t.rank());
  for (int d = 0; d < m.rank; ++d) {
    m.sizes[d] = t.size(d);
    m.strides[d] = t.stride(d);
  }
  return m;
}

}  // namespace sp::cuda
