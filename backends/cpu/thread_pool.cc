#include "backends/cpu/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sp::cpu {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// The CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return std::max(1, CPU_COUNT(&set));
}

// Polls `ready` until it holds (true) or `budget` has passed (false),
// yielding between rounds of polls so that a thread sharing this CPU runs.
template <class F>
bool spin_until(std::chrono::nanoseconds budget, F&& ready) {
  if (ready()) return true;
  if (budget.count() <= 0) return false;
  const auto until = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 256; ++i) {
      cpu_relax();
      if (ready()) return true;
    }
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads)
    : spin_(threads <= usable_cpus() ? std::chrono::nanoseconds(kSpinBeforeSleep) : std::chrono::nanoseconds(0)) {
  for (int id = 1; id < threads; ++id) workers_.emplace_back([this, id](std::stop_token stop) { work(stop, id); });
}

void ThreadPool::take_parts(const std::function<void(int)>& task) {
  for (int part = next_part_.fetch_add(1); part < parts_; part = next_part_.fetch_add(1)) task(part);
}

void ThreadPool::run(int n, const std::function<void(int)>& task) {
  const int helpers = std::min(n, size()) - 1;
  if (helpers == 0) {
    for (int part = 0; part < n; ++part) task(part);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    active_ = helpers;
    parts_ = n;
    next_part_.store(0);
    pending_.store(helpers);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  take_parts(task);
  auto finished = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(spin_, finished)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }
}

void ThreadPool::work(std::stop_token stop, int id) {
  uint64_t seen = 0;
  auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
  for (;;) {
    if (!spin_until(spin_, [&] { return fresh() || stop.stop_requested(); })) {
      std::unique_lock lock(mutex_);
      if (!wake_.wait(lock, stop, fresh)) return;
    }
    if (stop.stop_requested()) return;
    const std::function<void(int)>* task = nullptr;
    {
      std::lock_guard lock(mutex_);
      seen = generation_.load(std::memory_order_relaxed);
      if (id > active_) continue;
      task = task_;
    }
    take_parts(*task);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);  // the caller checks pending_ under the lock before it sleeps
      done_.notify_one();
    }
  }
}

}  // namespace sp::cpu
