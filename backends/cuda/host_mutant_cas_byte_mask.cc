// host_mutant_cas_byte_mask.cc — planted kernel bug 1 (host_mutants.cc):
// the CAS loop for 1- and 2-byte elements keeps its mask at the word's low
// bytes instead of moving it to the element, so an add or multiply into a
// bool/uint8/int8/int16 element reads the wrong byte and overwrites its
// neighbours (kernels/atomics.h, SP_CUDA_KERNEL_MUTANT == 1).
#define SP_CUDA_KERNEL_MUTANT 1
#include "backends/cuda/host_launcher.h"

namespace sp::cuda {

const Executor& host_mutant_executor_cas_byte_mask() {
  static const Executor e{&run_scatter_on<HostPlatform>, &run_gather_on<HostPlatform>, &run_nd_rows_on<HostPlatform>,
                          &run_extremum_grad_on<HostPlatform>,
                          [] { return std::string("the host launcher with planted bug cas-byte-mask"); }};
  return e;
}

}  // namespace sp::cuda
