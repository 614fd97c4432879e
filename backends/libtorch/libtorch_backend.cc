// The LibTorch backend: runs each call through LibTorch's CPU kernels —
// Debian's 1.13 in the harness's process (`libtorch`), or the current
// PyTorch wheel's in build-libtorch-current/'s scatterproof-serve
// (`libtorch-current`, out of process: two LibTorch versions cannot share
// one process). The same sources build against both.
//
// PyTorch ops map natively (torch.gather -> at::gather, torch.scatter_ ->
// Tensor::scatter_ with the src/value and reduce overloads, ...). The call's
// tensors are handed to LibTorch as views over their own bytes — one
// at::Storage per scatterproof storage, then (offset, sizes, strides) — so
// LibTorch sees the real layouts (expanded, transposed, offset, aliased) and
// an in-place op writes straight into `self`. Nothing is copied on the way
// in; out-of-place ops write through the `_out` overloads into a freshly
// allocated output, so nothing is copied on the way out either.
//
// MindSpore's Tensor.scatter_ and paddle.scatter have no LibTorch op of their
// own: they go through an explicit translation onto LibTorch ops, as a
// framework converter would (see translate_mindspore_scatter and
// translate_paddle_scatter). Where a translation cannot be faithful the
// backend answers "unsupported", never a guess.
//
// Errors: LibTorch's exception text is classified by libtorch_errors.h; an
// unclassified text is an error with no category (an "unclassified" result).
//
// One op file per op family in ops/ (libtorch_common.h): each registers a
// kernel per op id, and those ids are exactly what implements() answers.
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/libtorch/libtorch_common.h"
#include "backends/libtorch/libtorch_device.h"
#include "backends/libtorch/libtorch_errors.h"
#include "sp_libtorch_op_files.h"

namespace sp {
namespace libtorch {

#define SP_DECLARE_OP_FILE(stem) void register_##stem(LibTorchOps& ops);
SP_OP_FILES(SP_DECLARE_OP_FILE)
#undef SP_DECLARE_OP_FILE

namespace {

// LibTorch's warnings (a non-empty out= resized: deprecated, T-OUT6) are
// not findings: the reference answers what the call must do. Kept off the
// harness's stderr.
// The handler's interface changed in LibTorch 2.0: process() takes a
// c10::Warning, and the guard moved to c10::WarningUtils.
class SilentWarnings final : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}
#else
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
#endif
};
#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

const LibTorchOps& libtorch_ops() {
  static const LibTorchOps ops = [] {
    LibTorchOps o;
#define SP_REGISTER_OP_FILE(stem) register_##stem(o);
    SP_OP_FILES(SP_REGISTER_OP_FILE)
#undef SP_REGISTER_OP_FILE
    return o;
  }();
  return ops;
}

class LibTorchBackend final : public Backend {
 public:
  // `device`: where the operands go (a device variant, libtorch_device.h);
  // nullopt runs on the CPU without copying, as the plain backend does.
  LibTorchBackend(const BackendOptions& opts, std::optional<c10::Device> device)
      : threads_(opts.threads), device_(device) {}

  std::string name() const override { return "libtorch"; }
  std::string description() const override {
    return "LibTorch " TORCH_VERSION
           " CPU kernels: torch.* ops natively, mindspore.scatter_ and paddle.scatter through a translation";
  }

  std::string version() const override {
    return "LibTorch " TORCH_VERSION + (device_ ? describe_device(*device_) : std::string());
  }
  std::optional<FrameworkVersion> framework() const override { return FrameworkVersion{"torch", TORCH_VERSION}; }
  std::string device() const override {
    if (!device_ || device_->is_cpu()) return "";
    return device_->has_index() ? device_->str() : device_->str() + ":0";
  }
  bool implements(std::string_view op) const override { return libtorch_ops().find(op) != nullptr; }
  Outcome run(const OpCall& call) override {
    // LibTorch's thread count is process-wide: set it per call so several
    // instances with different counts (bench: 1 vs N threads) each get theirs.
    if (threads_ > 0 && at::get_num_threads() != threads_) at::set_num_threads(threads_);
    TorchViews views(device_);
    static SilentWarnings silent;
    const WarningHandlerGuard quiet(&silent);
    try {
      const LibTorchKernel* kernel = libtorch_ops().find(call.op);
      if (!kernel) return Outcome::unsupported("libtorch backend does not implement " + call.op);
      for (const auto& [name, t] : call.tensors)
        if (!torch_has_dtype(t.dtype()))
          return Outcome::unsupported("LibTorch " TORCH_VERSION " has no " + std::string(dtype_name(t.dtype())) +
                                      " scalar type (operand " + name + "; LibTorch has it from 2.3)");
      Outcome outcome = (*kernel)(call, views);
      views.copy_back();  // on a device: results and side effects back into the caller's bytes
      return outcome;
    } catch (const MalformedCall& e) {
      return Outcome::harness_error(e.what);
    } catch (const c10::Error& e) {
      copy_back_after_error(views, e.what_without_backtrace());
      return classified(e.what_without_backtrace(), call.op);
    } catch (const std::exception& e) {
      // c10::checked_convert throws std::runtime_error for an unrepresentable
      // scalar; anything else is unclassified (an error with no category).
      copy_back_after_error(views, e.what());
      return classified(e.what(), call.op);
    }
  }

 private:
  // An error libtorch_errors.cc cannot place is answered with no category:
  // the comparator reports it "unclassified", whatever the reference allows.
  static Outcome classified(const std::string& message, const std::string& op) {
    if (auto category = classify_libtorch_error(message, TORCH_VERSION, op))
      return Outcome::of_error(*category, message);
    return Outcome{Outcome::Kind::Error, {}, std::nullopt, "LibTorch: " + message};
  }

  // What a raising call left in its operands is observable on the CPU (its
  // writes are the caller's bytes); on a device it is copied back as well,
  // unless the error is the device's own (a CUDA error leaves the context
  // unusable: the supervisor replaces this process).
  static void copy_back_after_error(TorchViews& views, const std::string& message) {
    if (!views.copies() || message.find("CUDA error") != std::string::npos) return;
    try {
      views.copy_back();
    } catch (const std::exception&) {
      // The error already answered stands; the operands keep their bytes.
    }
  }

  int threads_;
  std::optional<c10::Device> device_;
};

}  // namespace
}  // namespace libtorch

void register_libtorch_backend() {
  const auto factory = [](const std::string& name, const BackendOptions& opts) -> std::unique_ptr<Backend> {
    std::string why;
    const std::optional<c10::Device> device = libtorch::device_of_name(name, &why);
    if (!why.empty() || (device && !(why = libtorch::device_unusable(*device)).empty())) {
      explain_unavailable(why);
      return nullptr;
    }
    return std::make_unique<libtorch::LibTorchBackend>(opts, device);
  };
  register_backend("libtorch", "LibTorch " TORCH_VERSION " (CPU) via its C++ API", factory, /*in_process=*/true,
                   BackendOrigin::ThirdParty);
  // Device variants (docs/gpu.md): the operands copied to the device with
  // their layouts, the results and side effects copied back. libtorch@cuda
  // needs a LibTorch with CUDA kernels (a CUDA wheel's, libtorch-current@cuda)
  // and a GPU; it is unavailable, with the reason, otherwise.
  register_backend("libtorch@cpu", "libtorch with its operands on the cpu device (through the device path)", factory,
                   /*in_process=*/true, BackendOrigin::ThirdParty);
  register_backend("libtorch@cuda", "libtorch with its operands on a CUDA device (libtorch@cuda:N for device N)",
                   factory, /*in_process=*/true, BackendOrigin::ThirdParty);
}

}  // namespace sp
