// cuda_ops.h — the boundary between the host backend (cuda_backend.cc, plain
// C++) and the device code (scatter_gather.cu). Everything CUDA lives
// behind these functions: allocation, copies, the validation pass, kernels.
//
// A job names host storages and layouts. Each operand's whole storage is
// copied to the device as it is (strides and offset kept, so views need no
// packing); the target storage is copied back whole after the writes.
//
// Errors: a CUDA runtime failure throws CudaFailure (the backend reports
// it); an out-of-range index value is *not* an exception: it comes back as
// the first offending position and nothing has been written.
//
// Thread-safety: one job at a time per host thread; jobs use the default
// stream (or the host launcher's own threads) and synchronise before
// returning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/cuda/index_math.h"
#include "reference/dtype.h"

namespace sp::cuda {

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Devices the CUDA runtime can see; 0 when there are none or no driver
// (sp_cuda only).
int device_count();

// One operand: its layout and the host storage it lives in.
struct HostOperand {
  TensorMeta meta;
  const std::byte* storage = nullptr;  // null only when storage_bytes == 0
  size_t storage_bytes = 0;
};

// How a visited value meets its target: overwrite, or one step of a
// reduction (add, multiply, max, min: max_of / min_of, NaN propagating).
enum class WriteMode : int { Overwrite, Add, Multiply, Max, Min };

struct ScatterJob {
  DType dtype = DType::Float32;  // of target and src
  bool index_is_int64 = true;    // else int32
  HostOperand target;            // self (in place) or out (already a copy of self)
  // Index positions visited, with the index layout. For row scatter (Paddle)
  // this is the 1-D index expanded over the row (stride 0 on dims >= 1).
  HostOperand index;
  // The index tensor as the validation pass reads it (its own layout; the
  // same as `index` except for row scatter, where it is the 1-D index).
  TensorMeta index_for_validation;
  bool has_src = false;
  HostOperand src;          // when has_src; its layout is read at the index positions
  uint64_t value_bits = 0;  // the converted scalar when !has_src
  // index_add's alpha (converted to dtype): each visited value is multiplied
  // by it, rounded once to dtype, before it is written.
  bool has_alpha = false;
  uint64_t alpha_bits = 0;
  int dim = 0;  // REQUIRES: 0 <= dim < target.meta.rank
  IndexRule rule = IndexRule::ZeroBased;
  WriteMode mode = WriteMode::Overwrite;
  // A first pass storing fill_bits into every indexed target: Paddle's
  // overwrite=False (0), scatter_reduce / index_reduce include_self=False
  // (the reduction's identity).
  bool fill_targets_first = false;
  uint64_t fill_bits = 0;
  // mean (mode Add): each indexed target is divided by its number of terms
  // (the visits, plus one when mean_counts_self), floor for integers.
  bool mean = false;
  bool mean_counts_self = false;
  bool deterministic = false;  // sort by target, reduce in position order
};

struct GatherJob {
  DType dtype = DType::Float32;
  bool index_is_int64 = true;
  HostOperand input;
  // Index positions visited, with the index layout: out has this shape. For
  // index_select this is the 1-D index expanded over out's shape (stride 0
  // on every dim but dim).
  HostOperand index;
  // The index tensor as the validation pass reads it (its own layout; the
  // same as `index` except for index_select, where it is the 1-D index).
  TensorMeta index_for_validation;
  TensorMeta out;  // contiguous over index's (logical) shape, offset 0
  int dim = 0;
  IndexRule rule = IndexRule::ZeroBased;
};

// ONNX's ND ops: each index tuple (the last dim of `indices`, k values)
// resolved to a row of data viewed as [prod(shape[:b + k]), shape[b + k:]...]
// (b = batch_dims): row = batch(n) * rows_per_batch + the tuple's row-major
// coordinate over dim_sizes, each value checked against [-s, s) of its dim
// (negatives count from the end).
struct NdRowsJob {
  HostOperand indices;  // int64, rank >= 1
  int64_t tuples = 0;   // prod(indices.shape[:-1])
  int k = 0;
  int64_t dim_sizes[kMaxMetaRank] = {};  // data.shape[b + j], j < k
  int64_t tuples_per_batch = 1;          // prod(indices.shape[b:-1])
  int64_t rows_per_batch = 1;            // prod(dim_sizes)
};

// scatter_reduce's amax / amin gradient (kernels/extremum_grad.h): each
// slot's gradient shared evenly by the terms equal to its result.
struct ExtremumGradJob {
  DType dtype = DType::Float32;
  bool index_is_int64 = true;
  TensorMeta slots;    // contiguous, offset 0: self's logical shape
  HostOperand result;  // the forward's result, laid out as slots
  HostOperand self;    // self, laid out as slots
  HostOperand grad;    // grad_output, laid out as slots
  HostOperand index;   // values already checked
  HostOperand src;     // read at the index positions
  int dim = 0;
  bool include_self = true;
};

// The first index position (row-major over index_for_validation / index)
// holding an out-of-range value, or -1 when all are in range.
struct JobResult {
  int64_t first_bad_position = -1;
};

// Where jobs run: the GPU (scatter_gather.cu) or the host launcher, which
// executes the same kernel bodies on the CPU (host_launcher.h).
struct Executor {
  // Runs the validation pass, then (only if it passed) the writes, then
  // copies the target storage back into `target_storage`
  // (target.storage_bytes bytes).
  JobResult (*run_scatter)(const ScatterJob& job, std::byte* target_storage);
  // Same for gather; `out_storage` receives numel(out) contiguous elements.
  JobResult (*run_gather)(const GatherJob& job, std::byte* out_storage);
  // The rows of an ND job: `rows` receives job.tuples int64 values, unless
  // a value is out of range (the first, row-major over indices).
  JobResult (*run_nd_rows)(const NdRowsJob& job, std::byte* rows);
  // grad_self (numel(slots) elements) and grad_src (numel(index), contiguous).
  JobResult (*run_extremum_grad)(const ExtremumGradJob& job, std::byte* grad_self, std::byte* grad_src);
  // What the jobs run on, for Backend::description().
  std::string (*summary)();
};

// The GPU (only in builds with nvcc: sp_cuda).
const Executor& device_executor();
// The host launcher: the kernel bodies run over the whole grid on the CPU
// (always built: sp_cuda_host).
const Executor& host_executor();

}  // namespace sp::cuda
