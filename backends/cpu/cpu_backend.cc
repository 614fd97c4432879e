// cpu_backend.cc — backend "cpu": optimized, multi-threaded kernels for
// every semantic, checked differentially against the reference.
//
// Each op: validate (cpu_validate.h, then a parallel index-bounds scan),
// and only then write; gather, whose output is fresh, checks its index
// values inside the kernel instead. In-place ops write into the caller's
// self view (its layout kept); out-of-place ops write a fresh contiguous
// tensor (output_pool.h) that starts as a copy of self/x. A src or index sharing storage with the
// written tensor is copied first, so every read sees the values from
// before the call, as in the reference.
#include <algorithm>
#include <thread>

#include "reference/op_table.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_validate.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/mutation.h"
#include "backends/cpu/output_pool.h"
#include "reference/dialect_mindspore.h"
#include "reference/dialect_torch.h"

namespace sp {
namespace cpu {
namespace {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

// PyTorch (and the walk) address a rank-0 tensor as shape [1].
Shape logical_shape(const Tensor& t) { return t.rank() == 0 ? Shape{1} : t.shape(); }
Shape logical_strides(const Tensor& t) { return t.rank() == 0 ? Shape{0} : t.strides(); }
std::byte* data(const Tensor& t) { return t.storage()->data() + t.offset() * static_cast<int64_t>(dtype_size(t.dtype())); }

Outcome error(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, Mutation mutation, std::string name)
      : pool_(threads), mutation_(mutation), name_(std::move(name)) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    return "optimized multi-threaded CPU kernels (" + std::to_string(pool_.size()) +
           " threads; all dtypes, int32/int64 index, strided operands walked in place)";
  }

  bool implements(std::string_view op) const override {
    static const std::vector<std::string_view> kOps = {"torch.gather", "torch.scatter_", "torch.scatter",
                                                      "torch.scatter_add_", "torch.scatter_add", "mindspore.scatter_",
                                                      "paddle.scatter"};
    return std::find(kOps.begin(), kOps.end(), op) != kOps.end();
  }
  Outcome run(const OpCall& call) override {
    const std::string missing = missing_operand(call);
    if (!missing.empty()) return Outcome::harness_error("cpu backend: " + call.op + ": " + missing);
    try {
      if (call.op == "torch.gather") return torch_gather(call);
      if (call.op == "torch.scatter_" || call.op == "torch.scatter" || call.op == "torch.scatter_add_" ||
          call.op == "torch.scatter_add")
        return torch_scatter(call);
      if (call.op == "mindspore.scatter_") return mindspore_scatter(call);
      if (call.op == "paddle.scatter") return paddle_scatter(call);
    } catch (const std::exception& e) {
      return Outcome::harness_error("cpu backend: " + call.op + ": " + e.what());
    }
    return Outcome::unsupported("op " + call.op + " is not implemented by the cpu backend");
  }

 private:
  Tensor fresh_copy(const Tensor& t) {
    Tensor out = outputs_.uninitialized(t.dtype(), t.shape());  // every element is copied over
    copy_to_contiguous(t, out.storage()->data(), pool_);
    return out;
  }

  Outcome torch_gather(const OpCall& call) {
    if (auto v = check_torch_gather(call)) return error(v->category, v->message);
    const Tensor& input = *call.tensor("input");
    const Tensor& index = *call.tensor("index");
    if (index.numel() == 0) return Outcome::of_outputs({Tensor::zeros(input.dtype(), index.shape())});
    // The kernel writes every element and checks the index as it reads it.
    Tensor out = outputs_.uninitialized(input.dtype(), index.shape());
    const Shape input_shape = logical_shape(input), index_shape = logical_shape(index);
    const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + static_cast<int64_t>(input_shape.size()) : *call.int_arg("dim");
    const int64_t size = input_shape[static_cast<size_t>(dim)];
    const IndexWalk walk = make_walk(index_shape, dim, logical_strides(input), logical_strides(index),
                                     contiguous_strides(index_shape), size);
    if (gather_kernel(input.dtype(), index.dtype(), data(input), data(index), data(out), walk, pool_))
      return Outcome::of_outputs({out});
    // Some value is out of range: find the first one in row-major order for the message.
    const auto bad = find_bad_index(index.dtype(), data(index), index_shape, logical_strides(index), 0, size, pool_);
    return error(ErrorCategory::IndexOutOfBounds, "index " + std::to_string(bad.value().value) +
                                                      " is out of bounds for dimension " + std::to_string(dim) +
                                                      " with size " + std::to_string(size));
  }

  Outcome torch_scatter(const OpCall& call) {
    if (auto v = check_torch_scatter(call)) return error(v->category, v->message);
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    Tensor target = is_inplace_op(call.op) ? self : fresh_copy(self);
    if (index.numel() == 0) return Outcome::of_outputs({target});
    const int64_t rank = static_cast<int64_t>(logical_shape(self).size());
    const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
    const int64_t size = logical_shape(self)[static_cast<size_t>(dim)];
    ScatterOp op = ScatterOp::Overwrite;
    if (call.op == "torch.scatter_add_" || call.op == "torch.scatter_add" || call.string_arg("reduce") == "add")
      op = ScatterOp::Add;
    else if (call.string_arg("reduce") == "multiply")
      op = ScatterOp::Multiply;
    std::optional<uint64_t> value;
    if (!call.tensor("src")) value = ref::torch_rules::scalar_to_bits(*call.scalar_arg("value"), self.dtype());
    // The kernel checks the index values (fused into its reads where it can).
    if (!scatter_into(target, index, logical_shape(index), logical_strides(index), call.tensor("src"), value, dim, op,
                      false, 0)) {
      const auto bad =
          find_bad_index(index.dtype(), data(index), logical_shape(index), logical_strides(index), 0, size, pool_);
      return error(ErrorCategory::IndexOutOfBounds, "index " + std::to_string(bad.value().value) +
                                                        " is out of bounds for dimension " + std::to_string(dim) +
                                                        " with size " + std::to_string(size));
    }
    return Outcome::of_outputs({target});
  }

  Outcome mindspore_scatter(const OpCall& call) {
    if (auto v = check_mindspore_scatter(call, mutation_ != Mutation::MindsporeRankLimitMissing))
      return error(v->category, v->message);
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    if (index.numel() == 0) return Outcome::of_outputs({self});
    const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + self.rank() : *call.int_arg("dim");
    const int64_t size = self.size(dim);
    // 003 leaves these undefined (the reference allows any outcome); failing
    // cleanly is the safe choice for an in-place kernel.
    if (self.has_internal_overlap())
      return error(ErrorCategory::OverlappingOutput, "self " + self.describe() + " has internal overlap");
    const bool negatives_allowed = !ref::mindspore_rules::follows_r2_10_or_later(call.doc_version);
    if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(),
                                  negatives_allowed ? -size : 0, size, pool_))
      return error(ErrorCategory::IndexOutOfBounds, "index" + format_index(bad->position) + "=" +
                                                        std::to_string(bad->value) + " is outside [" +
                                                        std::to_string(negatives_allowed ? -size : 0) + ", " +
                                                        std::to_string(size) + ") for dim " + std::to_string(dim));
    const ScatterOp op = call.string_arg("reduce") == "add"        ? ScatterOp::Add
                         : call.string_arg("reduce") == "multiply" ? ScatterOp::Multiply
                                                     : ScatterOp::Overwrite;
    std::optional<uint64_t> value;
    if (!call.tensor("src")) value = ref::torch_rules::scalar_to_bits(*call.scalar_arg("value"), self.dtype());
    scatter_into(self, index, index.shape(), index.strides(), call.tensor("src"), value, dim, op, false);
    return Outcome::of_outputs({self});
  }

  Outcome paddle_scatter(const OpCall& call) {
    if (auto v = check_paddle_scatter(call)) return error(v->category, v->message);
    const Tensor& x = *call.tensor("x");
    const Tensor& index = *call.tensor("index");
    const Tensor& updates = *call.tensor("updates");
    Tensor out = fresh_copy(x);
    if (auto bad = find_bad_index(index.dtype(), data(index), index.shape(), index.strides(), 0, x.size(0), pool_)) {
      const bool negative = bad->value < 0;  // 004 does not describe negatives: the reference allows any outcome
      return error(ErrorCategory::IndexOutOfBounds,
                   negative ? "index[" + std::to_string(bad->position[0]) + "]=" + std::to_string(bad->value) +
                                  " is negative"
                            : "The index is out of bounds: it should be less than " + std::to_string(x.size(0)) +
                                  ", but received " + std::to_string(bad->value));
    }
    if (updates.numel() == 0) return Outcome::of_outputs({out});
    // Rows of x addressed along dim 0: an index expanded over updates' shape.
    Shape index_strides(updates.shape().size(), 0);
    index_strides[0] = index.stride(0);
    const bool overwrite = call.bool_arg("overwrite").value_or(true);
    const bool zero_rows_first = !overwrite && mutation_ != Mutation::PaddleAccumulateKeepsOldRow;
    scatter_into(out, index, updates.shape(), index_strides, &updates, std::nullopt, 0,
                 overwrite ? ScatterOp::Overwrite : ScatterOp::Add, zero_rows_first);
    return Outcome::of_outputs({out});
  }

  // Runs the scatter kernel writing `target` over the walk of an index of
  // `index_shape`/`index_strides` (logical), reading `src` or the scalar
  // bits `value`. With `check_index_from` the kernel checks the index values
  // against [*check_index_from, size): false, target untouched, when one is
  // outside.
  bool scatter_into(const Tensor& target, const Tensor& index, const Shape& index_shape, const Shape& index_strides,
                    const Tensor* src, std::optional<uint64_t> value, int64_t dim, ScatterOp op, bool zero_first,
                    std::optional<int64_t> check_index_from = std::nullopt) {
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
    args.scratch = &scratch_;
    args.check_index_from = check_index_from;
    return scatter_kernel(args, pool_);
  }

  ThreadPool pool_;
  OutputPool outputs_;
  std::vector<std::vector<std::byte>> scratch_;  // the scatter kernel's, kept between calls
  const Mutation mutation_;
  const std::string name_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads, Mutation mutation, std::string name) {
  return std::make_unique<CpuBackend>(resolve_threads(threads), mutation, std::move(name));
}

}  // namespace cpu

void register_cpu_backend() {
  register_backend("cpu", "optimized multi-threaded CPU kernels for every semantic",
                   [](const std::string&, const BackendOptions& opts) -> std::unique_ptr<Backend> {
                     return cpu::make_cpu_backend(opts.threads, cpu::Mutation::None, "cpu");
                   });
}

}  // namespace sp
