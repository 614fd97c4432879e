// plugin_backend.cc — the "plugin:" backend (plugin_backend.h): starts
// scatterproof-plugin-host for the library under a Supervisor and forwards
// each call over the line protocol. What a plugin implements is what the
// host's hello offered (the op-table ops its supports() accepts for some
// dtype); which operand an in-place op writes comes from the op table.
#include "backends/plugin/plugin_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "backends/common/resource_paths.h"
#include "backends/process/supervisor.h"
#include "reference/op_table.h"

namespace sp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHostName = "scatterproof-plugin-host";

class PluginBackend final : public Backend {
 public:
  PluginBackend(std::string name, SupervisorOptions options)
      : name_(std::move(name)), supervisor_(std::move(options)) {}

  std::string start() { return supervisor_.start(); }
  std::string name() const override { return name_; }
  std::string description() const override {
    const AdapterInfo& info = supervisor_.info();
    return "vendor plugin " + info.name + " " + info.version + " out of process (" + supervisor_.command_line() + ")";
  }
  std::string version() const override {
    const AdapterInfo& info = supervisor_.info();
    return info.name.empty() ? std::string() : "plugin " + info.name + " " + info.version;
  }

  bool implements(std::string_view op) const override {
    const std::vector<std::string>& ops = supervisor_.info().ops;
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }
  Outcome run(const OpCall& call) override {
    Outcome outcome = supervisor_.call(call);
    copy_back_inplace_result(call, outcome);
    return outcome;
  }

 private:
  // The host returns self's whole storage for an in-place op; the harness
  // judges the caller's self, so its storage takes the returned bytes (all
  // of them: a plugin writing outside self's view must be caught).
  static void copy_back_inplace_result(const OpCall& call, const Outcome& outcome) {
    if (outcome.kind != Outcome::Kind::Outputs || outcome.outputs.size() != 1 || written_operand(call).empty()) return;
    const Tensor* self = call.tensor(written_operand(call));
    const Tensor& returned = outcome.outputs.front();
    if (!self || !self->storage() || !returned.storage() || returned.dtype() != self->dtype() ||
        returned.shape() != self->shape() || returned.strides() != self->strides() ||
        returned.offset() != self->offset() || returned.storage()->size() != self->storage()->size())
      return;  // not self's layout: the comparator reports the returned tensor as it is
    *self->storage() = *returned.storage();
  }

  std::string name_;
  Supervisor supervisor_;
};

std::unique_ptr<Backend> make_from_name(const std::string& name, const BackendOptions& options) {
  std::string why;
  // The one timeout setting of out-of-process backends (supervisor.h).
  auto backend =
      make_plugin_backend(name.substr(name.find(':') + 1), case_timeout_setting(options.timeout_s), &why, options.stop);
  // The registry's factory has no channel for the reason; say it here.
  if (!backend) std::fprintf(stderr, "scatterproof: backend '%s' is unavailable: %s\n", name.c_str(), why.c_str());
  return backend;
}

}  // namespace

std::string plugin_host_path() {
  // Beside the running executable (an installed tree), else this build's.
  return resources::helper_program(kHostName, SP_PLUGIN_HOST_BUILD_PATH);
}

std::unique_ptr<Backend> make_plugin_backend(const std::string& library, std::chrono::milliseconds case_timeout,
                                             std::string* why, const std::atomic<int>* stop) {
  if (library.empty()) {
    *why = "no library given (plugin:/path/to/libvendor.so)";
    return nullptr;
  }
  std::error_code ec;
  const fs::path path = fs::absolute(library, ec);
  if (ec || !fs::is_regular_file(path, ec)) {
    *why = "no plugin library at " + library;
    return nullptr;
  }
  // The handshake gets kStartTimeoutFactor x the case timeout, as every
  // process backend's.
  const std::string host = plugin_host_path();
  if (host.empty()) {
    *why = std::string("no ") + kHostName + " beside " + resources::executable_dir().string() +
           " (an installed tree has it in bin/ with scatterproof: reinstall with `cmake --install`)";
    return nullptr;
  }
  SupervisorOptions options = supervisor_options({host, path.string()}, case_timeout);
  options.stop = stop;
  auto backend = std::make_unique<PluginBackend>("plugin:" + library, std::move(options));
  if (std::string failure = backend->start(); !failure.empty()) {
    *why = std::move(failure);
    return nullptr;
  }
  return backend;
}

void register_plugin_backend() {
  register_backend(
      "plugin:", "a vendor plugin (plugin:/path/libvendor.so, include/scatterproof/plugin.h), run out of process",
      make_from_name, /*in_process=*/false, BackendOrigin::ThirdParty);
}

}  // namespace sp
