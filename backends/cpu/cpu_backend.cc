// cpu_backend.cc — backend "cpu": optimized, multi-threaded kernels,
// checked differentially against the reference.
//
// The backend is its op files (backends/cpu/ops/*.cc, one per op family,
// collected by sp_op_files): each registers a kernel per op id, and those
// ids are exactly what implements() answers. The shared steps live in
// CpuContext (cpu_context.h); the argument rules our cpu and cuda kernels
// both check live in backends/common/arg_rules.h.
#include <thread>

#include "backends/backend.h"
#include "backends/common/torch_out.h"
#include "backends/cpu/cpu_context.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"
#include "sp_cpu_op_files.h"

namespace sp {
namespace cpu {

#define SP_DECLARE_OP_FILE(stem) void register_##stem(CpuOps& ops);
SP_OP_FILES(SP_DECLARE_OP_FILE)
#undef SP_DECLARE_OP_FILE

Shape logical_shape(const Tensor& t) { return t.rank() == 0 ? Shape{1} : t.shape(); }
Shape logical_strides(const Tensor& t) { return t.rank() == 0 ? Shape{0} : t.strides(); }
std::byte* data(const Tensor& t) {
  return t.storage()->data() + t.offset() * static_cast<int64_t>(dtype_size(t.dtype()));
}

Tensor CpuContext::fresh_copy(const Tensor& t) {
  Tensor out = outputs_.uninitialized(t.dtype(), t.shape());  // every element is copied over
  copy_to_contiguous(t, out.storage()->data(), pool_);
  return out;
}

bool CpuContext::scatter_into(const Tensor& target, const Tensor& index, const Shape& index_shape,
                              const Shape& index_strides, const Tensor* src, std::optional<uint64_t> value, int64_t dim,
                              ScatterOp op, bool zero_first, std::optional<int64_t> check_index_from) {
  const auto shares_target = [&](const Tensor& t) { return t.storage() == target.storage(); };
  const Tensor index_read = shares_target(index) ? fresh_copy(index) : index;
  Tensor src_read;
  if (src) src_read = shares_target(*src) ? fresh_copy(*src) : *src;
  const uint64_t value_bits = value.value_or(0);  // little-endian: the element is its low bytes

  const Shape p_strides = src ? logical_strides(src_read) : Shape(index_shape.size(), 0);
  ScatterArgs args;
  args.dtype = target.dtype();
  args.index_dtype = index.dtype();
  args.a = data(target);
  args.x = data(index_read);
  args.p = src ? data(src_read) : reinterpret_cast<const std::byte*>(&value_bits);
  args.walk = make_walk(index_shape, dim, logical_strides(target), index_strides, p_strides,
                        logical_shape(target)[static_cast<size_t>(dim)]);
  args.op = op;
  args.zero_targets_first = zero_first;
  args.scratch = reuse_ ? &scratch_ : nullptr;
  args.row_scratch = row_scratch();
  args.check_index_from = check_index_from;
  return scatter_kernel(args, pool_);
}

namespace {

template <class I>
void wrap_values(std::byte* p, int64_t n, int64_t size) {
  I* v = reinterpret_cast<I*>(p);
  for (int64_t i = 0; i < n; ++i)
    if (v[i] < 0) v[i] = static_cast<I>(v[i] + size);
}

}  // namespace

Tensor CpuContext::wrapped_indices(const Tensor& indices, int64_t size) {
  Tensor w = Tensor::zeros(indices.dtype(), indices.shape());
  copy_to_contiguous(indices, data(w), pool_);
  if (indices.dtype() == DType::Int32)
    wrap_values<int32_t>(data(w), w.numel(), size);
  else
    wrap_values<int64_t>(data(w), w.numel(), size);
  return w;
}

Outcome CpuContext::first_bad_index_error(const Tensor& index, const Shape& shape, const Shape& strides, int64_t lo,
                                          int64_t size, int64_t dim) {
  const auto bad = find_bad_index(index.dtype(), data(index), shape, strides, lo, size, pool_);
  if (!bad) return Outcome::harness_error("cpu backend: a kernel reported a bad index the scan does not find");
  return Outcome::of_error(ErrorCategory::IndexOutOfBounds,
                           ref::torch_messages::index_out_of_bounds(bad->value, dim, size));
}

namespace {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

const CpuOps& cpu_ops() {
  static const CpuOps ops = [] {
    CpuOps o;
#define SP_REGISTER_OP_FILE(stem) register_##stem(o);
    SP_OP_FILES(SP_REGISTER_OP_FILE)
#undef SP_REGISTER_OP_FILE
    return o;
  }();
  return ops;
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, bool reuse_outputs) : context_(threads, reuse_outputs) {}

  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return "optimized multi-threaded CPU kernels (" + std::to_string(context_.threads()) +
           " threads; all dtypes, int32/int64 index, strided operands walked in place)";
  }
  bool implements(std::string_view op) const override { return cpu_ops().find(op) != nullptr; }

  Outcome run(const OpCall& call) override {
    const CpuKernel* kernel = cpu_ops().find(call.op);
    if (!kernel) return Outcome::unsupported("op " + call.op + " is not implemented by the cpu backend");
    try {
      if (call.tensor("out") && !is_inplace_op(call)) return run_with_out(*kernel, call);
      return (*kernel)(context_, call);
    } catch (const std::exception& e) {
      return Outcome::harness_error("cpu backend: " + call.op + ": " + e.what());
    }
  }

 private:
  // PyTorch's out= (T-OUT*), shared with the cuda backends.
  Outcome run_with_out(CpuKernel kernel, const OpCall& call) {
    return backend_rules::run_with_torch_out(call, [&](const OpCall& without) { return kernel(context_, without); });
  }

  CpuContext context_;
};

}  // namespace
}  // namespace cpu

void register_cpu_backend() {
  register_backend("cpu", "optimized multi-threaded CPU kernels for every semantic",
                   [](const std::string&, const BackendOptions& opts) -> std::unique_ptr<Backend> {
                     return std::make_unique<cpu::CpuBackend>(cpu::resolve_threads(opts.threads), opts.reuse_outputs);
                   });
}

}  // namespace sp
