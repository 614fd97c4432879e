// host_mutant_sorted_mean_count.cc — planted kernel bug 3 (host_mutants.cc):
// the sorted reduction's mean never counts the element itself as a term
// (include_self=True divides by the visits alone; kernels/scatter_gather.h,
// ApplySortedRunsKernel, SP_CUDA_KERNEL_MUTANT == 3). Runs in
// deterministic mode, the only one with the sorted path.
#define SP_CUDA_KERNEL_MUTANT 3
#include "backends/cuda/host_launcher.h"

namespace sp::cuda {

const Executor& host_mutant_executor_sorted_mean_count() {
  static const Executor e{&run_scatter_on<HostPlatform>, &run_gather_on<HostPlatform>, &run_nd_rows_on<HostPlatform>,
                          &run_extremum_grad_on<HostPlatform>,
                          [] { return std::string("the host launcher with planted bug sorted-mean-count"); }};
  return e;
}

}  // namespace sp::cuda
