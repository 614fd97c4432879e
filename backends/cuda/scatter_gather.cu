// scatter_gather.cu — the GPU platform of the CUDA backend: device buffers,
// <<<>>> launches of the kernel bodies (kernels/scatter_gather.h), CUB's
// radix sort for the deterministic mode, and the executor built on them.
// The job code (upload, validation pass, writes, download) is jobs.h,
// shared with the host launcher (host_launcher.h), so the host launcher
// runs exactly what the GPU runs apart from these primitives.
//
// Duplicates: overwrite races (any writer wins, which every document
// allows); add uses native atomicAdd where the type has one (int32, int64 as
// unsigned long long, float, double, __half and __nv_bfloat16 on sm_80+)
// and a compare-and-swap loop otherwise (kernels/atomics.h); multiply always
// uses the CAS loop. Deterministic mode sorts (target offset, position)
// pairs with CUB's stable radix sort and lets one thread per target walk its
// writers in position order, so results are bit-identical run to run and
// equal a sequential row-major visit.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <string>

#include "backends/cuda/cuda_ops.h"
#include "backends/cuda/job_clock.h"
#include "backends/cuda/jobs.h"

namespace sp::cuda {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(status));
}

// Runs f, which enqueues work on the default stream; when a JobClock is
// installed (bench --gpu, job_clock.h), adds the time between CUDA events
// recorded before and right after it (so the launch's latency is in, the
// host's wait for the result is not), waiting for the second.
template <class F>
void event_timed(ClockSpan span, double bytes, const char* what, F&& f) {
  JobClock* clock = job_clock();
  if (!clock) {
    f();
    return;
  }
  thread_local cudaEvent_t events[2] = {nullptr, nullptr};  // one pair per thread, kept
  for (cudaEvent_t& e : events)
    if (!e) check(cudaEventCreate(&e), "cudaEventCreate");
  check(cudaEventRecord(events[0]), "cudaEventRecord");
  f();
  check(cudaEventRecord(events[1]), "cudaEventRecord");
  check(cudaEventSynchronize(events[1]), what);
  float ms = 0;
  check(cudaEventElapsedTime(&ms, events[0], events[1]), "cudaEventElapsedTime");
  clock->add(span, ms / 1e3, bytes);
}

template <class K>
__global__ void run_kernel(K kernel) {
  kernel(GridPos{blockIdx.x * int64_t{blockDim.x} + threadIdx.x, int64_t{gridDim.x} * blockDim.x});
}

struct DevicePlatform {
  // Owns one device allocation.
  class Buffer {
   public:
    explicit Buffer(size_t bytes) : bytes_(bytes) {
      // Rounded up to 8 bytes: the CAS loop for 1- and 2-byte elements works
      // on the aligned 32-bit word holding the element, which may reach past
      // the last element.
      if (bytes > 0) check(cudaMalloc(&ptr_, (bytes + 7) / 8 * 8), "cudaMalloc");
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) { other.ptr_ = nullptr; }
    Buffer& operator=(Buffer&&) = delete;
    ~Buffer() {
      if (ptr_) cudaFree(ptr_);
    }
    void* get() const { return ptr_; }
    void upload(const std::byte* host) {
      if (bytes_ > 0)
        event_timed(ClockSpan::ToDevice, bytes_, "cudaMemcpy to device",
                    [&] { check(cudaMemcpy(ptr_, host, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device"); });
    }
    void download(std::byte* host) const {
      if (bytes_ > 0)
        event_timed(ClockSpan::ToHost, bytes_, "cudaMemcpy to host",
                    [&] { check(cudaMemcpy(host, ptr_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host"); });
    }

   private:
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
  };

  template <class K>
  static void launch(int blocks, const K& kernel, const char* what) {
    event_timed(ClockSpan::Kernel, 0, what, [&] {
      run_kernel<<<blocks, kThreadsPerBlock>>>(kernel);
      check(cudaGetLastError(), what);
    });
    check(cudaDeviceSynchronize(), what);
  }

  static void sort_pairs(const int64_t* keys_in, int64_t* keys_out, const int64_t* values_in, int64_t* values_out,
                         int64_t n) {
    size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, values_in, values_out, n),
          "cub::DeviceRadixSort::SortPairs (size)");
    Buffer temp(temp_bytes);
    event_timed(ClockSpan::Kernel, 0, "cub::DeviceRadixSort::SortPairs", [&] {
      check(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys_in, keys_out, values_in, values_out, n),
            "cub::DeviceRadixSort::SortPairs");
    });
  }
};

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

}  // namespace

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

const Executor& device_executor() {
  static const Executor e{&run_scatter_on<DevicePlatform>, &run_gather_on<DevicePlatform>,
                          &run_nd_rows_on<DevicePlatform>, &run_extremum_grad_on<DevicePlatform>, &device_summary};
  return e;
}

}  // namespace sp::cuda
