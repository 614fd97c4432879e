// jobs.h — the host code of a scatter or gather job, written once for the
// GPU (scatter_gather.cu) and the host launcher (host_launcher.h): upload,
// validation pass, writes, download. Only the primitives differ, supplied
// by a Platform P:
//   P::Buffer                  owns a zero-or-more-byte allocation padded to
//                              8 bytes: Buffer(bytes), get(), upload(host),
//                              download(host); movable.
//   P::launch(blocks, k, what) runs kernel body k over blocks x
//                              kThreadsPerBlock threads, synchronously.
//   P::sort_pairs(keys_in, keys_out, values_in, values_out, n)
//                              stable sort of (key, value) pairs by key.
// Failures of the platform throw CudaFailure.
//
// Order of a scatter job (why: a bad index must never leave partial writes):
//   1. upload each operand's whole storage (layouts kept as they are);
//   2. validation pass; the smallest offending position is the answer;
//   3. only when it passed: the writes (a filling pass first for Paddle
//      overwrite=False and include_self=False; a mean's counts, then its
//      division pass), then the target storage is copied back.
// The write kernels re-check each value and record instead of writing out
// of range; a disagreement with the validation pass is a backend bug.
#pragma once

#include <climits>

#include "backends/cuda/kernels/extremum_grad.h"
#include "backends/cuda/kernels/scatter_gather.h"

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

inline int blocks_for(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

template <class P>
typename P::Buffer upload(const HostOperand& op) {
  typename P::Buffer b(op.storage_bytes);
  b.upload(op.storage);
  return b;
}

// The device error word: ULLONG_MAX until a thread records a position.
template <class P>
class ErrorWord {
 public:
  ErrorWord() : buffer_(sizeof(unsigned long long)) {
    const unsigned long long none = ULLONG_MAX;
    buffer_.upload(reinterpret_cast<const std::byte*>(&none));
  }
  unsigned long long* get() const { return static_cast<unsigned long long*>(buffer_.get()); }
  int64_t first_bad_position() const {
    unsigned long long word = 0;
    buffer_.download(reinterpret_cast<std::byte*>(&word));
    return word == ULLONG_MAX ? -1 : static_cast<int64_t>(word);
  }

 private:
  typename P::Buffer buffer_;
};

template <class P, class I>
int64_t validate_indices(const TensorMeta& index, const void* data, int64_t dim_extent, IndexRule rule) {
  const int64_t positions = meta_numel(index);
  if (positions == 0) return -1;
  ErrorWord<P> error;
  P::launch(blocks_for(positions), ValidateIndexKernel<I>{index, data, positions, dim_extent, rule, error.get()},
            "validate_index_kernel");
  return error.first_bad_position();
}

// Deterministic mode: sort (target, position) pairs, then one thread per
// run of equal targets applies it in position order.
template <class P, DType D, class I>
void scatter_sorted(const ScatterArgs& args, int64_t positions, unsigned long long* error_word) {
  using Buffer = typename P::Buffer;
  const size_t bytes = static_cast<size_t>(positions) * sizeof(int64_t);
  Buffer keys(bytes), sorted_keys(bytes), order(bytes), sorted_order(bytes);
  auto* keys_in = static_cast<int64_t*>(keys.get());
  auto* keys_out = static_cast<int64_t*>(sorted_keys.get());
  auto* order_in = static_cast<int64_t*>(order.get());
  auto* order_out = static_cast<int64_t*>(sorted_order.get());
  const int blocks = blocks_for(positions);
  P::launch(blocks, TargetKeysKernel<I>{args, positions, keys_in, order_in, error_word}, "target_keys_kernel");
  P::sort_pairs(keys_in, keys_out, order_in, order_out, positions);
  P::launch(blocks, ApplySortedRunsKernel<D>{args, positions, keys_out, order_out}, "apply_sorted_runs_kernel");
}

template <class P, DType D, class I>
struct ScatterTyped {
  static JobResult run(const ScatterJob& job, std::byte* target_storage) {
    using Buffer = typename P::Buffer;
    Buffer target = upload<P>(job.target);
    Buffer index = upload<P>(job.index);
    Buffer src = job.has_src ? upload<P>(job.src) : Buffer(0);

    JobResult result;
    result.first_bad_position =
        validate_indices<P, I>(job.index_for_validation, index.get(), job.target.meta.sizes[job.dim], job.rule);
    if (result.first_bad_position >= 0) return result;

    // mean in atomic mode: one visit counter per target storage element.
    const int64_t elements = static_cast<int64_t>(job.target.storage_bytes / dtype_size(job.dtype));
    const bool count = job.mean && !job.deterministic;
    Buffer counts(count ? static_cast<size_t>(elements) * sizeof(int32_t) : 0);
    ScatterArgs args{job.target.meta,
                     job.index.meta,
                     job.src.meta,
                     target.get(),
                     index.get(),
                     job.has_src ? src.get() : nullptr,
                     job.value_bits,
                     job.has_alpha,
                     job.alpha_bits,
                     job.dim,
                     job.rule,
                     job.mode,
                     job.mean,
                     job.mean_counts_self,
                     count ? static_cast<int32_t*>(counts.get()) : nullptr};
    const int64_t positions = meta_numel(job.index.meta);
    if (positions > 0) {
      ErrorWord<P> error;
      const int blocks = blocks_for(positions);
      if (count) P::launch(blocks_for(elements), ClearCountsKernel{args.counts, elements}, "clear_counts_kernel");
      if (job.fill_targets_first)
        P::launch(blocks, ScatterKernel<D, I>{args, positions, true, job.fill_bits, error.get()},
                  "scatter_kernel (filling)");
      if (job.deterministic)
        scatter_sorted<P, D, I>(args, positions, error.get());
      else
        P::launch(blocks, ScatterKernel<D, I>{args, positions, false, 0, error.get()}, "scatter_kernel");
      if (count)
        P::launch(blocks_for(elements), MeanDivideKernel<D>{target.get(), args.counts, elements, job.mean_counts_self},
                  "mean_divide_kernel");
      if (error.first_bad_position() >= 0)
        throw CudaFailure("write kernel found an index the validation pass accepted");
    }
    target.download(target_storage);
    return result;
  }
};

template <class P, DType D, class I>
struct GatherTyped {
  static JobResult run(const GatherJob& job, std::byte* out_storage) {
    using Buffer = typename P::Buffer;
    Buffer input = upload<P>(job.input);
    Buffer index = upload<P>(job.index);
    const int64_t positions = meta_numel(job.out);
    Buffer out(static_cast<size_t>(positions) * dtype_size(job.dtype));

    JobResult result;
    result.first_bad_position =
        validate_indices<P, I>(job.index_for_validation, index.get(), job.input.meta.sizes[job.dim], job.rule);
    if (result.first_bad_position >= 0 || positions == 0) return result;
    ErrorWord<P> error;
    P::launch(blocks_for(positions),
              GatherKernel<D, I>{job.input.meta, input.get(), job.index.meta, index.get(), job.out, out.get(), job.dim,
                                 job.rule, positions, error.get()},
              "gather_kernel");
    if (error.first_bad_position() >= 0) throw CudaFailure("gather kernel found an index the validation pass accepted");
    out.download(out_storage);
    return result;
  }
};

template <class P>
JobResult run_nd_rows_on(const NdRowsJob& job, std::byte* rows_out) {
  using Buffer = typename P::Buffer;
  JobResult result;
  if (job.tuples == 0) return result;
  Buffer indices = upload<P>(job.indices);
  Buffer rows(static_cast<size_t>(job.tuples) * sizeof(int64_t));
  NdRowsSizes sizes{};
  for (int j = 0; j < job.k; ++j) sizes.s[j] = job.dim_sizes[j];
  ErrorWord<P> error;
  P::launch(blocks_for(job.tuples),
            NdRowsKernel{job.indices.meta, indices.get(), job.tuples, job.k, sizes, job.tuples_per_batch,
                         job.rows_per_batch, static_cast<int64_t*>(rows.get()), error.get()},
            "nd_rows_kernel");
  result.first_bad_position = error.first_bad_position();
  if (result.first_bad_position < 0) rows.download(rows_out);
  return result;
}

template <class P, DType D, class I>
struct ExtremumGradTyped {
  static JobResult run(const ExtremumGradJob& job, std::byte* grad_self_out, std::byte* grad_src_out) {
    using Buffer = typename P::Buffer;
    using T = typename Elem<D>::T;
    Buffer result = upload<P>(job.result), self = upload<P>(job.self), grad = upload<P>(job.grad);
    Buffer index = upload<P>(job.index), src = upload<P>(job.src);
    const int64_t elements = meta_numel(job.slots), positions = meta_numel(job.index.meta);
    Buffer hits(static_cast<size_t>(elements) * sizeof(int32_t)),
        winners(static_cast<size_t>(elements) * sizeof(int32_t));
    Buffer share(static_cast<size_t>(elements) * sizeof(T)), src_wins(static_cast<size_t>(positions));
    Buffer grad_src(static_cast<size_t>(positions) * sizeof(T));
    ExtremumGradArgs a{job.slots,
                       job.index.meta,
                       job.src.meta,
                       result.get(),
                       self.get(),
                       grad.get(),
                       index.get(),
                       src.get(),
                       static_cast<int32_t*>(hits.get()),
                       static_cast<int32_t*>(winners.get()),
                       static_cast<uint8_t*>(src_wins.get()),
                       share.get(),
                       grad_src.get(),
                       job.dim,
                       job.include_self};
    if (elements > 0) {
      P::launch(blocks_for(elements), ClearCountsKernel{a.hits, elements}, "clear_counts_kernel (hits)");
      P::launch(blocks_for(elements), ClearCountsKernel{a.winners, elements}, "clear_counts_kernel (winners)");
    }
    if (positions > 0)
      P::launch(blocks_for(positions), ExtremumTermsKernel<D, I>{a, positions}, "extremum_terms_kernel");
    if (elements > 0) P::launch(blocks_for(elements), ExtremumSlotsKernel<D>{a, elements}, "extremum_slots_kernel");
    if (positions > 0) P::launch(blocks_for(positions), ExtremumSrcKernel<D, I>{a, positions}, "extremum_src_kernel");
    grad.download(grad_self_out);
    grad_src.download(grad_src_out);
    return JobResult{};
  }
};

template <class P, template <class, DType, class> class Job, DType D, class... Args>
JobResult with_index(bool index_is_int64, Args&... args) {
  return index_is_int64 ? Job<P, D, int64_t>::run(args...) : Job<P, D, int32_t>::run(args...);
}

// Job<P, D, I>::run(args...) for the runtime dtype and index type.
template <class P, template <class, DType, class> class Job, class... Args>
JobResult dispatch(DType dtype, bool index_is_int64, Args&... args) {
  switch (dtype) {
    case DType::Bool:
      return with_index<P, Job, DType::Bool>(index_is_int64, args...);
    case DType::UInt8:
      return with_index<P, Job, DType::UInt8>(index_is_int64, args...);
    case DType::Int8:
      return with_index<P, Job, DType::Int8>(index_is_int64, args...);
    case DType::Int16:
      return with_index<P, Job, DType::Int16>(index_is_int64, args...);
    case DType::Int32:
      return with_index<P, Job, DType::Int32>(index_is_int64, args...);
    case DType::Int64:
      return with_index<P, Job, DType::Int64>(index_is_int64, args...);
    case DType::Float16:
      return with_index<P, Job, DType::Float16>(index_is_int64, args...);
    case DType::BFloat16:
      return with_index<P, Job, DType::BFloat16>(index_is_int64, args...);
    case DType::Float32:
      return with_index<P, Job, DType::Float32>(index_is_int64, args...);
    case DType::Float64:
      return with_index<P, Job, DType::Float64>(index_is_int64, args...);
    case DType::UInt16:
      return with_index<P, Job, DType::UInt16>(index_is_int64, args...);
    case DType::UInt32:
      return with_index<P, Job, DType::UInt32>(index_is_int64, args...);
    case DType::UInt64:
      return with_index<P, Job, DType::UInt64>(index_is_int64, args...);
  }
  throw CudaFailure("unknown dtype");
}

template <class P>
JobResult run_scatter_on(const ScatterJob& job, std::byte* target_storage) {
  return dispatch<P, ScatterTyped>(job.dtype, job.index_is_int64, job, target_storage);
}

template <class P>
JobResult run_gather_on(const GatherJob& job, std::byte* out_storage) {
  return dispatch<P, GatherTyped>(job.dtype, job.index_is_int64, job, out_storage);
}

template <class P>
JobResult run_extremum_grad_on(const ExtremumGradJob& job, std::byte* grad_self, std::byte* grad_src) {
  return dispatch<P, ExtremumGradTyped>(job.dtype, job.index_is_int64, job, grad_self, grad_src);
}

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
