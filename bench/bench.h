// bench.h — `scatterproof bench`: the fixed performance workloads
// (bench_core.h), run side by side on several backends.
//
// Each workload is built once (inputs are not timed), run once as a warm-up
// whose output is checksummed and compared across backends (a bench never
// times a wrong answer), then timed `repeats` times; the median is reported
// with the achieved bandwidth (the minimum bytes the op must move, defined
// per workload in bench_core.cc), its ratio to a multi-threaded memcpy
// measured just before that workload (the machine's bandwidth drifts), the
// speedup against the current LibTorch
// (libtorch-current) and against LibTorch 1.13 (libtorch), and the peak
// memory the backend added while it ran (PeakWindow). In-place ops get their
// self restored between runs, outside the timed region. The 1-D
// scatter_add_ workload is also run at 1 thread for a scaling ratio. On an
// int32-index workload, a contender whose int32 answer is wrong or an error
// (other than index_dtype, which falls back the same way) is timed on the
// int64 twin when that agrees, and its note says what int32 did.
//
// Contenders: backend names, plus two the bench defines:
//   cpu-fresh         the cpu backend with BackendOptions::reuse_outputs
//                     false (every output allocated anew, as LibTorch does),
//                     beside `cpu` with its output reuse;
//   libtorch-current  the current LibTorch, which cannot share a process
//                     with LibTorch 1.13: timed by spawning
//                     build-libtorch-current/scatterproof-bench-worker per
//                     workload, which builds the same workload (same seeds)
//                     and times it with the same code; its checksum is
//                     compared like any row's.
//
// Thread-safety: run_bench is not reentrant (LibTorch's thread count and the
// peak-memory window are process-wide).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sp {

struct BenchOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
  int repeats = 5;  // timed runs per workload and backend (>= 1)
  // Rounds per workload (>= 1): each times every contender `repeats` times,
  // the order reversed every other round, so a drift of the host's speed
  // during a workload (other machines' traffic) reaches every contender;
  // the median is over every round's runs.
  int rounds = 2;
  std::string json_path;  // empty: no JSON file
  std::vector<std::string> backends = {"cpu", "cpu-fresh", "libtorch-current", "libtorch"};
  std::vector<std::string> workloads;  // names or ids ("4b"); empty: all
  double scale = 1.0;                  // shrinks every workload's large dimension
  // The program timing libtorch-current; empty: the source tree's
  // build-libtorch-current/scatterproof-bench-worker (run with the backend
  // argument "libtorch"). Tests point it elsewhere.
  std::string libtorch_current_worker;
  double worker_timeout_s = 900;  // per worker run; then it is killed
  // --gpu: the GPU contenders instead (bench/gpu_bench.h): our cuda backends
  // and PyTorch's CUDA kernels through Python, kernel time apart from the
  // host<->device copies.
  bool gpu = false;
  // The interpreter of the torch contenders (--torch-python); empty:
  // $SP_TORCH_PYTHON, else the .venv-current of the venv root
  // (SCATTERPROOF_VENV_ROOT), else python3 on the PATH.
  std::string torch_python;
};

// The workload names, in run order ("1-gather", ..., "10-index-select-rows").
std::vector<std::string> bench_workload_names();

// Prints the table to stdout (and JSON when asked). Returns an exit code of
// harness/exit_codes.h: 0; 1 when a checksum differs between backends or a
// backend failed a workload; 2 for bad options (unknown workload, repeats <
// 1, scale outside (0, 1]); 4 when a backend is unavailable (for
// libtorch-current: its worker is not built, scripts/setup-libtorch-current.sh).
// Ignores opts.gpu: the CLI calls run_gpu_bench (gpu_bench.h) for --gpu.
int run_bench(const BenchOptions& opts);

// The options' checks that bench and bench --gpu share (repeats, scale, at
// least one backend, known workloads): the usage exit code, said on stderr,
// when one fails.
std::optional<int> check_common_options(const BenchOptions& opts);

}  // namespace sp
