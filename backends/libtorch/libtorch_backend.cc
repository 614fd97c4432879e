// The LibTorch backend: runs each call through LibTorch 1.13's CPU kernels.
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
// unclassified text becomes a harness error.
//
// This is the only translation unit that includes Torch headers (they are
// slow to compile and carry their own flags); the rest of scatterproof sees
// register_libtorch_backend() only.
#include <algorithm>
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "backends/backend.h"
#include "backends/libtorch/libtorch_errors.h"
#include "reference/dialect_mindspore.h"

namespace sp {
namespace {

// MindSpore documents self ranks up to 8.
constexpr int64_t kMindSporeMaxRank = 8;

at::ScalarType torch_dtype(DType t) {
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
  }
  throw std::logic_error("unknown dtype");
}

at::Scalar torch_scalar(const Scalar& s) {
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

// Presents scatterproof tensors to LibTorch without copying. Tensors that
// share a scatterproof storage share one at::Storage, so LibTorch's own
// aliasing checks (in-place self overlapping src/index) see what is real.
class TorchViews {
 public:
  at::Tensor view(const Tensor& t) {
    const auto& bytes = t.storage();
    if (!bytes) throw MalformedCall{"tensor without storage: " + t.describe()};
    auto it = storages_.find(bytes.get());
    if (it == storages_.end()) {
      // A byte-typed blob over the whole storage; its at::Storage is reused
      // for every view of any dtype.
      const at::Tensor blob = at::from_blob(bytes->data(), {static_cast<int64_t>(bytes->size())}, at::kByte);
      it = storages_.emplace(bytes.get(), blob.storage()).first;
    }
    at::Tensor v = at::empty({0}, at::TensorOptions().dtype(torch_dtype(t.dtype())));
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

 private:
  std::map<const std::vector<std::byte>*, at::Storage> storages_;
};

const Tensor& operand(const OpCall& call, const std::string& name) {
  const Tensor* t = call.tensor(name);
  if (!t) throw MalformedCall{call.op + ": missing tensor operand '" + name + "'"};
  return *t;
}

int64_t dim_arg(const OpCall& call) {
  if (!call.int_arg("dim")) throw MalformedCall{call.op + ": missing argument 'dim'"};
  return *call.int_arg("dim");
}

// Exactly one of `src` (tensor) and `value` (scalar) is given.
bool has_src(const OpCall& call) {
  const bool src = call.tensor("src") != nullptr;
  if (src == call.scalar_arg("value").has_value()) throw MalformedCall{call.op + ": needs exactly one of 'src' and 'value'"};
  return src;
}

// self.scatter_(dim, index, src|value[, reduce]) on LibTorch views.
void scatter_in_place(at::Tensor& self, int64_t dim, const at::Tensor& index, const OpCall& call, TorchViews& views) {
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

Outcome run_torch_gather(const OpCall& call, TorchViews& views) {
  const Tensor& input = operand(call, "input");
  const Tensor& index = operand(call, "index");
  const at::Tensor input_t = views.view(input);
  const at::Tensor index_t = views.view(index);
  auto [out, out_t] = views.fresh(input.dtype(), index.shape());
  at::gather_out(out_t, input_t, dim_arg(call), index_t);
  return Outcome::of_outputs({out});
}

Outcome run_torch_scatter(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  if (in_place) {
    scatter_in_place(self_t, dim, index_t, call, views);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  if (has_src(call)) {
    const at::Tensor src = views.view(operand(call, "src"));
    if (call.string_arg("reduce")) {
      at::scatter_out(out_t, self_t, dim, index_t, src, *call.string_arg("reduce"));
    } else {
      at::scatter_out(out_t, self_t, dim, index_t, src);
    }
  } else if (call.string_arg("reduce")) {
    at::scatter_out(out_t, self_t, dim, index_t, torch_scalar(*call.scalar_arg("value")), *call.string_arg("reduce"));
  } else {
    at::scatter_out(out_t, self_t, dim, index_t, torch_scalar(*call.scalar_arg("value")));
  }
  return Outcome::of_outputs({out});
}

Outcome run_torch_scatter_add(const OpCall& call, TorchViews& views, bool in_place) {
  const Tensor& self = operand(call, "self");
  const int64_t dim = dim_arg(call);
  at::Tensor self_t = views.view(self);
  const at::Tensor index_t = views.view(operand(call, "index"));
  const at::Tensor src_t = views.view(operand(call, "src"));
  if (in_place) {
    self_t.scatter_add_(dim, index_t, src_t);
    return Outcome::of_outputs({self});
  }
  auto [out, out_t] = views.fresh(self.dtype(), self.shape());
  at::scatter_add_out(out_t, self_t, dim, index_t, src_t);
  return Outcome::of_outputs({out});
}

// mindspore.Tensor.scatter_ (seed 003) translated onto Tensor::scatter_.
// MindSpore's own argument rules come first, as a converter must check them
// in MindSpore's terms (LibTorch's differ: it promotes a rank-0 self to rank
// 1, has no rank limit, checks nothing for an empty index, and checks
// index.size(d) <= self.size(d) only apart from dim):
//   dim in [-r, r) of self's own rank -> dim_out_of_range
//   self rank <= 8 -> rank_limit; index int32/int64 -> index_dtype;
//   src dtype == self dtype -> dtype_mismatch; reduce "add"/"multiply" ->
//   invalid_reduce; value overloads with doc_version r2.10+ (removed after
//   2.9) -> invalid_argument;
//   an empty index returns self unchanged;
//   index, self and src share a rank -> rank_mismatch;
//   index.size(d) > self.size(d) for ANY d -> shape_mismatch.
// Then the index becomes a new int64 tensor (LibTorch only takes int64)
// with negative values v mapped to v + s (003: [-s, s) counts from the end),
// and scatter_ runs with src/value and reduce exactly as PyTorch's. Index
// values outside [-s, s) (undefined on Ascend per 003) are left to LibTorch
// to report; the value's conversion to self's dtype is LibTorch's own.
Outcome translate_mindspore_scatter(const OpCall& call, TorchViews& views) {
  const Tensor& self = operand(call, "self");
  const Tensor& index = operand(call, "index");
  const int64_t rank = self.rank();
  const int64_t raw_dim = dim_arg(call);
  const std::string op = "mindspore.scatter_: ";
  if (raw_dim < -rank || raw_dim >= rank) {
    return Outcome::of_error(ErrorCategory::DimOutOfRange, op + "dim " + std::to_string(raw_dim) + " is outside [-" +
                                                               std::to_string(rank) + ", " + std::to_string(rank) +
                                                               ")");
  }
  if (rank > kMindSporeMaxRank) {
    return Outcome::of_error(ErrorCategory::RankLimit, op + "self has rank " + std::to_string(rank) + ", more than 8");
  }
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64) {
    return Outcome::of_error(ErrorCategory::IndexDtype,
                             op + "index dtype " + std::string(dtype_name(index.dtype())) + " is not int32 or int64");
  }
  const bool src_given = has_src(call);
  if (src_given && operand(call, "src").dtype() != self.dtype()) {
    return Outcome::of_error(ErrorCategory::DtypeMismatch, op + "src dtype differs from self dtype");
  }
  if (call.string_arg("reduce") && *call.string_arg("reduce") != "add" && *call.string_arg("reduce") != "multiply") {
    return Outcome::of_error(ErrorCategory::InvalidReduce,
                             op + "reduce must be \"add\" or \"multiply\", but got \"" + *call.string_arg("reduce") + "\"");
  }
  bool r2_10_or_later = false;
  try {
    r2_10_or_later = ref::mindspore_rules::follows_r2_10_or_later(call.doc_version);
  } catch (const std::invalid_argument& e) {
    throw MalformedCall{e.what()};
  }
  if (!src_given && r2_10_or_later) {
    return Outcome::of_error(ErrorCategory::InvalidArgument,
                             op + "the value overloads were removed after 2.9 (doc " + call.doc_version + ")");
  }
  if (index.numel() == 0) return Outcome::of_outputs({self});
  // LibTorch checks src's rank only after the dim against it, so a 1-D src
  // would read as a dim error: check the ranks in MindSpore's terms first.
  const bool ranks_agree = index.rank() == rank && (!src_given || operand(call, "src").rank() == rank);
  if (!ranks_agree) {
    return Outcome::of_error(ErrorCategory::RankMismatch, op + "index, self and src must have the same rank");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (index.size(d) > self.size(d)) {
      return Outcome::of_error(ErrorCategory::ShapeMismatch,
                               op + "index.size(" + std::to_string(d) + ") = " + std::to_string(index.size(d)) +
                                   " exceeds self.size(" + std::to_string(d) + ") = " + std::to_string(self.size(d)));
    }
  }
  const int64_t dim = raw_dim < 0 ? raw_dim + rank : raw_dim;
  at::Tensor self_t = views.view(self);
  const at::Tensor as_long = views.view(index).to(at::kLong);
  const at::Tensor index_t = at::where(as_long.lt(0), as_long + self.size(dim), as_long);
  scatter_in_place(self_t, dim, index_t, call, views);
  return Outcome::of_outputs({self});
}

// paddle.scatter (seed 004) translated onto index_copy_ / index_fill_ +
// index_add_ along dim 0 of a copy of x:
//   overwrite=True:  out = x.clone(); out.index_copy_(0, index, updates)
//   overwrite=False: out = x.clone(); out.index_fill_(0, index, 0);
//                    out.index_add_(0, index, updates)
// (004: with overwrite=False every indexed row is first set to zero, then
// the updates are summed into it.) Paddle's argument rules are checked
// first, in Paddle's terms: x has rank >= 1 and index is 1-D
// (invalid_argument), index int32/int64 (index_dtype), updates dtype == x
// dtype (dtype_mismatch), updates.shape == [len(index)] + x.shape[1:]
// (shape_mismatch; index_add_ would broadcast other shapes), index values
// in [0, x.shape[0]) (index_out_of_bounds; negative values, which 004
// leaves undescribed, are rejected rather than wrapped). x dtypes beyond the documented float32/float64 are computed like
// any other.
Outcome translate_paddle_scatter(const OpCall& call, TorchViews& views) {
  const Tensor& x = operand(call, "x");
  const Tensor& index = operand(call, "index");
  const Tensor& updates = operand(call, "updates");
  const bool overwrite = call.bool_arg("overwrite").value_or(true);
  const std::string op = "paddle.scatter: ";
  if (x.rank() == 0) return Outcome::of_error(ErrorCategory::InvalidArgument, op + "x must have ndim >= 1");
  if (index.rank() != 1) {
    return Outcome::of_error(ErrorCategory::InvalidArgument,
                             op + "index must be 1-D, got ndim " + std::to_string(index.rank()));
  }
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64) {
    return Outcome::of_error(ErrorCategory::IndexDtype,
                             op + "index dtype " + std::string(dtype_name(index.dtype())) + " is not int32 or int64");
  }
  if (updates.dtype() != x.dtype()) {
    return Outcome::of_error(ErrorCategory::DtypeMismatch,
                             op + "updates dtype " + std::string(dtype_name(updates.dtype())) +
                                 " differs from x dtype " + std::string(dtype_name(x.dtype())));
  }
  Shape expected_updates = x.shape();
  expected_updates[0] = index.size(0);
  if (updates.shape() != expected_updates) {
    return Outcome::of_error(ErrorCategory::ShapeMismatch,
                             op + "updates shape " + format_shape(updates.shape()) +
                                 " is not [len(index)] + x.shape[1:] = " + format_shape(expected_updates));
  }
  const at::Tensor index_t = views.view(index).to(at::kLong);
  // index_copy_ into a zero-row x fails inside LibTorch with an unrelated
  // storage error, so the bounds are checked here, as Paddle does: values
  // below x.shape[0] and, since the translation does not wrap them, not
  // negative.
  if (index.numel() > 0) {
    const int64_t largest = index_t.max().item<int64_t>();
    const int64_t smallest = index_t.min().item<int64_t>();
    if (largest >= x.size(0) || smallest < 0) {
      const int64_t bad = largest >= x.size(0) ? largest : smallest;
      return Outcome::of_error(ErrorCategory::IndexOutOfBounds, op + "index value " + std::to_string(bad) +
                                                                    " is outside [0, x.shape[0] = " +
                                                                    std::to_string(x.size(0)) + ")");
    }
  }
  const at::Tensor updates_t = views.view(updates);
  auto [out, out_t] = views.fresh(x.dtype(), x.shape());
  out_t.copy_(views.view(x));
  if (overwrite) {
    out_t.index_copy_(0, index_t, updates_t);
  } else {
    out_t.index_fill_(0, index_t, 0);
    out_t.index_add_(0, index_t, updates_t);
  }
  return Outcome::of_outputs({out});
}

class LibTorchBackend final : public Backend {
 public:
  explicit LibTorchBackend(const BackendOptions& opts) : threads_(opts.threads) {}

  std::string name() const override { return "libtorch"; }
  std::string description() const override {
    return "LibTorch " TORCH_VERSION
           " CPU kernels: torch.* ops natively, mindspore.scatter_ and paddle.scatter through a translation";
  }

  bool implements(std::string_view op) const override {
    static const std::vector<std::string_view> kOps = {"torch.gather", "torch.scatter_", "torch.scatter",
                                                      "torch.scatter_add_", "torch.scatter_add", "mindspore.scatter_",
                                                      "paddle.scatter"};
    return std::find(kOps.begin(), kOps.end(), op) != kOps.end();
  }
  Outcome run(const OpCall& call) override {
    // LibTorch's thread count is process-wide: set it per call so several
    // instances with different counts (bench: 1 vs N threads) each get theirs.
    if (threads_ > 0 && at::get_num_threads() != threads_) at::set_num_threads(threads_);
    TorchViews views;
    try {
      if (call.op == "torch.gather") return run_torch_gather(call, views);
      if (call.op == "torch.scatter_") return run_torch_scatter(call, views, true);
      if (call.op == "torch.scatter") return run_torch_scatter(call, views, false);
      if (call.op == "torch.scatter_add_") return run_torch_scatter_add(call, views, true);
      if (call.op == "torch.scatter_add") return run_torch_scatter_add(call, views, false);
      if (call.op == "mindspore.scatter_") return translate_mindspore_scatter(call, views);
      if (call.op == "paddle.scatter") return translate_paddle_scatter(call, views);
      return Outcome::unsupported("libtorch backend does not implement " + call.op);
    } catch (const MalformedCall& e) {
      return Outcome::harness_error(e.what);
    } catch (const c10::Error& e) {
      return classified(e.what_without_backtrace());
    } catch (const std::exception& e) {
      // c10::checked_convert throws std::runtime_error for an unrepresentable
      // scalar; anything else is unclassified and becomes a harness error.
      return classified(e.what());
    }
  }

 private:
  static Outcome classified(const std::string& message) {
    if (auto category = classify_libtorch_error(message)) return Outcome::of_error(*category, message);
    return Outcome::harness_error("unmapped LibTorch error: " + message);
  }

  int threads_;
};

}  // namespace

void register_libtorch_backend() {
  register_backend(
      "libtorch", "LibTorch " TORCH_VERSION " (CPU) via its C++ API",
      [](const std::string&, const BackendOptions& opts) { return std::make_unique<LibTorchBackend>(opts); });
}

}  // namespace sp
