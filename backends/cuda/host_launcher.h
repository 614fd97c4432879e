// host_launcher.h — the host platform of the CUDA backend: the kernel
// bodies of kernels/*.h, compiled by g++, run over the whole grid a GPU
// launch would have (every block, every thread of kThreadsPerBlock), with
// the job code of jobs.h unchanged. It is what backend "cuda-host" runs, so
// every CUDA code path (index walk, validation pass, error word, atomics,
// CAS loops, the deterministic sort-and-apply) runs in CTest on machines
// without a GPU.
//
// Fidelity, and what it cannot show:
// - The grid's threads run in a shuffled order (a new permutation per
//   launch), spread over kHostWorkers host threads that take the next
//   thread of the permutation as they finish one, so kernels that assume an
//   order of threads or blocks, or that lose updates without atomics, are
//   caught on the host too (with a probability, as on the GPU).
// - Atomics go through std::atomic_ref, and the GPU's hardware atomics are
//   modelled as they behave (kernels/atomics.h: float32 atomicAdd flushes
//   subnormals).
// - Buffers are private copies padded to 8 bytes, as cudaMalloc'd ones are,
//   so a body that reads or writes outside them is caught by ASan.
// - A GPU thread's loop is run to its end before the host worker takes
//   another thread: no warp-level interleaving inside a loop, no memory
//   model weaker than x86's / the C++ one. Shared memory, warp intrinsics
//   and block barriers have no model here (no kernel uses them).
// - The deterministic mode's CUB radix sort is replaced by std::stable_sort
//   of the same (key, value) pairs: the same stable order.
//
// Included once per executor: host_launcher.cc (the real bodies) and
// host_mutants.cc (one planted bug per SP_CUDA_KERNEL_MUTANT value).
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "backends/cuda/job_clock.h"
#include "backends/cuda/jobs.h"

namespace sp::cuda {
inline namespace SP_CUDA_KERNEL_NS {

// Host threads per launch.
inline constexpr int kHostWorkers = 4;

struct HostPlatform {
  // A private, 8-byte aligned and padded copy (zero-filled padding).
  class Buffer {
   public:
    explicit Buffer(size_t bytes) : bytes_(bytes), words_(new uint64_t[(bytes + 7) / 8]()) {}
    void* get() const { return bytes_ > 0 ? words_.get() : nullptr; }
    void upload(const std::byte* host) {
      if (bytes_ > 0) host_timed(ClockSpan::ToDevice, bytes_, [&] { std::memcpy(words_.get(), host, bytes_); });
    }
    void download(std::byte* host) const {
      if (bytes_ > 0) host_timed(ClockSpan::ToHost, bytes_, [&] { std::memcpy(host, words_.get(), bytes_); });
    }

   private:
    size_t bytes_;
    std::unique_ptr<uint64_t[]> words_;
  };

  // Every thread of the grid, each run once, in a shuffled order, by
  // kHostWorkers host threads (timed when a JobClock is installed).
  template <class K>
  static void launch(int blocks, const K& kernel, const char*) {
    host_timed(ClockSpan::Kernel, 0, [&] { run_grid(blocks, kernel); });
  }
  template <class K>
  static void run_grid(int blocks, const K& kernel) {
    const int64_t threads = int64_t{blocks} * kThreadsPerBlock;
    std::vector<int64_t> order(static_cast<size_t>(threads));
    std::iota(order.begin(), order.end(), int64_t{0});
    static std::atomic<uint64_t> launches{0};
    std::mt19937_64 rng(0x9e3779b97f4a7c15ULL * (launches.fetch_add(1) + 1));
    std::shuffle(order.begin(), order.end(), rng);
    std::atomic<int64_t> next{0};
    const auto work = [&] {
      for (int64_t i = next.fetch_add(1); i < threads; i = next.fetch_add(1))
        kernel(GridPos{order[static_cast<size_t>(i)], threads});
    };
    std::vector<std::thread> workers;
    const int64_t helpers = std::min<int64_t>(kHostWorkers, threads) - 1;
    for (int64_t w = 0; w < helpers; ++w) workers.emplace_back(work);
    work();
    for (std::thread& t : workers) t.join();
  }

  // CUB's DeviceRadixSort::SortPairs is stable: so is this.
  static void sort_pairs(const int64_t* keys_in, int64_t* keys_out, const int64_t* values_in, int64_t* values_out,
                         int64_t n) {
    host_timed(ClockSpan::Kernel, 0, [&] { stable_sort_pairs(keys_in, keys_out, values_in, values_out, n); });
  }
  static void stable_sort_pairs(const int64_t* keys_in, int64_t* keys_out, const int64_t* values_in,
                                int64_t* values_out, int64_t n) {
    std::vector<std::pair<int64_t, int64_t>> pairs(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) pairs[static_cast<size_t>(i)] = {keys_in[i], values_in[i]};
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int64_t i = 0; i < n; ++i) {
      keys_out[i] = pairs[static_cast<size_t>(i)].first;
      values_out[i] = pairs[static_cast<size_t>(i)].second;
    }
  }
};

}  // namespace SP_CUDA_KERNEL_NS
}  // namespace sp::cuda
