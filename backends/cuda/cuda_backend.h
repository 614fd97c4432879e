// cuda_backend.h — the CUDA backend over an executor (cuda_ops.h): the GPU
// or the host launcher. One class for both, so the host launcher's backend
// ("cuda-host") exercises the same argument checks, job building and out=
// handling as the GPU's ("cuda").
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/cuda/cuda_ops.h"

namespace sp::cuda {

// A backend running its jobs on `executor` (which must outlive it), named
// `base_name`, or `base_name`-deterministic when `deterministic` selects the
// sorted, position-ordered reduction.
std::unique_ptr<Backend> make_cuda_backend(const Executor& executor, const std::string& base_name, bool deterministic);

}  // namespace sp::cuda
