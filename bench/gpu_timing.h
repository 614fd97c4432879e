// gpu_timing.h — how `scatterproof bench --gpu` (gpu_bench.h) times one
// workload on one contender, kernel time apart from the host<->device copies:
//
// - our cuda backends (and their host-launcher twins cuda-host*): through the
//   registry's Backend, with a cuda::JobClock installed on the calling thread
//   (backends/cuda/job_clock.h): the executor adds the time of each kernel
//   launch and, apart, of each copy, with CUDA events on the GPU and
//   std::chrono on the host launcher (host launcher timing, never a GPU
//   number). The whole call (host checks, allocation, copies, kernels) is
//   timed on the host clock too (call_s).
// - PyTorch (torch-cuda, torch-cpu): adapters/bench_torch_worker.py, one
//   process for the whole run, fed the same operands through files; it times
//   the op with torch.cuda.Event (time.perf_counter on the CPU) and writes the
//   output back, checksummed here with bench::checksum like every row.
//
// Both: `warmups` untimed calls (the first one's output is checksummed),
// then `repeats` timed ones; an in-place op's self is restored before each,
// outside the timing.
//
// Thread-safety: one timing at a time; a TorchWorker is used by one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bench/bench_core.h"

namespace sp::bench {

struct GpuTiming {
  std::optional<std::string> failure;  // the backend's error, or why nothing was timed
  std::vector<double> kernel_s;        // per timed call: kernel time
  std::vector<double> call_s;          // ours: per timed call, the whole run on the host clock; torch: empty
  // Seconds and bytes of the copies of one call (ours: the median over the
  // timed calls, every call copies its operands and result) or of the one
  // upload of the operands and download of the result (torch). NAN: none timed.
  double to_device_s = NAN, to_host_s = NAN;
  double to_device_bytes = 0, to_host_bytes = 0;
  int launches = 0;  // ours: kernel launches per call
  uint64_t checksum = 0;
  std::string note;
};

// Times `w` on one of our cuda backends (see above). `int64_index`: the
// workload's int64 twin from the start (the note says so); an index_dtype
// refusal of an int32 index also falls back to it.
GpuTiming time_cuda_backend(Backend& backend, const Workload& w, int warmups, int repeats, bool int64_index = false);

// adapters/bench_torch_worker.py, running under `python`.
class TorchWorker {
 public:
  // Starts it with --device `device` ("cuda" or "cpu") and reads its hello
  // line. nullptr and *why when it did not start, exited, timed out, or
  // answered "unavailable" (*unavailable is then true).
  static std::unique_ptr<TorchWorker> start(const std::string& python, const std::string& script,
                                            const std::string& device, const std::filesystem::path& scratch,
                                            double timeout_s, std::string* why, bool* unavailable);
  ~TorchWorker();  // ends it: an empty line, then SIGKILL after 10 s
  TorchWorker(const TorchWorker&) = delete;
  TorchWorker& operator=(const TorchWorker&) = delete;

  const nlohmann::json& hello() const { return hello_; }
  // Writes the call's operands under scratch(), sends the request, reads the
  // output back and checksums it. A failure of the op is the timing's failure;
  // a dead or silent worker too (and every later call fails the same way).
  GpuTiming time(const OpCall& call, int warmups, int repeats, double timeout_s);

 private:
  TorchWorker() = default;
  bool read_line(std::string* line, double timeout_s);
  std::string stderr_tail() const;

  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::filesystem::path scratch_;
  std::string pending_;  // read past the last line
  std::string dead_;     // non-empty once the worker cannot answer
  nlohmann::json hello_;
  int requests_ = 0;
};

// A fresh directory for the operand files (under /dev/shm when it is
// writable with 4 GiB free, else the temporary directory); removed by the caller.
std::filesystem::path make_scratch_dir(std::string* why);

}  // namespace sp::bench
