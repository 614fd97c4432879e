// cpu_context.h — what the cpu backend's op files share: the thread pool,
// the output pool, the kernels' scratch space, and the few steps every
// scatter-like op takes (a fresh copy of self, a bounds-checked scatter into
// a target, the error for the first bad index).
//
// One op file per op family lives in backends/cpu/ops/: it defines
// `void register_<file stem>(CpuOps&)`, which adds a kernel function for
// each op id it implements; the backend collects every file's registration
// (sp_op_files in cmake/sp_helpers.cmake), so adding an op to the cpu
// backend is one file. The ops it registers are exactly the ops the backend
// implements(); the harness answers every other op "unsupported".
//
// Every kernel function runs after the harness has checked the call's
// signature against the op table (run_backend): operands and required
// arguments are present with their declared types.
//
// Thread-safety: a CpuContext belongs to one backend instance, used by one
// thread at a time; its pool runs the kernels' parallel parts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/output_pool.h"
#include "backends/cpu/row_reduce.h"
#include "backends/cpu/thread_pool.h"
#include "backends/op_kernels.h"

namespace sp::cpu {

class CpuContext;
using CpuKernel = Outcome (*)(CpuContext& cpu, const OpCall& call);

// The op ids the cpu backend implements and the kernel of each.
using CpuOps = OpKernels<CpuKernel>;

// PyTorch (and the walk) address a rank-0 tensor as shape [1].
Shape logical_shape(const Tensor& t);
Shape logical_strides(const Tensor& t);
// The first element of `t`'s view.
std::byte* data(const Tensor& t);
// dim in [-rank, rank) -> [0, rank). REQUIRES: checked.
inline int64_t wrap_dim(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

class CpuContext {
 public:
  // reuse_outputs: BackendOptions::reuse_outputs (the output pool's reuse).
  // Without reuse, no memory is kept between calls either (the kernels'
  // scratch space): every call allocates fresh, like the baseline does.
  explicit CpuContext(int threads, bool reuse_outputs = true)
      : pool_(threads), outputs_(reuse_outputs), reuse_(reuse_outputs) {}

  ThreadPool& pool() { return pool_; }
  int threads() const { return pool_.size(); }
  // A contiguous tensor whose elements the caller overwrites, every one.
  Tensor uninitialized(DType dtype, const Shape& shape) { return outputs_.uninitialized(dtype, shape); }
  // A contiguous copy of `t` (out-of-place ops start from one).
  Tensor fresh_copy(const Tensor& t);
  // The sorted row reduction's space kept between calls (null without reuse).
  RowReduceScratch* row_scratch() { return reuse_ ? &row_scratch_ : nullptr; }

  // Runs the scatter kernel writing `target` over the walk of an index of
  // `index_shape`/`index_strides` (logical), reading `src` or the scalar
  // bits `value`. A src or index sharing storage with the target is copied
  // first, so every read sees the values from before the call. With
  // `check_index_from` the kernel checks the index values against
  // [*check_index_from, size): false when one is outside, the target
  // untouched (an overwrite along the last dim may have written part of it:
  // ScatterArgs::check_index_from).
  bool scatter_into(const Tensor& target, const Tensor& index, const Shape& index_shape, const Shape& index_strides,
                    const Tensor* src, std::optional<uint64_t> value, int64_t dim, ScatterOp op, bool zero_first,
                    std::optional<int64_t> check_index_from = std::nullopt);

  // A contiguous copy of `indices` (int32 or int64, its own dtype) with
  // every value in [-size, 0) replaced by value + size (ONNX's and
  // MindSpore's negative indices). REQUIRES: the values scanned.
  Tensor wrapped_indices(const Tensor& indices, int64_t size);

  // index_out_of_bounds naming the first index value (row-major) outside
  // [lo, size) of `index` (logical shape/strides), PyTorch's wording.
  Outcome first_bad_index_error(const Tensor& index, const Shape& shape, const Shape& strides, int64_t lo, int64_t size,
                                int64_t dim);

 private:
  ThreadPool pool_;
  OutputPool outputs_;
  bool reuse_;
  std::vector<std::vector<std::byte>> scratch_;  // the scatter kernel's, kept between calls
  RowReduceScratch row_scratch_;
};

// The scatter_reduce walk (ops/torch_scatter_reduce.cc): every position of
// `index` combines src into target[.., index, ..] along `dim` with `reduce`
// (include_self=False: targets start from the identity), a target's terms in
// index order. REQUIRES: the operands checked, index values in [0, size).
// The index_add walk (ops/torch_index_add.cc): target's slice index[i]
// along dim += alpha * source's slice i (alpha_bits: alpha in target's
// dtype; each term rounded, then one rounded add), i in order. REQUIRES:
// the operands checked, index values in [0, size) (wrapped by the caller).
void index_add_into(CpuContext& cpu, const Tensor& target, std::vector<int64_t> index, const Tensor& source,
                    int64_t dim, int64_t size, uint64_t alpha_bits);

enum class Reduce;
void scatter_reduce_into(CpuContext& cpu, const Tensor& target, const Tensor& index, const Tensor& src, int64_t dim,
                         Reduce reduce, bool include_self);

// paddle.gather's and paddle.index_select's kernel (ops/paddle_index_select.cc):
// the checks in the reference's order (axis, the index's rank, its dtype;
// `rank_message` when the rank is wrong), the index values read into a
// contiguous int64 index with negatives wrapped (from Paddle 3.0, the rule
// of `bounds_clause`; before, a negative value fails cleanly), then
// gather_kernel over out's shape with that index expanded along every dim
// but axis (stride 0). `zero_d_index` (paddle.gather): a 0-d index is one
// value, out then drops axis (of size 1).
Outcome paddle_select_along_axis(CpuContext& cpu, const OpCall& call, const char* bounds_clause, bool zero_d_index,
                                 const char* rank_message);

}  // namespace sp::cpu
