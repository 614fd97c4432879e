// thread_pool.h — a small persistent pool for the cpu backend's kernels.
//
// `run(n, task)` calls task(0..n-1), each exactly once, on the calling
// thread and up to size() - 1 workers, and returns when all are done. Parts
// are handed out first come, first served: on a machine shared with other
// processes a thread that is descheduled takes fewer parts instead of
// holding up the rest, so kernels may ask for more parts than threads. The workers (std::jthread) live as
// long as the pool and sleep between runs, so a kernel pays a wake-up, not a
// thread creation. Tasks must not throw (kernels run after validation).
//
// Thread-safety: one caller at a time (a Backend is used by one thread).
#pragma once

#include <atomic>
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
  // REQUIRES: n >= 1.
  void run(int n, const std::function<void(int)>& task);

 private:
  void work(std::stop_token stop, int id);
  // Runs parts of the current run until none is left.
  void take_parts(const std::function<void(int)>& task);

  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::condition_variable done_;
  uint64_t generation_ = 0;
  int active_ = 0;   // workers taking part in the current run
  int pending_ = 0;  // of those, the ones not yet finished
  int parts_ = 0;    // parts in the current run
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
