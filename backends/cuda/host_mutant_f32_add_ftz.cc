// host_mutant_f32_add_ftz.cc — planted kernel bug 2 (host_mutants.cc): every
// float32 add goes through the hardware's atomicAdd, which flushes
// subnormal operands and results to zero (the bug the first GPU run found;
// kernels/atomics.h, SP_CUDA_KERNEL_MUTANT == 2).
#define SP_CUDA_KERNEL_MUTANT 2
#include "backends/cuda/host_launcher.h"

namespace sp::cuda {

const Executor& host_mutant_executor_f32_add_ftz() {
  static const Executor e{&run_scatter_on<HostPlatform>, &run_gather_on<HostPlatform>, &run_nd_rows_on<HostPlatform>,
                          &run_extremum_grad_on<HostPlatform>,
                          [] { return std::string("the host launcher with planted bug f32-add-ftz"); }};
  return e;
}

}  // namespace sp::cuda
