#include "backends/cpu/output_pool.h"

#include <algorithm>
#include <stdexcept>

namespace sp::cpu {

Tensor OutputPool::uninitialized(DType dtype, const Shape& shape) {
  const int64_t n = checked_numel(shape);
  if (n < 0) throw std::invalid_argument("tensor size overflows int64: " + format_shape(shape));
  const size_t bytes = static_cast<size_t>(n) * dtype_size(dtype);
  if (bytes < kMinPooledBytes) return Tensor::zeros(dtype, shape);
  const auto released = [](const std::shared_ptr<std::vector<std::byte>>& s) { return s.use_count() == 1; };
  auto reusable =
      std::find_if(kept_.begin(), kept_.end(), [&](const auto& s) { return released(s) && s->size() == bytes; });
  std::shared_ptr<std::vector<std::byte>> storage;
  if (reusable != kept_.end()) {
    storage = *reusable;
    kept_.erase(reusable);
  } else {
    // Evict released storages first (they free memory), then forget the oldest held one.
    while (kept_.size() >= kKept) {
      auto victim = std::find_if(kept_.begin(), kept_.end(), released);
      kept_.erase(victim != kept_.end() ? victim : kept_.begin());
    }
    storage = std::make_shared<std::vector<std::byte>>(bytes);
  }
  kept_.push_back(storage);
  return Tensor::view(dtype, shape, contiguous_strides(shape), 0, std::move(storage));
}

}  // namespace sp::cpu
