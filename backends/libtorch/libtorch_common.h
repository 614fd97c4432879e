// libtorch_common.h — what the LibTorch backend's op files share: dtype and
// scalar conversions, zero-copy views of scatterproof tensors as at::Tensor
// (TorchViews), and the op registry.
//
// One op file per op family lives in backends/libtorch/ops/ and defines
// `void register_<file stem>(LibTorchOps&)` (collected by sp_op_files): adding
// an op to the libtorch backend is one file. Only this backend's files
// include Torch headers (they are slow to compile and carry their own
// flags); the rest of scatterproof sees register_libtorch_backend() only.
#pragma once

#include <ATen/ATen.h>
#include <torch/version.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "backends/backend.h"
#include "backends/op_kernels.h"

namespace sp::libtorch {

// LibTorch has uint16 / uint32 / uint64 from 2.3 (at::kUInt16..kUInt64,
// "limited support" in eager mode); LibTorch 1.13 has none.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define SP_LIBTORCH_HAS_WIDE_UNSIGNED 1
#else
#define SP_LIBTORCH_HAS_WIDE_UNSIGNED 0
#endif
inline bool torch_has_dtype(DType t) {
  return SP_LIBTORCH_HAS_WIDE_UNSIGNED || (t != DType::UInt16 && t != DType::UInt32 && t != DType::UInt64);
}

// REQUIRES: torch_has_dtype(t).
inline at::ScalarType torch_dtype(DType t) {
  switch (t) {
    case DType::Bool:
      return at::kBool;
    case DType::UInt8:
      return at::kByte;
    case DType::Int8:
      return at::kChar;
    case DType::Int16:
      return at::kShort;
    case DType::Int32:
      return at::kInt;
    case DType::Int64:
      return at::kLong;
    case DType::Float16:
      return at::kHalf;
    case DType::BFloat16:
      return at::kBFloat16;
    case DType::Float32:
      return at::kFloat;
    case DType::Float64:
      return at::kDouble;
#if SP_LIBTORCH_HAS_WIDE_UNSIGNED
    case DType::UInt16:
      return at::kUInt16;
    case DType::UInt32:
      return at::kUInt32;
    case DType::UInt64:
      return at::kUInt64;
#else
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
      break;
#endif
  }
  throw std::logic_error("LibTorch " TORCH_VERSION " has no " + std::string(dtype_name(t)));
}

inline at::Scalar torch_scalar(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool:
      return at::Scalar(s.b);
    case Scalar::Kind::Int:
      return at::Scalar(static_cast<int64_t>(s.i));
    case Scalar::Kind::Float:
      return at::Scalar(s.f);
  }
  throw std::logic_error("unknown scalar kind");
}

// A malformed call (missing operand or argument): the harness's problem, not
// the backend's. Thrown inside run() and turned into Outcome::harness_error.
struct MalformedCall {
  std::string what;
};

// Presents scatterproof tensors to LibTorch. Tensors that share a
// scatterproof storage share one at::Storage, so LibTorch's own aliasing
// checks (in-place self overlapping src/index) see what is real.
//
// By default nothing is copied: each storage is wrapped as it is. Given a
// device (a device variant, `libtorch-current@cuda`, or `@cpu`, which runs
// the same copying path on the CPU) each storage the call touches is
// copied to the device once, whole, and every
// view is (offset, sizes, strides) over that copy, so the layouts (expanded,
// transposed, offset, aliased) are the same there; copy_back() then copies
// every such storage back over the caller's bytes: results, in-place writes
// and any write into an operand (a side effect) alike.
class TorchViews {
 public:
  TorchViews() = default;
  explicit TorchViews(std::optional<c10::Device> device)
      : device_(device.value_or(c10::Device(c10::kCPU))), copy_(device.has_value()) {}
  const c10::Device& device() const { return device_; }
  bool copies() const { return copy_; }
  at::TensorOptions options(DType t) const { return at::TensorOptions().dtype(torch_dtype(t)).device(device_); }

  at::Tensor view(const Tensor& t) {
    const auto& bytes = t.storage();
    if (!bytes) throw MalformedCall{"tensor without storage: " + t.describe()};
    auto it = storages_.find(bytes.get());
    if (it == storages_.end()) {
      // A byte-typed blob over the whole storage; its at::Storage is reused
      // for every view of any dtype.
      const at::Tensor blob = at::from_blob(bytes->data(), {static_cast<int64_t>(bytes->size())}, at::kByte);
      held_.push_back(bytes);  // alive until copy_back (and its address never reused meanwhile)
      if (!copy_) {
        it = storages_.emplace(bytes.get(), blob.storage()).first;
      } else {
        const at::Tensor on_device = blob.to(device_, /*non_blocking=*/false, /*copy=*/true);
        on_device_.push_back({blob, on_device});
        it = storages_.emplace(bytes.get(), on_device.storage()).first;
      }
    }
    at::Tensor v = at::empty({0}, options(t.dtype()));
    v.set_(it->second, t.offset(), t.shape(), t.strides());
    return v;
  }

  // A fresh contiguous scatterproof tensor and its LibTorch view, for an
  // out-of-place result.
  std::pair<Tensor, at::Tensor> fresh(DType dtype, const Shape& shape) {
    Tensor out = Tensor::zeros(dtype, shape);
    at::Tensor v = view(out);
    return {std::move(out), std::move(v)};
  }

  // After the call, given a device: every storage copied there, copied back
  // over its host bytes. It waits for the call's kernels, so a kernel's
  // asynchronous error (a device-side assert) is raised here, in this call.
  // Nothing to do without a device.
  void copy_back() {
    for (auto& [host, device] : on_device_) host.copy_(device);
  }

 private:
  c10::Device device_ = c10::Device(c10::kCPU);
  bool copy_ = false;
  std::map<const std::vector<std::byte>*, at::Storage> storages_;
  std::vector<std::pair<at::Tensor, at::Tensor>> on_device_;  // (host blob, its device copy)
  std::vector<std::shared_ptr<std::vector<std::byte>>> held_;
};

// Where an out-of-place op writes (PyTorch's out=, T-OUT*): the caller's
// `out` when the call gives one — its own layout over its own storage, so
// LibTorch's dtype and overlap checks see what is real — else a fresh
// tensor. A given out whose shape is not `shape` is resized by LibTorch, as
// a user's would be; the caller's bytes cannot grow, so LibTorch gets a
// resizable tensor of out's dtype and the answer is a copy of what it made.
class OutSlot {
 public:
  OutSlot(const OpCall& call, TorchViews& views, DType dtype, const std::optional<Shape>& shape) {
    const Tensor* given = call.tensor("out");
    if (given && (!shape || given->shape() == *shape)) {
      kept_ = *given;
      tensor_ = views.view(*given);
    } else if (given || !shape) {
      // Resizable: LibTorch gives it the result's shape (or raises first).
      const Shape start = given ? given->shape() : Shape{0};
      tensor_ = at::empty(start, views.options(given ? given->dtype() : dtype));
    } else {
      auto [out, out_t] = views.fresh(dtype, *shape);
      kept_ = std::move(out);
      tensor_ = std::move(out_t);
    }
  }
  at::Tensor& tensor() { return tensor_; }
  // The answer, after the op wrote tensor(): the caller's out (or the fresh
  // tensor) it wrote into, else a copy of the tensor LibTorch resized.
  Tensor result(TorchViews& views) const {
    const Shape made_shape(tensor_.sizes().begin(), tensor_.sizes().end());
    if (kept_ && made_shape == kept_->shape()) return *kept_;
    const at::Tensor made = tensor_.contiguous();
    DType made_dtype = DType::Float32;
    for (DType d : kAllDTypes)
      if (torch_has_dtype(d) && torch_dtype(d) == made.scalar_type()) made_dtype = d;
    auto [copy, copy_t] = views.fresh(made_dtype, made_shape);
    copy_t.copy_(made);
    return copy;
  }

 private:
  std::optional<Tensor> kept_;
  at::Tensor tensor_;
};

inline const Tensor& operand(const OpCall& call, const std::string& name) {
  const Tensor* t = call.tensor(name);
  if (!t) throw MalformedCall{call.op + ": missing tensor operand '" + name + "'"};
  return *t;
}

inline int64_t dim_arg(const OpCall& call) {
  if (!call.int_arg("dim")) throw MalformedCall{call.op + ": missing argument 'dim'"};
  return *call.int_arg("dim");
}

// Exactly one of `src` (tensor) and `value` (scalar) is given.
inline bool has_src(const OpCall& call) {
  const bool src = call.tensor("src") != nullptr;
  if (src == call.scalar_arg("value").has_value())
    throw MalformedCall{call.op + ": needs exactly one of 'src' and 'value'"};
  return src;
}

// self.scatter_(dim, index, src|value[, reduce]) on LibTorch views.
inline void scatter_in_place(at::Tensor& self, int64_t dim, const at::Tensor& index, const OpCall& call,
                             TorchViews& views) {
  if (has_src(call)) {
    const at::Tensor src = views.view(operand(call, "src"));
    if (call.string_arg("reduce")) {
      self.scatter_(dim, index, src, *call.string_arg("reduce"));
    } else {
      self.scatter_(dim, index, src);
    }
  } else if (call.string_arg("reduce")) {
    self.scatter_(dim, index, torch_scalar(*call.scalar_arg("value")), *call.string_arg("reduce"));
  } else {
    self.scatter_(dim, index, torch_scalar(*call.scalar_arg("value")));
  }
}

using LibTorchKernel = Outcome (*)(const OpCall& call, TorchViews& views);

// The op ids the libtorch backend implements and the kernel of each.
using LibTorchOps = OpKernels<LibTorchKernel>;

}  // namespace sp::libtorch
