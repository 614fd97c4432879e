// host_launcher.cc — the executor of backend "cuda-host": the real kernel
// bodies on the host launcher (host_launcher.h).
#include "backends/cuda/host_launcher.h"

#include <string>

namespace sp::cuda {

namespace {
std::string host_summary() {
  return "the host launcher (CUDA kernel bodies compiled by the host compiler; every grid thread in shuffled order "
         "on " +
         std::to_string(kHostWorkers) + " host threads)";
}
}  // namespace

const Executor& host_executor() {
  static const Executor e{&run_scatter_on<HostPlatform>, &run_gather_on<HostPlatform>, &run_nd_rows_on<HostPlatform>,
                          &run_extremum_grad_on<HostPlatform>, &host_summary};
  return e;
}

}  // namespace sp::cuda
