#include "backends/cpu/thread_pool.h"

#include <algorithm>

namespace sp::cpu {

ThreadPool::ThreadPool(int threads) {
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
    pending_ = helpers;
    parts_ = n;
    next_part_.store(0);
    ++generation_;
  }
  wake_.notify_all();
  take_parts(task);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  task_ = nullptr;
}

void ThreadPool::work(std::stop_token stop, int id) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* task = nullptr;
    {
      std::unique_lock lock(mutex_);
      if (!wake_.wait(lock, stop, [&] { return generation_ != seen; })) return;
      seen = generation_;
      if (id > active_) continue;
      task = task_;
    }
    take_parts(*task);
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace sp::cpu
