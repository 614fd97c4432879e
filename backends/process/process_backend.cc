// process_backend.cc — backends that live in a child process and speak the
// line protocol (protocol.h) under a Supervisor (supervisor.h).
//
//   process:COMMAND LINE   any program speaking the protocol; the command is
//                          split at spaces (no shell, no quoting)
//   paddle | mindspore | numpy | torch-python
//                          the Python adapters in adapters/, run with the
//                          project's virtual environment (.venv, made by
//                          scripts/setup-python.sh); numpy runs PyTorch's
//                          ops as a converter would write them in NumPy
//
// The child is started (and the framework imported) when the backend is
// created, so a missing venv or framework makes the backend unavailable with
// the adapter's own reason instead of failing every case.
//
// Environment: SCATTERPROOF_CASE_TIMEOUT_S (default 10) bounds each case;
// SCATTERPROOF_PYTHON overrides the interpreter of the named adapters.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "backends/backend.h"
#include "backends/process/supervisor.h"

namespace sp {
namespace {

class ProcessBackend final : public Backend {
 public:
  ProcessBackend(std::string name, SupervisorOptions options) : name_(std::move(name)), supervisor_(std::move(options)) {}

  std::string start() { return supervisor_.start(); }
  std::string name() const override { return name_; }
  std::string description() const override {
    const AdapterInfo& info = supervisor_.info();
    return info.name + " " + info.version + " in a subprocess (" + supervisor_.command_line() + ")";
  }
  bool implements(std::string_view op) const override {
    const std::vector<std::string>& ops = supervisor_.info().ops;
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }
  Outcome run(const OpCall& call) override { return supervisor_.call(call); }

 private:
  std::string name_;
  Supervisor supervisor_;
};

std::chrono::milliseconds case_timeout() {
  const char* text = std::getenv("SCATTERPROOF_CASE_TIMEOUT_S");
  if (!text || !*text) return std::chrono::milliseconds{10'000};
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0)) {
    std::fprintf(stderr, "scatterproof: ignoring SCATTERPROOF_CASE_TIMEOUT_S='%s' (not a positive number)\n", text);
    return std::chrono::milliseconds{10'000};
  }
  return std::chrono::milliseconds{static_cast<int64_t>(seconds * 1000)};
}

std::unique_ptr<Backend> start_or_explain(const std::string& name, std::vector<std::string> argv) {
  SupervisorOptions options;
  options.argv = std::move(argv);
  options.case_timeout = case_timeout();
  auto backend = std::make_unique<ProcessBackend>(name, std::move(options));
  if (std::string why = backend->start(); !why.empty()) {
    // The registry's factory has no channel for the reason; say it here.
    std::fprintf(stderr, "scatterproof: backend '%s' is unavailable: %s\n", name.c_str(), why.c_str());
    return nullptr;
  }
  return backend;
}

std::unique_ptr<Backend> make_command_backend(const std::string& name, const BackendOptions&) {
  std::vector<std::string> argv;
  std::istringstream words(name.substr(name.find(':') + 1));
  for (std::string w; words >> w;) argv.push_back(w);
  if (argv.empty()) {
    std::fprintf(stderr, "scatterproof: backend '%s' names no command (process:COMMAND ARGS...)\n", name.c_str());
    return nullptr;
  }
  return start_or_explain(name, std::move(argv));
}

BackendFactory python_adapter(std::string script) {
  return [script](const std::string& name, const BackendOptions&) -> std::unique_ptr<Backend> {
    const std::filesystem::path source = SP_PROCESS_SOURCE_DIR;
    std::string python = (source / ".venv/bin/python").string();
    if (const char* override_python = std::getenv("SCATTERPROOF_PYTHON"); override_python && *override_python)
      python = override_python;
    else if (!std::filesystem::exists(python)) {
      std::fprintf(stderr, "scatterproof: backend '%s' is unavailable: no Python environment at %s (run scripts/setup-python.sh)\n",
                   name.c_str(), python.c_str());
      return nullptr;
    }
    return start_or_explain(name, {python, (source / "adapters" / script).string()});
  };
}

}  // namespace

void register_process_backends() {
  constexpr bool kOutOfProcess = false;
  register_backend("process:", "a program speaking the line protocol (process:COMMAND ARGS...), supervised",
                   make_command_backend, kOutOfProcess);
  register_backend("paddle", "the real PaddlePaddle (paddle.scatter, CPU) through adapters/paddle_adapter.py (.venv)",
                   python_adapter("paddle_adapter.py"), kOutOfProcess);
  register_backend("mindspore", "the real MindSpore (CPU) through adapters/mindspore_adapter.py (.venv)",
                   python_adapter("mindspore_adapter.py"), kOutOfProcess);
  register_backend("numpy", "PyTorch's ops converted to NumPy (take_along_axis/put_along_axis, ufunc.at) through "
                   "adapters/numpy_adapter.py (.venv)", python_adapter("numpy_adapter.py"), kOutOfProcess);
  register_backend("torch-python", "PyTorch through Python (torch.gather, Tensor.scatter_, ...) through "
                   "adapters/torch_adapter.py (.venv; Debian's python3-torch)",
                   python_adapter("torch_adapter.py"), kOutOfProcess);
}

}  // namespace sp
