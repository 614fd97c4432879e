// job_clock.h — the timing hook of the CUDA executors, for
// `scatterproof bench --gpu` (bench/gpu_bench.h): while a JobClock is
// installed on the calling thread, each job adds to it the time of its
// kernel launches and, apart, of its host<->device copies (with their
// bytes). Nothing is timed when none is installed (the default), so the
// conformance runs pay one thread-local read per launch and copy.
//
// What measures: the GPU platform (scatter_gather.cu) records a pair of CUDA
// events on the default stream around each launch (the CUB sort included)
// and each cudaMemcpy, and adds their elapsed time; the host launcher
// (host_launcher.h) adds std::chrono time around the same steps — host
// launcher timing, never a GPU number. Allocation, the host-side argument
// checks and the result's host tensor are in neither sum (the caller's wall
// time holds them).
//
// Thread-safety: the clock is per thread; install it on the thread that
// runs the job (the host launcher's worker threads never touch it).
#pragma once

#include <chrono>

namespace sp::cuda {

enum class ClockSpan { Kernel, ToDevice, ToHost };

struct JobClock {
  double kernel_s = 0;  // kernel launches (validation pass, writes, sort)
  int launches = 0;
  double to_device_s = 0, to_host_s = 0;          // cudaMemcpy host->device / device->host
  double to_device_bytes = 0, to_host_bytes = 0;  // what those copies moved

  void add(ClockSpan span, double seconds, double bytes = 0) {
    switch (span) {
      case ClockSpan::Kernel:
        kernel_s += seconds;
        ++launches;
        break;
      case ClockSpan::ToDevice:
        to_device_s += seconds;
        to_device_bytes += bytes;
        break;
      case ClockSpan::ToHost:
        to_host_s += seconds;
        to_host_bytes += bytes;
        break;
    }
  }
};

// This thread's installed clock; null: nothing is timed.
inline JobClock*& job_clock() {
  thread_local JobClock* clock = nullptr;
  return clock;
}

// Installs `clock` on this thread for the scope's lifetime.
class JobClockScope {
 public:
  explicit JobClockScope(JobClock* clock) : previous_(job_clock()) { job_clock() = clock; }
  ~JobClockScope() { job_clock() = previous_; }
  JobClockScope(const JobClockScope&) = delete;
  JobClockScope& operator=(const JobClockScope&) = delete;

 private:
  JobClock* previous_;
};

// The host launcher's measure: runs f, adding its std::chrono time to the
// installed clock (if any).
template <class F>
void host_timed(ClockSpan span, double bytes, F&& f) {
  JobClock* clock = job_clock();
  if (!clock) {
    f();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  f();
  clock->add(span, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), bytes);
}

}  // namespace sp::cuda
