// The one list of backends compiled into this build. Adding a backend: its
// folder, its sp_add_backend() call (which defines SP_HAVE_<NAME> here), and
// one line here. cpu, mutant and cuda-host are always built; libtorch and
// cuda only where Torch and nvcc are found.
#include <mutex>

#include "backends/backend.h"

namespace sp {

void register_reference_backend();
void register_process_backends();
void register_plugin_backend();
void register_cpu_backend();
namespace mutant {
void register_mutant_backend();  // "mutant:NAME", deliberately wrong wrappers of cpu
}
#ifdef SP_HAVE_LIBTORCH
void register_libtorch_backend();
#endif
#ifdef SP_HAVE_CUDA_HOST
void register_cuda_host_backend();  // "cuda-host": the cuda kernel bodies on a host launcher
#endif
#ifdef SP_HAVE_CUDA
void register_cuda_backend();
#endif

void register_builtin_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_reference_backend();
    register_process_backends();
    register_plugin_backend();
    register_cpu_backend();
    mutant::register_mutant_backend();
#ifdef SP_HAVE_LIBTORCH
    register_libtorch_backend();
#endif
#ifdef SP_HAVE_CUDA_HOST
    register_cuda_host_backend();
#endif
#ifdef SP_HAVE_CUDA
    register_cuda_backend();
#endif
  });
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& opts, std::string* why) {
  register_builtin_backends();
  const RegisteredBackend* entry = find_registered_backend(name);
  if (!entry) {
    if (why) *why = "unknown backend '" + name + "' (see `scatterproof backends`)";
    return nullptr;
  }
  take_unavailable_reason();
  std::unique_ptr<Backend> b = entry->factory(name, opts);
  const std::string reason = take_unavailable_reason();
  if (!b && why) *why = "backend '" + name + "' is unavailable" + (reason.empty() ? "" : ": " + reason);
  return b;
}

std::vector<BackendInfo> registered_backends() {
  register_builtin_backends();
  return list_registered_backends();
}

}  // namespace sp
