// scatter_gather.cu — every kernel of the CUDA backend, and the host code
// that moves storages and launches them (see cuda_ops.h for the contract).
//
// Order of a scatter job (why: a bad index must never leave partial writes):
//   1. upload each operand's whole storage (layouts kept as they are);
//   2. validation pass: every index value is checked on the device with
//      check_index_value; the smallest offending position goes into one
//      device error word (atomicMin, so "first" means row-major first, the
//      reference's order) — never a device assert;
//   3. only when the word is untouched: the writes (zeroing pass first for
//      Paddle overwrite=False), then the target storage is copied back.
// The write kernels re-check each value through the same index_math.h
// functions and record into the error word instead of writing out of range,
// so even a validation bug cannot make them write outside the storage.
//
// Duplicates: overwrite races (any writer wins, which every document
// allows); add uses native atomicAdd where the type has one (int32, int64 as
// unsigned long long, float, double, __half and __nv_bfloat16 on sm_80+)
// and a compare-and-swap loop otherwise; multiply always uses the CAS loop.
// Deterministic mode sorts (target offset, position) pairs with CUB's
// stable radix sort and lets one thread per target walk its writers in
// position order, so results are bit-identical run to run and equal a
// sequential row-major visit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <type_traits>

#include "backends/cuda/cuda_ops.h"

namespace sp::cuda {
namespace {

constexpr unsigned long long kNoError = ULLONG_MAX;
constexpr int kThreadsPerBlock = 256;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(status));
}

// Owns one device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    // Rounded up to 8 bytes: the CAS loop for 1- and 2-byte elements works
    // on the aligned 32-bit word holding the element, which may reach past
    // the last element.
    if (bytes > 0) check(cudaMalloc(&ptr_, (bytes + 7) / 8 * 8), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) { other.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  void upload(const std::byte* host) {
    if (bytes_ > 0) check(cudaMemcpy(ptr_, host, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  void download(std::byte* host) const {
    if (bytes_ > 0) check(cudaMemcpy(host, ptr_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

DeviceBuffer upload(const HostOperand& op) {
  DeviceBuffer b(op.storage_bytes);
  b.upload(op.storage);
  return b;
}

int blocks_for(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

// ---- element arithmetic, per dtype -------------------------------------------------
// Integral kinds wrap (two's complement, computed unsigned); bool adds as
// `or` and multiplies as `and`; half kinds compute in float and round once
// (a product of two halves is exact in float).
template <DType D>
struct Elem;
template <>
struct Elem<DType::Bool> {
  using T = uint8_t;
  __device__ static T add(T a, T b) { return (a | b) ? 1 : 0; }
  __device__ static T mul(T a, T b) { return (a & b) ? 1 : 0; }
};
template <class I>
struct WrappingInt {
  using T = I;
  __device__ static T add(T a, T b) {
    return static_cast<T>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
  }
  __device__ static T mul(T a, T b) {
    return static_cast<T>(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
  }
};
template <>
struct Elem<DType::UInt8> : WrappingInt<uint8_t> {};
template <>
struct Elem<DType::Int8> : WrappingInt<int8_t> {};
template <>
struct Elem<DType::Int16> : WrappingInt<int16_t> {};
template <>
struct Elem<DType::Int32> : WrappingInt<int32_t> {};
template <>
struct Elem<DType::Int64> : WrappingInt<int64_t> {};
template <>
struct Elem<DType::Float16> {
  using T = __half;
  __device__ static T add(T a, T b) { return __float2half_rn(__half2float(a) + __half2float(b)); }
  __device__ static T mul(T a, T b) { return __float2half_rn(__half2float(a) * __half2float(b)); }
};
template <>
struct Elem<DType::BFloat16> {
  using T = __nv_bfloat16;
  __device__ static T add(T a, T b) { return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b)); }
  __device__ static T mul(T a, T b) { return __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(b)); }
};
template <class F>
struct PlainFloat {
  using T = F;
  __device__ static T add(T a, T b) { return a + b; }
  __device__ static T mul(T a, T b) { return a * b; }
};
template <>
struct Elem<DType::Float32> : PlainFloat<float> {};
template <>
struct Elem<DType::Float64> : PlainFloat<double> {};

template <class To, class From>
__device__ To bit_cast_dev(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// *addr = combine(*addr, operand), atomically, by compare-and-swap on the
// bits (comparing bits, not values, so NaN cannot loop forever).
template <DType D, class Combine>
__device__ void atomic_combine(typename Elem<D>::T* addr, Combine combine) {
  using T = typename Elem<D>::T;
  if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long seen = *word, assumed;
    do {
      assumed = seen;
      seen = atomicCAS(word, assumed, bit_cast_dev<unsigned long long>(combine(bit_cast_dev<T>(assumed))));
    } while (seen != assumed);
  } else if constexpr (sizeof(T) == 4) {
    auto* word = reinterpret_cast<unsigned int*>(addr);
    unsigned int seen = *word, assumed;
    do {
      assumed = seen;
      seen = atomicCAS(word, assumed, bit_cast_dev<unsigned int>(combine(bit_cast_dev<T>(assumed))));
    } while (seen != assumed);
  } else {
    // 1- and 2-byte elements: CAS the aligned 32-bit word that holds them.
    using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const uintptr_t address = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
    unsigned int seen = *word, assumed;
    do {
      assumed = seen;
      const T old_value = bit_cast_dev<T>(static_cast<Bits>((assumed & mask) >> shift));
      const unsigned new_bits = static_cast<unsigned>(bit_cast_dev<Bits>(combine(old_value))) << shift;
      seen = atomicCAS(word, assumed, (assumed & ~mask) | new_bits);
    } while (seen != assumed);
  }
}

template <DType D>
__device__ void atomic_add(typename Elem<D>::T* addr, typename Elem<D>::T v) {
  using T = typename Elem<D>::T;
  if constexpr (D == DType::Int32 || D == DType::Float32 || D == DType::Float64) {
    atomicAdd(addr, v);
  } else if constexpr (D == DType::Int64) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else if constexpr (D == DType::Float16 || D == DType::BFloat16) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    atomicAdd(addr, v);
#else
    atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
#endif
  } else {
    atomic_combine<D>(addr, [v](T old) { return Elem<D>::add(old, v); });
  }
}

// ---- kernels -------------------------------------------------------------------------
// Everything a scatter kernel reads, passed by value.
struct ScatterArgs {
  TensorMeta target;
  TensorMeta index;
  TensorMeta src;
  void* target_data;
  const void* index_data;
  const void* src_data;  // null: the scalar in value_bits
  uint64_t value_bits;
  int dim;
  IndexRule rule;
  WriteMode mode;
};

__device__ void record_bad_position(unsigned long long* error_word, int64_t position) {
  atomicMin(error_word, static_cast<unsigned long long>(position));
}

template <class I>
__device__ int64_t index_value_at(const TensorMeta& index, const void* data, const int64_t* pos) {
  return static_cast<int64_t>(static_cast<const I*>(data)[element_offset(index, pos)]);
}

// The value visited at index position `pos`: src at the same position, or
// the scalar.
template <DType D>
__device__ typename Elem<D>::T visited_value(const ScatterArgs& a, const int64_t* pos) {
  using T = typename Elem<D>::T;
  if (a.src_data) return static_cast<const T*>(a.src_data)[element_offset(a.src, pos)];
  if constexpr (sizeof(T) == 8)
    return bit_cast_dev<T>(static_cast<uint64_t>(a.value_bits));
  else if constexpr (sizeof(T) == 4)
    return bit_cast_dev<T>(static_cast<uint32_t>(a.value_bits));
  else if constexpr (sizeof(T) == 2)
    return bit_cast_dev<T>(static_cast<uint16_t>(a.value_bits));
  else
    return bit_cast_dev<T>(static_cast<uint8_t>(a.value_bits));
}

// The validation pass: checks every index value, writes nothing else.
template <class I>
__global__ void validate_index_kernel(TensorMeta index, const void* data, int64_t positions, int64_t dim_extent,
                                      IndexRule rule, unsigned long long* error_word) {
  int64_t pos[kMaxMetaRank];
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < positions;
       p += int64_t{gridDim.x} * blockDim.x) {
    linear_to_multi_index(p, index, pos);
    int64_t normalized = 0;
    if (check_index_value(index_value_at<I>(index, data, pos), dim_extent, rule, &normalized) != IndexStatus::Ok)
      record_bad_position(error_word, p);
  }
}

// One thread per index position. `zeroing` is the first pass of Paddle's
// overwrite=False (every indexed target set to 0; concurrent zero stores
// agree, so it needs no atomics).
template <DType D, class I>
__global__ void scatter_kernel(ScatterArgs a, int64_t positions, bool zeroing, unsigned long long* error_word) {
  using T = typename Elem<D>::T;
  T* target = static_cast<T*>(a.target_data);
  int64_t pos[kMaxMetaRank];
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < positions;
       p += int64_t{gridDim.x} * blockDim.x) {
    linear_to_multi_index(p, a.index, pos);
    int64_t at = 0;
    if (scatter_target_offset(a.target, pos, a.dim, index_value_at<I>(a.index, a.index_data, pos), a.rule, &at) !=
        IndexStatus::Ok) {
      record_bad_position(error_word, p);
      return;
    }
    if (zeroing) {
      target[at] = bit_cast_dev<T>(
          std::conditional_t<
              sizeof(T) == 8, uint64_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>{0});
      continue;
    }
    const T v = visited_value<D>(a, pos);
    switch (a.mode) {
      case WriteMode::Overwrite:
        target[at] = v;
        break;
      case WriteMode::Add:
        atomic_add<D>(target + at, v);
        break;
      case WriteMode::Multiply:
        atomic_combine<D>(target + at, [v](T old) { return Elem<D>::mul(old, v); });
        break;
    }
  }
}

// Deterministic mode, step 1: the sort keys (target offset) and payloads
// (position) of every index position.
template <class I>
__global__ void target_keys_kernel(ScatterArgs a, int64_t positions, int64_t* keys, int64_t* position_of,
                                   unsigned long long* error_word) {
  int64_t pos[kMaxMetaRank];
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < positions;
       p += int64_t{gridDim.x} * blockDim.x) {
    linear_to_multi_index(p, a.index, pos);
    int64_t at = 0;
    if (scatter_target_offset(a.target, pos, a.dim, index_value_at<I>(a.index, a.index_data, pos), a.rule, &at) !=
        IndexStatus::Ok) {
      record_bad_position(error_word, p);
      at = -1;
    }
    keys[p] = at;
    position_of[p] = p;
  }
}

// Deterministic mode, step 3: after a stable sort by target, the thread at
// the head of each run of equal targets applies the run in position order.
template <DType D>
__global__ void apply_sorted_runs_kernel(ScatterArgs a, int64_t positions, const int64_t* keys,
                                         const int64_t* position_of) {
  using T = typename Elem<D>::T;
  T* target = static_cast<T*>(a.target_data);
  int64_t pos[kMaxMetaRank];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < positions;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t at = keys[i];
    if (at < 0 || (i > 0 && keys[i - 1] == at)) continue;
    T acc = target[at];
    for (int64_t j = i; j < positions && keys[j] == at; ++j) {
      linear_to_multi_index(position_of[j], a.index, pos);
      const T v = visited_value<D>(a, pos);
      switch (a.mode) {
        case WriteMode::Overwrite:
          acc = v;
          break;
        case WriteMode::Add:
          acc = Elem<D>::add(acc, v);
          break;
        case WriteMode::Multiply:
          acc = Elem<D>::mul(acc, v);
          break;
      }
    }
    target[at] = acc;
  }
}

template <DType D, class I>
__global__ void gather_kernel(TensorMeta input, const void* input_data, TensorMeta index, const void* index_data,
                              TensorMeta out, void* out_data, int dim, IndexRule rule, int64_t positions,
                              unsigned long long* error_word) {
  using T = typename Elem<D>::T;
  int64_t pos[kMaxMetaRank];
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < positions;
       p += int64_t{gridDim.x} * blockDim.x) {
    linear_to_multi_index(p, index, pos);
    int64_t from = 0;
    if (gather_source_offset(input, pos, dim, index_value_at<I>(index, index_data, pos), rule, &from) !=
        IndexStatus::Ok) {
      record_bad_position(error_word, p);
      return;
    }
    static_cast<T*>(out_data)[element_offset(out, pos)] = static_cast<const T*>(input_data)[from];
  }
}

// ---- host side ------------------------------------------------------------------------
class ErrorWord {
 public:
  ErrorWord() : buffer_(sizeof(unsigned long long)) {
    check(cudaMemcpy(buffer_.get(), &kNoError, sizeof kNoError, cudaMemcpyHostToDevice), "cudaMemcpy error word");
  }
  unsigned long long* get() const { return static_cast<unsigned long long*>(buffer_.get()); }
  int64_t first_bad_position() const {
    unsigned long long word = 0;
    check(cudaMemcpy(&word, buffer_.get(), sizeof word, cudaMemcpyDeviceToHost), "cudaMemcpy error word");
    return word == kNoError ? -1 : static_cast<int64_t>(word);
  }

 private:
  DeviceBuffer buffer_;
};

void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
  check(cudaDeviceSynchronize(), kernel);
}

template <class I>
int64_t validate_indices(const TensorMeta& index, const void* data, int64_t dim_extent, IndexRule rule) {
  const int64_t positions = meta_numel(index);
  if (positions == 0) return -1;
  ErrorWord error;
  validate_index_kernel<I>
      <<<blocks_for(positions), kThreadsPerBlock>>>(index, data, positions, dim_extent, rule, error.get());
  check_launch("validate_index_kernel");
  return error.first_bad_position();
}

template <DType D, class I>
struct ScatterTyped {
  static JobResult run(const ScatterJob& job, std::byte* target_storage) {
    DeviceBuffer target = upload(job.target);
    DeviceBuffer index = upload(job.index);
    DeviceBuffer src = job.has_src ? upload(job.src) : DeviceBuffer();

    JobResult result;
    result.first_bad_position =
        validate_indices<I>(job.index_for_validation, index.get(), job.target.meta.sizes[job.dim], job.rule);
    if (result.first_bad_position >= 0) return result;

    ScatterArgs args{
        job.target.meta, job.index.meta, job.src.meta, target.get(), index.get(), job.has_src ? src.get() : nullptr,
        job.value_bits,  job.dim,        job.rule,     job.mode};
    const int64_t positions = meta_numel(job.index.meta);
    if (positions > 0) {
      ErrorWord error;
      const int blocks = blocks_for(positions);
      if (job.zero_targets_first) {
        scatter_kernel<D, I><<<blocks, kThreadsPerBlock>>>(args, positions, true, error.get());
        check_launch("scatter_kernel (zeroing)");
      }
      if (job.deterministic) {
        DeviceBuffer keys(positions * sizeof(int64_t)), sorted_keys(positions * sizeof(int64_t));
        DeviceBuffer order(positions * sizeof(int64_t)), sorted_order(positions * sizeof(int64_t));
        auto* keys_in = static_cast<int64_t*>(keys.get());
        auto* keys_out = static_cast<int64_t*>(sorted_keys.get());
        auto* order_in = static_cast<int64_t*>(order.get());
        auto* order_out = static_cast<int64_t*>(sorted_order.get());
        target_keys_kernel<I><<<blocks, kThreadsPerBlock>>>(args, positions, keys_in, order_in, error.get());
        check_launch("target_keys_kernel");
        size_t temp_bytes = 0;
        check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, order_in, order_out, positions),
              "cub::DeviceRadixSort::SortPairs (size)");
        DeviceBuffer temp(temp_bytes);
        check(
            cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys_in, keys_out, order_in, order_out, positions),
            "cub::DeviceRadixSort::SortPairs");
        apply_sorted_runs_kernel<D><<<blocks, kThreadsPerBlock>>>(args, positions, keys_out, order_out);
        check_launch("apply_sorted_runs_kernel");
      } else {
        scatter_kernel<D, I><<<blocks, kThreadsPerBlock>>>(args, positions, false, error.get());
        check_launch("scatter_kernel");
      }
      // The validation pass passed, so the write kernels cannot find a bad
      // value; if they do, the two disagree and that is a backend bug.
      if (error.first_bad_position() >= 0)
        throw CudaFailure("write kernel found an index the validation pass accepted");
    }
    target.download(target_storage);
    return result;
  }
};

template <DType D, class I>
struct GatherTyped {
  static JobResult run(const GatherJob& job, std::byte* out_storage) {
    DeviceBuffer input = upload(job.input);
    DeviceBuffer index = upload(job.index);
    const int64_t positions = meta_numel(job.out);
    DeviceBuffer out(static_cast<size_t>(positions) * dtype_size(job.dtype));

    JobResult result;
    result.first_bad_position =
        validate_indices<I>(job.index.meta, index.get(), job.input.meta.sizes[job.dim], job.rule);
    if (result.first_bad_position >= 0 || positions == 0) return result;
    ErrorWord error;
    gather_kernel<D, I><<<blocks_for(positions), kThreadsPerBlock>>>(job.input.meta, input.get(), job.index.meta,
                                                                     index.get(), job.out, out.get(), job.dim, job.rule,
                                                                     positions, error.get());
    check_launch("gather_kernel");
    if (error.first_bad_position() >= 0) throw CudaFailure("gather kernel found an index the validation pass accepted");
    out.download(out_storage);
    return result;
  }
};

template <template <DType, class> class Job, DType D, class... Args>
JobResult with_index(bool index_is_int64, Args&... args) {
  return index_is_int64 ? Job<D, int64_t>::run(args...) : Job<D, int32_t>::run(args...);
}

// Job<D, I>::run(args...) for the runtime dtype and index type.
template <template <DType, class> class Job, class... Args>
JobResult dispatch(DType dtype, bool index_is_int64, Args&... args) {
  switch (dtype) {
    case DType::Bool:
      return with_index<Job, DType::Bool>(index_is_int64, args...);
    case DType::UInt8:
      return with_index<Job, DType::UInt8>(index_is_int64, args...);
    case DType::Int8:
      return with_index<Job, DType::Int8>(index_is_int64, args...);
    case DType::Int16:
      return with_index<Job, DType::Int16>(index_is_int64, args...);
    case DType::Int32:
      return with_index<Job, DType::Int32>(index_is_int64, args...);
    case DType::Int64:
      return with_index<Job, DType::Int64>(index_is_int64, args...);
    case DType::Float16:
      return with_index<Job, DType::Float16>(index_is_int64, args...);
    case DType::BFloat16:
      return with_index<Job, DType::BFloat16>(index_is_int64, args...);
    case DType::Float32:
      return with_index<Job, DType::Float32>(index_is_int64, args...);
    case DType::Float64:
      return with_index<Job, DType::Float64>(index_is_int64, args...);
  }
  throw CudaFailure("unknown dtype");
}

}  // namespace

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string device_summary() {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(status);
  if (n == 0) return "no CUDA device";
  cudaDeviceProp prop{};
  int runtime = 0;
  cudaGetDeviceProperties(&prop, 0);
  cudaRuntimeGetVersion(&runtime);
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
         "), CUDA runtime " + std::to_string(runtime);
}

JobResult run_scatter(const ScatterJob& job, std::byte* target_storage) {
  return dispatch<ScatterTyped>(job.dtype, job.index_is_int64, job, target_storage);
}

JobResult run_gather(const GatherJob& job, std::byte* out_storage) {
  return dispatch<GatherTyped>(job.dtype, job.index_is_int64, job, out_storage);
}

}  // namespace sp::cuda
