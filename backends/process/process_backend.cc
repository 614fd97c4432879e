// process_backend.cc — backends that live in a child process and speak the
// line protocol (protocol.h) under a Supervisor (supervisor.h).
//
//   process:COMMAND LINE   any program speaking the protocol; the command is
//                          split at spaces (no shell, no quoting)
//   paddle | mindspore | numpy | torch-python | torch-python-current | ...
//                          the Python adapters in adapters/, one backend per
//                          entry of adapters/manifest.json (backend name,
//                          script, description, optional venv, args and
//                          case_timeout_s), run with the
//                          interpreter of the entry's virtual environment
//                          (<venv root>/<venv>/bin/python; venv defaults to
//                          .venv; the root is $SCATTERPROOF_VENV_ROOT, else
//                          the source tree; scripts/setup-python.sh makes
//                          .venv and .venv-current)
//   torch-python@cuda | torch-python-current@cuda:1 | ...@cpu | libtorch-current@cuda
//                          an entry's device variants (its "devices"): the
//                          adapter runs with --device KIND[:N] and builds its
//                          operands there. '@' because the CLI splits
//                          --backend at commas and the registry gives ':'
//                          to prefix families (process:, plugin:); a
//                          cuda variant is unavailable at once on a machine
//                          without an NVIDIA GPU, and the adapter says why
//                          where its framework cannot use the device
//
// The manifest is the one list of adapters: this file registers what it
// names and CMake (adapters/adapter_tests.cmake) adds their conformance
// tests from it, so adding an adapter is one Python file and one manifest
// entry. The manifest and the adapters are found by resources::find
// (backends/common/resource_paths.h: <prefix>/share/scatterproof/adapters of
// an installed tree, else the source tree this build was configured from),
// the venvs by resources::venv_dir ($SCATTERPROOF_VENV_ROOT, else the source
// tree). A missing
// manifest registers no adapter backend (a tree without adapters/); a
// malformed one, or a malformed entry, is reported on stderr naming the
// field, and the entries that are well formed are still registered.
//
// The child is started (and the framework imported) when the backend is
// created, so a missing venv or framework makes the backend unavailable with
// the adapter's own reason instead of failing every case.
//
// Timeout: BackendOptions::timeout_s (the CLI's --timeout), else
// SCATTERPROOF_CASE_TIMEOUT_S, else the entry's case_timeout_s (an adapter
// that compiles per call: torch-compile-current), else 10 s bounds each case, and three times
// that each start (supervisor.h, case_timeout_setting; PROTOCOL.md
// "Timeouts"). Environment: SCATTERPROOF_PYTHON overrides the interpreter of the named adapters that
// use the default venv (an entry naming its own venv, such as
// torch-python-current, is there to run that venv's framework version, and
// keeps it).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>

#include "backends/backend.h"
#include "backends/common/resource_paths.h"
#include "backends/process/protocol.h"
#include "backends/process/supervisor.h"
#include "reference/op_table.h"

namespace sp {
namespace {

// Why `call` cannot travel through the protocol (a huge case, specs/FORMAT.md
// "Huge cases": its operands' storage or its output past the limits of
// PROTOCOL.md "Limits"); nullopt when it can. Said before anything is sent,
// so such a case is unsupported with its reason, not a timeout or an
// oversized answer.
std::optional<std::string> past_protocol_limits(const OpCall& call) {
  size_t operands = 0;
  std::vector<const std::vector<std::byte>*> seen;
  for (const auto& [name, t] : call.tensors) {
    const std::vector<std::byte>* storage = t.storage().get();
    if (!storage || std::find(seen.begin(), seen.end(), storage) != seen.end()) continue;
    seen.push_back(storage);
    operands += storage->size();
  }
  if (operands > protocol::kMaxOperandStorageBytes)
    return "the operands' storage takes " + std::to_string(operands) + " bytes, past the process protocol's " +
           std::to_string(protocol::kMaxOperandStorageBytes) +
           " (PROTOCOL.md \"Limits\"): a huge case runs on "
           "in-process backends";
  const OpSpec* op = find_op(call);
  const Tensor* like = op ? call.tensor(op->output_dtype_of) : nullptr;
  const std::optional<Shape> shape = op && like ? output_shape_of(*op, call) : std::nullopt;
  if (!shape) return std::nullopt;
  const int64_t numel = checked_numel(*shape);
  if (numel < 0 || static_cast<uint64_t>(numel) * dtype_size(like->dtype()) > protocol::kMaxStorageBytes)
    return "the output " + format_shape(*shape) + " takes past the process protocol's " +
           std::to_string(protocol::kMaxStorageBytes) +
           " bytes (PROTOCOL.md \"Limits\"): a huge case runs on "
           "in-process backends";
  return std::nullopt;
}

// With warm standbys (`standbys` > 0), that many more children are spawned
// once the first has answered its handshake, and import their framework
// while cases run; when a call leaves the active child dead or untrusted (a
// crash, a timeout, a device-side assert: the device context is lost), the
// oldest standby takes over, paying only its handshake, and the lost child's
// place is taken by a new standby at the back of the line. A run of losses
// closer together than one import is cheap for as many as there are
// standbys.
class ProcessBackend final : public Backend {
 public:
  ProcessBackend(std::string name, const SupervisorOptions& options, int standbys)
      : name_(std::move(name)), options_(options), active_(std::make_unique<Supervisor>(options)) {
    for (int i = 0; i < standbys; ++i) standbys_.push_back(std::make_unique<Supervisor>(options));
  }

  std::string start() {
    std::string why = active_->start();
    if (why.empty()) {
      info_ = active_->info();
      for (auto& standby : standbys_) standby->prespawn();
    }
    return why;
  }
  std::string name() const override { return name_; }
  std::string description() const override {
    return info_.name + " " + info_.version + " in a subprocess (" + active_->command_line() + ")" +
           (standbys_.empty() ? "" : ", with " + std::to_string(standbys_.size()) + " warm standby(s)");
  }
  std::string version() const override { return info_.name.empty() ? std::string() : info_.name + " " + info_.version; }
  // What the hello said (its optional "framework"), passed through.
  std::optional<FrameworkVersion> framework() const override { return info_.framework; }
  std::string device() const override { return info_.device; }  // what the hello said
  bool implements(std::string_view op) const override {
    return std::find(info_.ops.begin(), info_.ops.end(), op) != info_.ops.end();
  }
  Outcome run(const OpCall& call) override {
    if (std::optional<std::string> why = past_protocol_limits(call)) return Outcome::unsupported(*why);
    return after_call(active_->call(call));
  }
  // A child whose hello says "programs": true gets the program in one
  // request, given the case timeout once per step; any other runs it op by op.
  std::optional<Outcome> run_whole_program(const Program& program) override {
    if (!info_.programs) return std::nullopt;
    return after_call(active_->call_program(program, options_.case_timeout * static_cast<int>(program.steps.size())));
  }

 private:
  Outcome after_call(Outcome outcome) {
    if (!standbys_.empty() && active_->needs_restart()) {
      standbys_.push_back(std::exchange(active_, std::move(standbys_.front())));
      standbys_.erase(standbys_.begin());
      standbys_.back()->prespawn();  // stops the lost child, starts a new standby in its place
    }
    return outcome;
  }

  std::string name_;
  SupervisorOptions options_;
  AdapterInfo info_;  // the first handshake's (every child runs the same command)
  std::unique_ptr<Supervisor> active_;
  std::vector<std::unique_ptr<Supervisor>> standbys_;
};

// How many warm standbys a backend keeps: SCATTERPROOF_STANDBY=N says (0:
// none; at most 8), else 2 for a device variant on a device other than the
// CPU (a device-side assert loses the device context, so its child is
// replaced per assert), none for the others.
int standby_count(const std::string& name) {
  if (const char* env = std::getenv("SCATTERPROOF_STANDBY"); env && *env) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n >= 0) return static_cast<int>(std::min(n, 8L));
    std::fprintf(stderr, "scatterproof: ignoring SCATTERPROOF_STANDBY='%s' (not a count of standbys)\n", env);
  }
  const auto at = name.find('@');
  return at != std::string::npos && name.compare(at + 1, std::string::npos, "cpu") != 0 ? 2 : 0;
}

std::unique_ptr<Backend> start_or_explain(const std::string& name, std::vector<std::string> argv,
                                          const BackendOptions& backend_options) {
  SupervisorOptions options = supervisor_options(std::move(argv), case_timeout_setting(backend_options.timeout_s));
  options.stop = backend_options.stop;
  auto backend = std::make_unique<ProcessBackend>(name, options, standby_count(name));
  if (std::string why = backend->start(); !why.empty()) {
    // The registry's factory has no channel for the reason; say it here.
    std::fprintf(stderr, "scatterproof: backend '%s' is unavailable: %s\n", name.c_str(), why.c_str());
    return nullptr;
  }
  return backend;
}

std::unique_ptr<Backend> make_command_backend(const std::string& name, const BackendOptions& options) {
  std::vector<std::string> argv;
  std::istringstream words(name.substr(name.find(':') + 1));
  for (std::string w; words >> w;) argv.push_back(w);
  if (argv.empty()) {
    std::fprintf(stderr, "scatterproof: backend '%s' names no command (process:COMMAND ARGS...)\n", name.c_str());
    return nullptr;
  }
  return start_or_explain(name, std::move(argv), options);
}

constexpr const char* kDefaultVenv = ".venv";

// The device of a device variant's name ("torch-python@cuda:1" -> "cuda:1"),
// "" for a plain name.
std::string device_of(const std::string& name) {
  const auto at = name.find('@');
  return at == std::string::npos ? std::string() : name.substr(at + 1);
}

// Whether this machine has a device of `kind` at all, asked of the kernel
// (no framework imported): "" if it may, else why not. A framework that
// cannot use a device that is there says so itself (the adapter's
// "unavailable").
std::string device_absence(const std::string& kind) {
  if (kind != "cuda") return "";
  std::error_code ec;
  const std::filesystem::path gpus = "/proc/driver/nvidia/gpus";
  if (std::filesystem::exists("/dev/nvidia0", ec) ||
      (std::filesystem::is_directory(gpus, ec) && !std::filesystem::is_empty(gpus, ec)))
    return "";
  return "no NVIDIA GPU on this machine (neither /dev/nvidia0 nor an entry in /proc/driver/nvidia/gpus)";
}

// The manifest's "args" (after the script, before --device) and
// "case_timeout_s" (the case timeout when neither --timeout nor
// SCATTERPROOF_CASE_TIMEOUT_S sets one; 0: the default).
struct AdapterCall {
  std::vector<std::string> args;
  double case_timeout_s = 0;
};

// `options` with timeout_s = `seconds` where neither --timeout nor
// SCATTERPROOF_CASE_TIMEOUT_S sets one.
BackendOptions with_case_timeout(BackendOptions options, double seconds) {
  const char* env = std::getenv("SCATTERPROOF_CASE_TIMEOUT_S");
  if (options.timeout_s <= 0 && !(env && *env)) options.timeout_s = seconds;
  return options;
}

BackendFactory python_adapter(std::filesystem::path adapters_dir, std::string script, std::string venv,
                              AdapterCall call = {}) {
  return [adapters_dir, script, venv, call](const std::string& name,
                                            const BackendOptions& given) -> std::unique_ptr<Backend> {
    const std::string device = device_of(name);
    if (const std::string absent = device_absence(device.substr(0, device.find(':'))); !absent.empty()) {
      explain_unavailable(absent);
      return nullptr;
    }
    const std::filesystem::path venv_path = resources::venv_dir(venv);
    std::string python = venv_path.empty() ? std::string() : (venv_path / "bin" / "python").string();
    const char* override_python = std::getenv("SCATTERPROOF_PYTHON");
    if (venv == kDefaultVenv && override_python && *override_python)
      python = override_python;
    else if (python.empty() || !std::filesystem::exists(python)) {
      const std::string where = python.empty() ? "no Python environment " + venv + " (no source tree to look in)"
                                               : "no Python environment at " + python;
      std::fprintf(stderr,
                   "scatterproof: backend '%s' is unavailable: %s: set SCATTERPROOF_VENV_ROOT to the directory "
                   "holding %s (made by scripts/setup-python.sh)%s\n",
                   name.c_str(), where.c_str(), venv.c_str(),
                   venv == kDefaultVenv ? ", or SCATTERPROOF_PYTHON to an interpreter with the framework" : "");
      return nullptr;
    }
    std::vector<std::string> argv{python, (adapters_dir / script).string()};
    argv.insert(argv.end(), call.args.begin(), call.args.end());
    if (!device.empty()) argv.insert(argv.end(), {"--device", device});
    return start_or_explain(name, std::move(argv), with_case_timeout(given, call.case_timeout_s));
  };
}

// One adapter of adapters/manifest.json (the fields adapters/README.md
// documents; "test" is CMake's business).
struct ManifestAdapter {
  std::string backend;
  std::string script;
  std::string description;
  std::string venv = kDefaultVenv;        // relative to the source root
  std::vector<std::string> devices = {};  // "devices": the variants NAME@DEVICE it also registers
  AdapterCall call = {};                  // "args", "case_timeout_s"
};

// Reads the optional "args" (an array of strings) and "case_timeout_s" (a
// positive number) of a manifest entry into *call; false, with the problem
// in *problems, when one is malformed.
bool read_adapter_call(const nlohmann::json& entry, const std::string& where, AdapterCall* call,
                       std::vector<std::string>* problems) {
  if (entry.contains("args")) {
    const nlohmann::json& args = entry["args"];
    bool ok = args.is_array();
    for (const nlohmann::json& a : ok ? args : nlohmann::json::array()) ok = ok && a.is_string();
    if (!ok) {
      problems->push_back(where + ".args is not an array of strings");
      return false;
    }
    call->args = args.get<std::vector<std::string>>();
  }
  if (entry.contains("case_timeout_s")) {
    const nlohmann::json& t = entry["case_timeout_s"];
    if (!t.is_number() || t.get<double>() <= 0 || t.get<double>() > kMaxTimeoutSeconds) {
      problems->push_back(where + ".case_timeout_s is not a positive number of seconds");
      return false;
    }
    call->case_timeout_s = t.get<double>();
  }
  return true;
}

// The well-formed entries of the manifest at `path`; problems go to
// *problems, one line each, naming the entry and field.
std::vector<ManifestAdapter> read_manifest(const std::filesystem::path& path, std::vector<std::string>* problems) {
  std::ifstream in(path);
  if (!in) return {};
  const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) {
    problems->push_back("is not valid JSON");
    return {};
  }
  if (!manifest.is_object() || manifest.value("format", "") != "scatterproof-adapters/1") {
    problems->push_back("field 'format' is not \"scatterproof-adapters/1\"");
    return {};
  }
  if (!manifest.contains("adapters") || !manifest["adapters"].is_array()) {
    problems->push_back("field 'adapters' is not an array");
    return {};
  }
  std::vector<ManifestAdapter> adapters;
  for (size_t i = 0; i < manifest["adapters"].size(); ++i) {
    const nlohmann::json& entry = manifest["adapters"][i];
    const std::string where = "adapters[" + std::to_string(i) + "]";
    auto text = [&](const char* field) -> std::string {
      if (!entry.is_object() || !entry.contains(field) || !entry[field].is_string() ||
          entry[field].get<std::string>().empty()) {
        problems->push_back(where + "." + field + " is missing or not a non-empty string");
        return {};
      }
      return entry[field].get<std::string>();
    };
    ManifestAdapter a{text("backend"), text("script"), text("description")};
    if (a.backend.empty() || a.script.empty() || a.description.empty()) continue;
    if (a.script.find('/') != std::string::npos) {
      problems->push_back(where + ".script '" + a.script + "' is not a file name in adapters/");
      continue;
    }
    if (entry.contains("venv")) {  // optional: a directory under the source root
      const nlohmann::json& venv = entry["venv"];
      if (!venv.is_string() || venv.get<std::string>().empty()) {
        problems->push_back(where + ".venv is not a non-empty string");
        continue;
      }
      const std::filesystem::path path(venv.get<std::string>());
      if (path.is_absolute() || std::find(path.begin(), path.end(), "..") != path.end()) {
        problems->push_back(where + ".venv '" + path.string() + "' is not a directory under the source root");
        continue;
      }
      a.venv = path.lexically_normal().string();
      if (!a.venv.empty() && a.venv.back() == '/') a.venv.pop_back();
    }
    if (entry.contains("devices")) {  // optional: device kinds the script takes as --device KIND[:N]
      const nlohmann::json& devices = entry["devices"];
      bool ok = devices.is_array();
      for (const nlohmann::json& d : ok ? devices : nlohmann::json::array())
        ok = ok && d.is_string() && !d.get<std::string>().empty() &&
             d.get<std::string>().find_first_of("@:, /") == std::string::npos;
      if (!ok) {
        problems->push_back(where + ".devices is not an array of device kinds (\"cpu\", \"cuda\")");
        continue;
      }
      a.devices = devices.get<std::vector<std::string>>();
    }
    if (!read_adapter_call(entry, where, &a.call, problems)) continue;
    adapters.push_back(std::move(a));
  }
  return adapters;
}

// libtorch-current: the LibTorch of the current PyTorch wheel (.venv-current),
// built into build-libtorch-current/ by scripts/setup-libtorch-current.sh
// and served by its scatterproof-serve. Out of process because two LibTorch
// versions cannot share one process; its hello names the version it runs
// ("LibTorch 2.15.0") and its framework (torch 2.15.0).
std::unique_ptr<Backend> make_libtorch_current(const std::string& name, const BackendOptions& options) {
  // SCATTERPROOF_LIBTORCH_SERVE names another scatterproof-serve built
  // against a wheel's LibTorch (scripts/gpu-check builds one against the GPU
  // host's PyTorch: a carried tree has no source tree to look in).
  std::filesystem::path serve;
  if (const char* env = std::getenv("SCATTERPROOF_LIBTORCH_SERVE"); env && *env) {
    serve = env;
    if (!std::filesystem::exists(serve)) {
      explain_unavailable("no " + serve.string() + " (SCATTERPROOF_LIBTORCH_SERVE)");
      return nullptr;
    }
  } else {
    // A build beside the source tree only (not installed).
    const std::filesystem::path source = resources::source_fallback_dir();
    if (source.empty()) {
      explain_unavailable(
          "it runs the source tree's build-libtorch-current/scatterproof-serve, and the source-tree "
          "fallback is disabled (SCATTERPROOF_NO_SOURCE_FALLBACK; SCATTERPROOF_LIBTORCH_SERVE names another)");
      return nullptr;
    }
    serve = source / "build-libtorch-current" / "scatterproof-serve";
    if (!std::filesystem::exists(serve)) {
      explain_unavailable("no " + serve.string() +
                          " (run scripts/setup-libtorch-current.sh to build it against the PyTorch wheel in "
                          ".venv-current)");
      return nullptr;
    }
  }
  // A device variant (libtorch-current@cuda:1) serves libtorch@cuda:1: the
  // device is checked here first, as the Python adapters' are, then by
  // LibTorch in the child (a wheel without CUDA kernels says so).
  const std::string device = device_of(name);
  if (const std::string absent = device_absence(device.substr(0, device.find(':'))); !absent.empty()) {
    explain_unavailable(absent);
    return nullptr;
  }
  return start_or_explain(name, {serve.string(), device.empty() ? "libtorch" : "libtorch@" + device}, options);
}

void register_manifest_adapters() {
  constexpr bool kOutOfProcess = false;
  const std::filesystem::path manifest = resources::find("adapters/manifest.json");
  if (manifest.empty()) return;  // a tree without adapters/
  std::vector<std::string> problems;
  for (const ManifestAdapter& a : read_manifest(manifest, &problems)) {
    std::string script_call = a.script;
    for (const std::string& arg : a.call.args) script_call += " " + arg;
    const std::string summary = a.description + " through adapters/" + script_call + " (" + a.venv + ")";
    register_backend(a.backend, summary, python_adapter(manifest.parent_path(), a.script, a.venv, a.call),
                     kOutOfProcess, BackendOrigin::ThirdParty);
    // Device variants: NAME@KIND (and NAME@KIND:N, found through NAME@KIND by
    // the registry) run the script with --device KIND[:N].
    for (const std::string& device : a.devices)
      register_backend(a.backend + "@" + device,
                       a.backend + " with its operands on the " + device + " device (" + a.backend + "@" + device +
                           (device == "cpu" ? "" : ":N for device N") + ")",
                       python_adapter(manifest.parent_path(), a.script, a.venv, a.call), kOutOfProcess,
                       BackendOrigin::ThirdParty);
  }
  for (const std::string& problem : problems)
    std::fprintf(stderr, "scatterproof: %s: %s\n", manifest.c_str(), problem.c_str());
}

}  // namespace

void register_process_backends() {
  constexpr bool kOutOfProcess = false;
  register_backend("process:", "a program speaking the line protocol (process:COMMAND ARGS...), supervised",
                   make_command_backend, kOutOfProcess, BackendOrigin::ThirdParty);
  register_manifest_adapters();
  register_backend("libtorch-current",
                   "LibTorch of the current PyTorch wheel (.venv-current) in a subprocess: "
                   "build-libtorch-current/scatterproof-serve libtorch (scripts/setup-libtorch-current.sh)",
                   make_libtorch_current, kOutOfProcess, BackendOrigin::ThirdParty);
  for (const char* device : {"cpu", "cuda"})
    register_backend(std::string("libtorch-current@") + device,
                     std::string("libtorch-current with its operands on the ") + device + " device (libtorch-current@" +
                         device + (std::string(device) == "cpu" ? "" : ":N for device N") + ")",
                     make_libtorch_current, kOutOfProcess, BackendOrigin::ThirdParty);
}

}  // namespace sp
