// thread_pool.h — a small persistent pool for the cpu backend's kernels.
//
// `run(n, task)` calls task(0..n-1), each exactly once, on the calling
// thread and up to size() - 1 workers, and returns when all are done. Parts
// are handed out first come, first served: on a machine shared with other
// processes a thread that is descheduled takes fewer parts instead of
// holding up the rest, so kernels may ask for more parts than threads. The workers (std::jthread) live as
// long as the pool, so a kernel pays no thread creation. Tasks must not throw
// (kernels run after validation).
//
// Between runs a worker, and the caller waiting for the workers, polls for
// up to kSpinBeforeSleep (yielding between rounds of polls) before it sleeps
// on a condition variable, as OpenMP runtimes do (libgomp's GOMP_SPINCOUNT),
// unless the pool has more threads than the process has CPUs. Sleeping at
// once cost half the speed on the 2-vCPU development VM (docs/speed.md,
// "Why the ratios halved"): the kernel placed each woken worker on its
// waker's CPU, so both threads took turns on one CPU while the other idled
// (perf sched trace), for about the first 40 ms of every burst of calls.
//
// Thread-safety: one caller at a time (a Backend is used by one thread).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace sp::cpu {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1; spawns threads - 1 workers.
  explicit ThreadPool(int threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  static constexpr std::chrono::milliseconds kSpinBeforeSleep{5};
  // REQUIRES: n >= 1.
  void run(int n, const std::function<void(int)>& task);

 private:
  void work(std::stop_token stop, int id);
  // Runs parts of the current run until none is left.
  void take_parts(const std::function<void(int)>& task);

  const std::chrono::nanoseconds spin_;  // kSpinBeforeSleep, or 0 when oversubscribed
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::condition_variable done_;
  std::atomic<uint64_t> generation_{0};
  int active_ = 0;               // workers taking part in the current run
  std::atomic<int> pending_{0};  // of those, the ones not yet finished
  int parts_ = 0;                // parts in the current run
  std::atomic<int> next_part_{0};
  const std::function<void(int)>* task_ = nullptr;
  std::vector<std::jthread> workers_;  // last: stopped and joined first
};

// [begin, end) of part `part` when `total` items are split into `parts`
// nearly equal contiguous parts.
inline int64_t split_point(int64_t total, int parts, int part) {
  return static_cast<int64_t>(static_cast<__int128>(total) * part / parts);
}

}  // namespace sp::cpu
