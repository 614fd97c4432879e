// The cpu backend's thread pool (backends/cpu/thread_pool.h): every part of
// every run exactly once, whether the workers are still polling from the
// last run or asleep, with more parts than threads, with more threads than
// CPUs (no polling), and a pool destroyed while its workers poll.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "backends/cpu/thread_pool.h"

namespace sp {
namespace {

// Runs `runs` rounds of `parts` parts and checks each part ran once per round.
void expect_each_part_once(cpu::ThreadPool& pool, int parts, int runs, std::chrono::microseconds gap) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(parts));
  for (int r = 0; r < runs; ++r) {
    for (auto& h : hits) h.store(0);
    pool.run(parts, [&](int p) { hits[static_cast<size_t>(p)].fetch_add(1); });
    for (int p = 0; p < parts; ++p) ASSERT_EQ(hits[static_cast<size_t>(p)].load(), 1) << "run " << r << " part " << p;
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
  }
}

TEST(CpuThreadPool, EveryPartOnceInBackToBackRuns) {
  cpu::ThreadPool pool(2);
  expect_each_part_once(pool, 2, 2000, {});
  expect_each_part_once(pool, 9, 500, {});
  expect_each_part_once(pool, 1, 100, {});
}

TEST(CpuThreadPool, EveryPartOnceAfterTheWorkersSlept) {
  cpu::ThreadPool pool(3);
  // Gaps longer than the polling budget: each run wakes sleeping workers.
  const auto gap = std::chrono::duration_cast<std::chrono::microseconds>(cpu::ThreadPool::kSpinBeforeSleep) * 3;
  expect_each_part_once(pool, 7, 5, gap);
}

TEST(CpuThreadPool, OversubscribedPoolStillRunsEveryPart) {
  cpu::ThreadPool pool(static_cast<int>(std::thread::hardware_concurrency()) + 3);
  expect_each_part_once(pool, 40, 200, {});
}

TEST(CpuThreadPool, PartsRunConcurrentlyOnTheWorkers) {
  // Two parts that each wait for the other to start can only finish when a
  // worker takes one while the caller runs the other.
  cpu::ThreadPool pool(2);
  std::atomic<int> started{0};
  std::atomic<bool> both{true};
  pool.run(2, [&](int) {
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2)
      if (std::chrono::steady_clock::now() > until) {
        both.store(false);
        return;
      }
  });
  EXPECT_TRUE(both.load());
}

TEST(CpuThreadPool, DestroyedWhileItsWorkersPoll) {
  for (int i = 0; i < 50; ++i) {
    cpu::ThreadPool pool(2);
    std::atomic<int> n{0};
    pool.run(4, [&](int) { n.fetch_add(1); });
    EXPECT_EQ(n.load(), 4);
  }  // the destructor stops workers that are still polling for the next run
}

}  // namespace
}  // namespace sp
