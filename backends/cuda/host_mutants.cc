// host_mutants.cc — backends "cuda-host-mutant:NAME": the cuda-host backend
// with one kernel body deliberately broken, to show that the spec suite
// run through the host launcher catches a planted kernel bug (CTest
// cuda_host_mutant_<NAME>_caught). Each bug lives in the kernel headers
// under `#if SP_CUDA_KERNEL_MUTANT == N` and is compiled in its own
// translation unit (host_mutant_<name>.cc), whose kernels live in their own
// inline namespace (kernels/platform.h): the real kernels never see it.
//
// These are not `scatterproof mutants` (backends/mutant/): those wrap the cpu
// backend through its public interface and change calls or answers, never a
// kernel body; a kernel bug needs the kernel compiled differently.
#include <string>

#include "backends/backend.h"
#include "backends/cuda/cuda_backend.h"

namespace sp {
namespace cuda {
const Executor& host_mutant_executor_cas_byte_mask();
const Executor& host_mutant_executor_f32_add_ftz();
const Executor& host_mutant_executor_sorted_mean_count();
}  // namespace cuda

namespace {

struct HostMutant {
  const char* name;
  const cuda::Executor& (*executor)();
  bool deterministic;  // the bug is in the sorted path: always run it
};

const HostMutant kHostMutants[] = {
    {"cas-byte-mask", &cuda::host_mutant_executor_cas_byte_mask, false},
    {"f32-add-ftz", &cuda::host_mutant_executor_f32_add_ftz, false},
    {"sorted-mean-count", &cuda::host_mutant_executor_sorted_mean_count, true},
};

}  // namespace

void register_cuda_host_mutants() {
  register_backend(
      "cuda-host-mutant:",
      "cuda-host with a planted kernel bug (cas-byte-mask, f32-add-ftz, sorted-mean-count); for CTest only",
      [](const std::string& full, const BackendOptions& opts) -> std::unique_ptr<Backend> {
        const std::string name = full.substr(full.find(':') + 1);
        for (const HostMutant& m : kHostMutants)
          if (name == m.name) return cuda::make_cuda_backend(m.executor(), full, m.deterministic || opts.deterministic);
        return nullptr;
      });
}

}  // namespace sp
