// cuda_backend.cc — the CUDA backend over an executor: argument checks on
// the host, then one scatter or gather job on the executor (cuda_ops.h):
// the GPU for "cuda" / "cuda-deterministic" (scatter_gather.cu, registered
// by cuda_register.cc), the host launcher for "cuda-host" /
// "cuda-host-deterministic" (host_launcher.h, registered here). Everything
// in this file is shared by both, so cuda-host tests it on every machine.
//
// The host checks are this backend's own reading of the documents, written
// to give the reference's error categories in the reference's check order
// (reference/torch_*.cc, mindspore_scatter.cc, paddle_scatter.cc); the first
// violated rule is the answer. Index *values* are checked on the device by
// the validation pass, before any write. Value conversion of a scalar uses
// the reference's c10 conversion mechanics (dialect_torch.h), which both
// PyTorch and MindSpore document.
//
// Where a document leaves a call undefined (MindSpore and Paddle negative
// or out-of-range indices, MindSpore self with internal overlap) any answer
// but a crash passes; this backend reports index_out_of_bounds for values
// outside the rule it applies and runs overlapping selves as given.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "backends/backend.h"
#include "backends/common/arg_rules.h"
#include "backends/common/torch_out.h"
#include "backends/cuda/backward_ops.h"
#include "backends/cuda/call_support.h"
#include "backends/cuda/cuda_ops.h"
#include "backends/cuda/onnx_ops.h"
#include "backends/cuda/reduce_ops.h"
#include "backends/cuda/tensor_meta.h"
#include "reference/dialect_mindspore.h"
#include "reference/dialect_torch.h"
#include "reference/messages_mindspore.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"

namespace sp {
namespace {

using cuda::HostOperand;
using cuda::IndexRule;
using cuda::TensorMeta;
using cuda::WriteMode;
using cuda::call_support::convert_scalar;
using cuda::call_support::fail;
using cuda::call_support::meta_or_refuse;
using cuda::call_support::operand;
using cuda::call_support::parse_reduce;
using cuda::call_support::Refusal;
using cuda::call_support::report_bad_index;
using cuda::call_support::report_onnx_bad_index;

class CudaBackend final : public Backend {
 public:
  CudaBackend(const cuda::Executor& executor, std::string name, bool deterministic)
      : executor_(executor), name_(std::move(name)), deterministic_(deterministic) {}
  std::string name() const override { return name_; }
  // The GPU is a device (the comparator may cite DEV-FTZ for it); the host
  // launcher (cuda-host*, its mutants) runs on the host and is judged as the host is.
  std::string device() const override { return name_.rfind("cuda-host", 0) == 0 ? std::string() : "cuda"; }
  std::string description() const override {
    return std::string(deterministic_ ? "CUDA kernels, sorted per-target reduction (bit-identical runs)"
                                      : "CUDA kernels, atomics") +
           " on " + executor_.summary();
  }

  bool implements(std::string_view op) const override { return kernel_of(op) != nullptr; }
  Outcome run(const OpCall& call) override {
    const Kernel kernel = kernel_of(call.op);
    if (!kernel) return Outcome::unsupported("op " + call.op + " is not implemented by the " + name_ + " backend");
    // PyTorch's out= (T-OUT*), shared with the cpu backend: the op runs into
    // a fresh result, out's rules are checked, then out receives it.
    if (call.tensor("out") && !is_inplace_op(call))
      return backend_rules::run_with_torch_out(call,
                                               [&](const OpCall& without) { return run_kernel(kernel, without); });
    return run_kernel(kernel, call);
  }

 private:
  using Kernel = Outcome (CudaBackend::*)(const OpCall&);

  Outcome run_kernel(Kernel kernel, const OpCall& call) {
    try {
      return (this->*kernel)(call);
    } catch (const Refusal& r) {
      return r.outcome;
    } catch (const cuda::CudaFailure& e) {
      return Outcome{Outcome::Kind::Crash, {}, std::nullopt, std::string("CUDA failure: ") + e.what()};
    } catch (const std::invalid_argument& e) {
      return Outcome::harness_error(e.what());
    }
  }

  // The ops this backend implements, and the kernel of each.
  static Kernel kernel_of(std::string_view op) {
    static const std::map<std::string, Kernel, std::less<>> kernels = {
        {"torch.gather", &CudaBackend::torch_gather},
        {"torch.scatter_", &CudaBackend::torch_scatter},
        {"torch.scatter", &CudaBackend::torch_scatter},
        {"torch.scatter_add_", &CudaBackend::torch_scatter_add},
        {"torch.scatter_add", &CudaBackend::torch_scatter_add},
        {"torch.scatter_reduce_", &CudaBackend::torch_scatter_reduce},
        {"torch.scatter_reduce", &CudaBackend::torch_scatter_reduce},
        {"mindspore.scatter_", &CudaBackend::mindspore_scatter},
        {"paddle.scatter", &CudaBackend::paddle_scatter},
        {"torch.index_select", &CudaBackend::torch_index_select},
        {"torch.take_along_dim", &CudaBackend::torch_take_along_dim},
        {"torch.index_add_", &CudaBackend::torch_index_add},
        {"torch.index_add", &CudaBackend::torch_index_add},
        {"torch.index_copy_", &CudaBackend::torch_index_copy},
        {"torch.index_copy", &CudaBackend::torch_index_copy},
        {"torch.index_fill_", &CudaBackend::torch_index_fill},
        {"torch.index_fill", &CudaBackend::torch_index_fill},
        {"torch.index_reduce_", &CudaBackend::torch_index_reduce},
        {"torch.index_reduce", &CudaBackend::torch_index_reduce},
        {"onnx.GatherElements", &CudaBackend::onnx_gather_elements},
        {"onnx.ScatterElements", &CudaBackend::onnx_scatter_elements},
        {"onnx.Scatter", &CudaBackend::onnx_scatter_elements},
        {"onnx.GatherND", &CudaBackend::onnx_gather_nd},
        {"onnx.ScatterND", &CudaBackend::onnx_scatter_nd},
        {"torch.gather.backward", &CudaBackend::torch_gather_backward},
        {"torch.scatter_.backward", &CudaBackend::torch_scatter_backward},
        {"torch.scatter.backward", &CudaBackend::torch_scatter_backward},
        {"torch.scatter_add_.backward", &CudaBackend::torch_scatter_add_backward},
        {"torch.scatter_add.backward", &CudaBackend::torch_scatter_add_backward},
        {"torch.scatter_reduce_.backward", &CudaBackend::torch_scatter_reduce_backward},
        {"torch.scatter_reduce.backward", &CudaBackend::torch_scatter_reduce_backward},
        {"paddle.scatter.backward", &CudaBackend::paddle_scatter_backward},
        {"mindspore.scatter_.backward", &CudaBackend::mindspore_scatter_backward},
    };
    const auto it = kernels.find(op);
    return it == kernels.end() ? nullptr : it->second;
  }

  // call_support::scatter_into on this backend's executor and mode.
  Outcome scatter_into(const OpCall& call, const Tensor& self, cuda::ScatterJob job, const Tensor& index,
                       bool rank0_as_1) {
    return cuda::call_support::scatter_into(context(), call, self, std::move(job), index, rank0_as_1);
  }

  Outcome torch_gather(const OpCall& call) {
    const Tensor& input = *call.tensor("input");
    const Tensor& index = *call.tensor("index");
    const TensorMeta in = meta_or_refuse(input, true);
    const TensorMeta idx = meta_or_refuse(index, true);
    if (auto v = backend_rules::check_torch_gather(call)) fail(v->category, v->message);
    const int64_t dim = *call.int_arg("dim");
    const int d = static_cast<int>(dim < 0 ? dim + in.rank : dim);
    Tensor out = Tensor::zeros(input.dtype(), index.shape());
    if (index.numel() == 0) return Outcome::of_outputs({out});

    return gather_into(out, input, in, index, idx, idx, d);
  }

  // One gather job into out: index read through `walk` over out's shape, its
  // values checked as `values` reads them; the first bad one is the error.
  Outcome gather_into(const Tensor& out, const Tensor& input, const TensorMeta& in, const Tensor& index,
                      const TensorMeta& walk, const TensorMeta& values, int d) {
    cuda::GatherJob job;
    job.dtype = input.dtype();
    job.index_is_int64 = index.dtype() == DType::Int64;  // else int32 (T-I2, torch >= 2.8)
    job.input = operand(input, in);
    job.index = operand(index, walk);
    job.index_for_validation = values;
    job.out = meta_or_refuse(out, true);
    job.dim = d;
    const cuda::JobResult r = executor_.run_gather(job, out.storage()->data());
    if (r.first_bad_position >= 0) report_bad_index(index, values, r.first_bad_position, d, in.sizes[d]);
    return Outcome::of_outputs({out});
  }

  // A gather whose index is the 1-D index expanded over out's shape (stride
  // 0 on every dim but dim): position (.., j, ..) reads input[.., index[j], ..].
  // Every index value is checked, also when out is empty (T-IS6).
  Outcome torch_index_select(const OpCall& call) {
    const Tensor& input = *call.tensor("input");
    const Tensor& index = *call.tensor("index");
    if (auto v = backend_rules::check_torch_index_select(call)) fail(v->category, v->message);
    const TensorMeta in = meta_or_refuse(input, true);
    const int64_t dim = *call.int_arg("dim");
    const int d = static_cast<int>(dim < 0 ? dim + in.rank : dim);
    const int64_t k = index.numel();
    TensorMeta walk = in;  // out's logical shape: input's with dim replaced by k
    walk.sizes[d] = k;
    walk.offset = index.offset();
    for (int i = 0; i < walk.rank; ++i) walk.strides[i] = 0;
    walk.strides[d] = index.rank() == 0 ? 0 : index.stride(0);
    TensorMeta values;  // the index as the validation pass reads it: 1-D
    values.rank = 1;
    values.sizes[0] = k;
    values.strides[0] = walk.strides[d];
    values.offset = index.offset();
    Shape out_shape(walk.sizes, walk.sizes + walk.rank);
    Tensor out = Tensor::zeros(input.dtype(), input.rank() == 0 ? Shape{} : out_shape);
    if (k == 0) return Outcome::of_outputs({out});

    return gather_into(out, input, in, index, walk, values, d);
  }

  // A gather over out's shape with both operands broadcast to it (stride 0
  // where an operand has size 1 and out does not); without dim, both read
  // flattened (a contiguous copy) and gathered along 0. Only the values read
  // are checked (an empty out reads none, T-TA6), in out's order; negative
  // values are refused as LibTorch 1.13 refuses them (T-TA7 allows it).
  Outcome torch_take_along_dim(const OpCall& call) {
    if (auto v = backend_rules::check_torch_take_along_dim(call)) fail(v->category, v->message);
    const std::optional<int64_t> dim = call.int_arg("dim");
    const bool flat = !dim;
    const Tensor input = flat ? call.tensor("input")->contiguous() : *call.tensor("input");
    const Tensor indices = flat ? call.tensor("indices")->contiguous() : *call.tensor("indices");
    TensorMeta in = meta_or_refuse(input, true), walk = meta_or_refuse(indices, true);
    if (flat) {
      in = TensorMeta{1, {input.numel()}, {1}, input.offset()};
      walk = TensorMeta{1, {indices.numel()}, {1}, indices.offset()};
    }
    const int d = flat ? 0 : static_cast<int>(*dim < 0 ? *dim + in.rank : *dim);
    for (int k = 0; k < walk.rank; ++k) {
      if (k == d || walk.sizes[k] == in.sizes[k]) continue;
      if (walk.sizes[k] == 1) {
        walk.sizes[k] = in.sizes[k];
        walk.strides[k] = 0;
      } else {
        in.sizes[k] = walk.sizes[k];
        in.strides[k] = 0;
      }
    }
    Shape out_shape(walk.sizes, walk.sizes + walk.rank);
    Tensor out = Tensor::zeros(input.dtype(), !flat && input.rank() == 0 ? Shape{} : out_shape);
    if (cuda::meta_numel(walk) == 0) return Outcome::of_outputs({out});

    return gather_into(out, input, in, indices, walk, walk, d);  // indices are int64 (T-TA4, checked above)
  }

  // The index_* family (call_support::index_family_job): deterministic mode
  // applies a target's writers in index order, as cpu does.
  static cuda::ScatterJob index_family_job(const OpCall& call, const TensorMeta& walked, int d) {
    return cuda::call_support::index_family_job(call, walked, d);
  }

  int dim_of(const OpCall& call, const TensorMeta& self) {
    const int64_t dim = *call.int_arg("dim");
    return static_cast<int>(dim < 0 ? dim + self.rank : dim);
  }

  // self[.., index[i], ..] += alpha * source[.., i, ..], the product rounded
  // once (float32 adds keep subnormals: atomic_add).
  Outcome torch_index_add(const OpCall& call) {
    std::optional<uint64_t> alpha_bits;
    if (auto v = backend_rules::check_torch_index_add(call, &alpha_bits)) fail(v->category, v->message);
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    if (index.numel() == 0) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});
    const TensorMeta src = meta_or_refuse(*call.tensor("source"), true);
    cuda::ScatterJob job = index_family_job(call, src, dim_of(call, meta_or_refuse(self, true)));
    job.has_src = true;
    job.src = operand(*call.tensor("source"), src);
    job.has_alpha = true;
    job.alpha_bits = *alpha_bits;
    job.mode = WriteMode::Add;
    return scatter_into(call, self, job, index, true);
  }

  // self[.., index[i], ..] = source[.., i, ..]; duplicates: any writer (the
  // last in index order in deterministic mode).
  Outcome torch_index_copy(const OpCall& call) {
    if (auto v = backend_rules::check_torch_index_copy(call)) fail(v->category, v->message);
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    if (index.numel() == 0) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});
    const TensorMeta src = meta_or_refuse(*call.tensor("source"), true);
    cuda::ScatterJob job = index_family_job(call, src, dim_of(call, meta_or_refuse(self, true)));
    job.has_src = true;
    job.src = operand(*call.tensor("source"), src);
    job.mode = WriteMode::Overwrite;
    return scatter_into(call, self, job, index, true);
  }

  // self[.., index[i], ..] = value over self's shape with dim replaced by
  // len(index). Values in [-S, S), a negative one wrapped as LibTorch 1.13
  // does (T-IF6: the document is silent).
  Outcome torch_index_fill(const OpCall& call) {
    uint64_t value_bits = 0;
    if (auto v = backend_rules::check_torch_index_fill(call, &value_bits)) fail(v->category, v->message);
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    if (index.numel() == 0) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});
    const TensorMeta s = meta_or_refuse(self, true);
    const int d = dim_of(call, s);
    TensorMeta walked = s;
    walked.sizes[d] = index.numel();
    cuda::ScatterJob job = index_family_job(call, walked, d);
    job.value_bits = value_bits;
    job.rule = IndexRule::NegativeWraps;
    job.mode = WriteMode::Overwrite;
    return scatter_into(call, self, job, index, true);
  }

  Outcome torch_scatter_reduce(const OpCall& call) { return cuda::torch_scatter_reduce(context(), call); }
  Outcome torch_index_reduce(const OpCall& call) { return cuda::torch_index_reduce(context(), call); }
  Outcome onnx_gather_elements(const OpCall& call) { return cuda::onnx_gather_elements(context(), call); }
  Outcome onnx_scatter_elements(const OpCall& call) { return cuda::onnx_scatter_elements(context(), call); }
  // The backward ops (backward_ops.h).
  Outcome torch_gather_backward(const OpCall& call) { return cuda::torch_gather_backward(context(), call); }
  Outcome torch_scatter_backward(const OpCall& call) { return cuda::torch_scatter_backward(context(), call); }
  Outcome torch_scatter_add_backward(const OpCall& call) { return cuda::torch_scatter_add_backward(context(), call); }
  Outcome torch_scatter_reduce_backward(const OpCall& call) {
    return cuda::torch_scatter_reduce_backward(context(), call);
  }
  Outcome paddle_scatter_backward(const OpCall& call) { return cuda::paddle_scatter_backward(context(), call); }
  Outcome mindspore_scatter_backward(const OpCall& call) { return cuda::mindspore_scatter_backward(context(), call); }
  Outcome onnx_gather_nd(const OpCall& call) { return cuda::onnx_gather_nd(context(), call); }
  Outcome onnx_scatter_nd(const OpCall& call) { return cuda::onnx_scatter_nd(context(), call); }
  cuda::call_support::OpContext context() const { return {executor_, name_, deterministic_}; }

  Outcome torch_scatter(const OpCall& call) { return scatter(call, false); }
  Outcome torch_scatter_add(const OpCall& call) { return scatter(call, true); }
  Outcome scatter(const OpCall& call, bool is_scatter_add) {
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    const Tensor* src = call.tensor("src");
    const TensorMeta s = meta_or_refuse(self, true);
    const TensorMeta idx = meta_or_refuse(index, true);
    if (auto v = backend_rules::check_torch_scatter(call)) fail(v->category, v->message);
    const int64_t dim = *call.int_arg("dim");
    const int d = static_cast<int>(dim < 0 ? dim + s.rank : dim);
    const bool empty = index.numel() == 0;
    TensorMeta sm;
    if (src) sm = meta_or_refuse(*src, true);
    std::optional<WriteMode> mode = is_scatter_add ? WriteMode::Add : parse_reduce(call.string_arg("reduce"));
    if (!mode) fail(ErrorCategory::InvalidReduce, ref::torch_messages::reduce_add_or_multiply());

    // T-E1: an empty index reads and writes nothing.
    if (empty) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});

    cuda::ScatterJob job;
    job.dtype = self.dtype();
    job.index_is_int64 = index.dtype() == DType::Int64;  // else int32 (T-I2, torch >= 2.8)
    job.index = operand(index, idx);
    job.index_for_validation = idx;
    job.mode = *mode;
    job.dim = d;
    job.rule = IndexRule::ZeroBased;
    if (src) {
      job.has_src = true;
      job.src = operand(*src, sm);
    } else {
      job.value_bits = convert_scalar(*call.scalar_arg("value"), self.dtype());
    }
    return scatter_into(call, self, job, index, true);
  }

  Outcome mindspore_scatter(const OpCall& call) {
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    const Tensor* src = call.tensor("src");
    const bool r2_10 = ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
    if (auto v = backend_rules::check_mindspore_scatter(call)) fail(v->category, v->message);
    const int64_t rank = self.rank();
    const int64_t dim = *call.int_arg("dim");
    std::optional<WriteMode> mode = parse_reduce(call.string_arg("reduce"));
    if (!mode) fail(ErrorCategory::InvalidReduce, ref::mindspore_messages::reduce_mode(*call.string_arg("reduce")));
    if (index.numel() == 0) return Outcome::of_outputs({self});

    const TensorMeta idx = meta_or_refuse(index, false);
    TensorMeta sm;
    if (src) sm = meta_or_refuse(*src, false);

    cuda::ScatterJob job;
    job.dtype = self.dtype();
    job.index_is_int64 = index.dtype() == DType::Int64;
    job.index = operand(index, idx);
    job.index_for_validation = idx;
    job.mode = *mode;
    job.dim = static_cast<int>(dim < 0 ? dim + rank : dim);
    // r2.10+ leaves negative indices undefined; this backend refuses them.
    job.rule = r2_10 ? IndexRule::ZeroBased : IndexRule::NegativeWraps;
    if (src) {
      job.has_src = true;
      job.src = operand(*src, sm);
    } else {
      job.value_bits = convert_scalar(*call.scalar_arg("value"), self.dtype());
    }
    return scatter_into(call, self, job, index, false);
  }

  // Row scatter as a scatter along dim 0 whose index is the 1-D index
  // expanded over each row (stride 0 on dims >= 1): position (i, r...)
  // reads updates[i][r...] and lands on out[index[i]][r...].
  Outcome paddle_scatter(const OpCall& call) {
    const Tensor& x = *call.tensor("x");
    const Tensor& index = *call.tensor("index");
    const Tensor& updates = *call.tensor("updates");
    if (auto v = backend_rules::check_paddle_scatter(call)) fail(v->category, v->message);

    const TensorMeta xm = meta_or_refuse(x, false);
    cuda::ScatterJob job;
    job.dtype = x.dtype();
    job.index_is_int64 = index.dtype() == DType::Int64;
    job.index_for_validation = meta_or_refuse(index, false);
    TensorMeta rows = xm;
    rows.sizes[0] = index.size(0);
    rows.strides[0] = index.stride(0);
    for (int d = 1; d < rows.rank; ++d) rows.strides[d] = 0;
    rows.offset = index.offset();
    job.index = operand(index, rows);
    job.has_src = true;
    job.src = operand(updates, meta_or_refuse(updates, false));
    job.dim = 0;
    // Negative values are undescribed by 004 before Paddle 3.0 (PD-B2): this
    // backend refuses them; from 3.0 those in [-S, 0) address row v + S (PD-B3).
    job.rule = backend_rules::paddle_negatives_wrap(call) ? IndexRule::NegativeWraps : IndexRule::ZeroBased;
    const bool overwrite = call.bool_arg("overwrite").value_or(true);
    job.mode = overwrite ? WriteMode::Overwrite : WriteMode::Add;
    job.fill_targets_first = !overwrite;  // fill_bits 0
    return scatter_into(call, x, job, index, false);
  }

  const cuda::Executor& executor_;
  std::string name_;
  bool deterministic_;
};

}  // namespace

std::unique_ptr<Backend> cuda::make_cuda_backend(const Executor& executor, const std::string& base_name,
                                                 bool deterministic) {
  return std::make_unique<CudaBackend>(executor, deterministic ? base_name + "-deterministic" : base_name,
                                       deterministic);
}

void register_cuda_host_mutants();  // host_mutants.cc

void register_cuda_host_backend() {
  const auto factory = [](bool deterministic) {
    return [deterministic](const std::string&, const BackendOptions& opts) -> std::unique_ptr<Backend> {
      return cuda::make_cuda_backend(cuda::host_executor(), "cuda-host", deterministic || opts.deterministic);
    };
  };
  register_backend("cuda-host",
                   "the cuda backend's kernel bodies on a host launcher (whole grid, shuffled, threaded; "
                   "--deterministic sorts per target); no GPU needed",
                   factory(false));
  register_backend(
      "cuda-host-deterministic",
      "the cuda-deterministic backend's kernel bodies and sort-and-apply on a host launcher; no GPU needed",
      factory(true));
  register_cuda_host_mutants();
}

}  // namespace sp
