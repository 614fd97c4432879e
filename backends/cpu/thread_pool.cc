#include "backends/cpu/thread_pool.h"

namespace sp::cpu {

ThreadPool::ThreadPool(int threads) {
  for (int id = 1; id < threads; ++id) workers_.emplace_back([this, id](std::stop_token stop) { work(stop, id); });
}

void ThreadPool::run(int n, const std::function<void(int)>& task) {
  if (n <= 1) {
    task(0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    active_ = n;
    pending_ = n - 1;
    ++generation_;
  }
  wake_.notify_all();
  task(0);
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
      if (id >= active_) continue;
      task = task_;
    }
    (*task)(id);
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace sp::cpu
