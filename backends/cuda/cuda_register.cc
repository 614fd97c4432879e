// cuda_register.cc — backends "cuda" and "cuda-deterministic": the shared
// CUDA backend (cuda_backend.h) on the GPU (scatter_gather.cu). Built only
// where nvcc is found; the factory answers nullptr (unavailable) where the
// runtime sees no device.
#include "backends/cuda/cuda_backend.h"

namespace sp {

void register_cuda_backend() {
  const auto factory = [](bool deterministic) {
    return [deterministic](const std::string&, const BackendOptions& opts) -> std::unique_ptr<Backend> {
      if (cuda::device_count() == 0) return nullptr;
      return cuda::make_cuda_backend(cuda::device_executor(), "cuda", deterministic || opts.deterministic);
    };
  };
  register_backend("cuda", "CUDA kernels (atomics; --deterministic sorts per target); needs a GPU", factory(false));
  register_backend("cuda-deterministic", "CUDA kernels with a sorted, position-ordered reduction; needs a GPU",
                   factory(true));
}

}  // namespace sp
