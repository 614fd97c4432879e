// backend.h — an implementation under test, and the registry of backends.
//
// A backend receives an OpCall whose tensors own storages private to this
// call (the runner deep-copies them, preserving layouts and aliasing), so an
// in-place op may write straight into `self`. It answers with an Outcome:
// output tensor(s) in the op's output order (see op_call.h: one output,
// "self" for in-place ops, "out" otherwise), a documented error with its
// category, or "unsupported" with a reason. Crash comes from the isolation layer or
// from an in-process backend whose device failed (a CUDA runtime error),
// Timeout only from the isolation layer, HarnessError from the harness.
// DeviceAssert from the isolation layer too: a device kernel's assert ended
// the call (a CUDA "device-side assert triggered", or the adapter died with
// the kernel's assert text on stderr); the message starts with the kernel's
// file:line ("ScatterGatherKernel.cu:163: Assertion `...` failed"), and the
// device context was rebuilt before the next call.
//
// Thread-safety: a Backend instance is used by one thread at a time.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/errors.h"
#include "reference/op_call.h"
#include "reference/program.h"

namespace sp {

struct Outcome {
  enum class Kind { Outputs, Error, Unsupported, Crash, Timeout, HarnessError, DeviceAssert };
  Kind kind = Kind::HarnessError;
  std::vector<Tensor> outputs;
  std::optional<ErrorCategory> error;  // Kind::Error
  std::string message;                 // error text, unsupported reason, crash detail
  // Non-empty: why the operands' storage after the call could not be seen
  // (an out-of-process backend that does not send it back, PROTOCOL.md
  // "Operands after the call"); the side-effect checks are then "not
  // observable" (the comparator says so in the verdict's detail).
  std::string side_effects_unobservable;

  Outcome() = default;
  Outcome(Kind k, std::vector<Tensor> t = {}, std::optional<ErrorCategory> e = std::nullopt, std::string msg = {})
      : kind(k), outputs(std::move(t)), error(e), message(std::move(msg)) {}

  static Outcome of_outputs(std::vector<Tensor> t) { return {Kind::Outputs, std::move(t), std::nullopt, {}}; }
  static Outcome of_error(ErrorCategory c, std::string msg) { return {Kind::Error, {}, c, std::move(msg)}; }
  static Outcome unsupported(std::string why) { return {Kind::Unsupported, {}, std::nullopt, std::move(why)}; }
  static Outcome harness_error(std::string why) { return {Kind::HarnessError, {}, std::nullopt, std::move(why)}; }
};
std::string_view outcome_kind_name(Outcome::Kind k);

// A framework and the version of it a backend runs ("torch", "2.15.0+cpu").
struct FrameworkVersion {
  std::string name;  // the op table's dialect name: "torch", "paddle", "mindspore"
  std::string version;
};

struct BackendOptions {
  int threads = 0;             // 0: the backend's default (hardware concurrency)
  bool deterministic = false;  // backends with a deterministic mode honour it
  // Out-of-process backends: seconds per case, 3x per start (0: the
  // environment's SCATTERPROOF_CASE_TIMEOUT_S, else 10; PROTOCOL.md "Timeouts").
  double timeout_s = 0;
  // Out-of-process backends: when set and non-zero (the run was asked to
  // stop, harness/runner.h RunOptions::stop), a call in flight is abandoned
  // within 100 ms: the child is killed and the call answers HarnessError.
  const std::atomic<int>* stop = nullptr;
  // Backends that keep released output storage for the next output of the
  // same size (the cpu backend's OutputPool) do so only when set; false:
  // every output is allocated anew, as a framework does (the bench's
  // cpu-fresh row, so its ratios compare like with like).
  bool reuse_outputs = true;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // One line for `scatterproof backends`: what it is, version, limits.
  virtual std::string description() const = 0;
  // What runs, and its version, for every result and report: a framework
  // backend names the framework it ran ("LibTorch 1.13.1", "paddle 3.3.1",
  // known once its process said hello); the project's own implementations
  // are versioned by scatterproof's version (this default).
  virtual std::string version() const;
  // The framework whose rules this backend runs by, with its version, for a
  // real framework backend ({"torch", "2.15.0"} for LibTorch 2.15 or torch
  // through Python; known once a process backend said hello); nullopt for
  // implementations of the documents (reference, cpu, cuda, mutants, vendor
  // plugins, an adapter that names none). On an op of that framework the
  // runner has the reference answer for this version (reference/versions.h).
  virtual std::optional<FrameworkVersion> framework() const { return std::nullopt; }
  // The accelerator it runs the ops on ("cuda", "cuda:0"), "" for the host's
  // CPU. Expectation entries key on it ("device"), and the comparator cites
  // platform facts of a device (SEMANTICS.md DEV-FTZ) only where it is set.
  virtual std::string device() const { return ""; }
  // Whether this backend implements `op` (an op table id) at all. For any
  // other op run_backend() answers "unsupported" without calling run().
  virtual bool implements(std::string_view op) const = 0;
  // REQUIRES: implements(call.op).
  virtual Outcome run(const OpCall& call) = 0;
  // A program (reference/program.h) run whole by the backend itself (a
  // process adapter that declared "programs" in its hello: one request, so a
  // compiler sees every step at once); nullopt: the backend takes no
  // programs, and run_program runs it op by op through run().
  virtual std::optional<Outcome> run_whole_program(const Program& program) {
    (void)program;
    return std::nullopt;
  }
};

// The one way the harness runs a backend: an op the backend does not
// implement is unsupported, with the reason, whatever the call.
Outcome run_backend(Backend& backend, const OpCall& call);

// The one way the harness runs a program on a backend: whole, where the
// backend takes programs (Backend::run_whole_program), else op by op
// (run_program_steps). Its outputs are the program's compared tensors
// (Program::expect), in order; an error, unsupported or crash of a step
// ends it, its message prefixed with "step N (op): ".
Outcome run_program(Backend& backend, const Program& program);
// Op by op: every step through run_backend on the backend's own results,
// the named tensors kept here (an in-place step writes them, through
// views into their bases; a backend whose operands cannot be seen after a
// call has its returned self copied into them).
Outcome run_program_steps(Backend& backend, const Program& program);

using BackendFactory = std::function<std::unique_ptr<Backend>(const std::string& name, const BackendOptions&)>;

// Registers a backend name (or a prefix ending in ':' such as "plugin:",
// which then receives the full name). Built-in backends register in
// register_builtin_backends() (backends/builtin.cc): one line per backend.
// `in_process` is false for backends that run another process (subprocess
// adapters, plugins): fuzz targets and properties, which run thousands of
// cases a second, use only in-process ones.
// `origin` says whose code it runs: the project's own implementations
// (reference, cpu, cuda) are held to the reference on every generated case;
// third-party code (a real framework, a vendor's plugin) may have known
// deviations from the documents, listed in expectation files, so properties
// over generated cases leave it to the spec suite and to fuzz campaigns.
enum class BackendOrigin { Project, ThirdParty };
void register_backend(const std::string& name, std::string summary, BackendFactory factory, bool in_process = true,
                      BackendOrigin origin = BackendOrigin::Project);
// Creates a backend; returns nullptr and sets *why when unknown/unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& opts, std::string* why);
// A factory that returns nullptr may say why first (on the calling thread):
// make_backend's *why is then "backend 'NAME' is unavailable: REASON".
void explain_unavailable(std::string reason);
struct BackendInfo {
  std::string name;
  std::string summary;
  bool in_process = true;
  BackendOrigin origin = BackendOrigin::Project;
};
std::vector<BackendInfo> registered_backends();

// Registers every backend compiled into this build (idempotent); make_backend
// and registered_backends call it. Defined in backends/builtin.cc, the one
// list of built-in backends.
void register_builtin_backends();

// Low-level registry access (backends/registry.cc).
struct RegisteredBackend {
  std::string summary;
  BackendFactory factory;
  bool in_process = true;
  BackendOrigin origin = BackendOrigin::Project;
};
const RegisteredBackend* find_registered_backend(const std::string& name);
// What the last explain_unavailable() on this thread said; clears it.
std::string take_unavailable_reason();
std::vector<BackendInfo> list_registered_backends();

}  // namespace sp
