// bench.h — `scatterproof bench`: the fixed performance workloads, run side
// by side on several backends in one process.
//
// Each workload is built once (inputs are not timed), run once as a warm-up
// whose output is checksummed and compared across backends (a bench never
// times a wrong answer), then timed `repeats` times; the median is reported
// with the achieved bandwidth (the minimum bytes the op must move, defined
// per workload in bench.cc), its ratio to a multi-threaded memcpy measured
// in the same run, and the speedup against a baseline backend (libtorch
// when it is in the list, else the last one). In-place ops get their self
// restored between runs, outside the timed region. The 1-D scatter_add_
// workload is also run at 1 thread for a scaling ratio.
//
// Thread-safety: run_bench is not reentrant (LibTorch's thread count is
// process-wide).
#pragma once

#include <string>
#include <vector>

namespace sp {

struct BenchOptions {
  int threads = 0;        // 0: std::thread::hardware_concurrency()
  int repeats = 5;        // timed runs per workload and backend (>= 1)
  std::string json_path;  // empty: no JSON file
  std::vector<std::string> backends = {"cpu", "libtorch"};
  std::vector<std::string> workloads;  // names or ids ("4b"); empty: all
  double scale = 1.0;                  // shrinks every workload's large dimension
};

// The workload names, in run order ("1-gather", ..., "7b-row-gather-int32").
std::vector<std::string> bench_workload_names();

// Prints the table to stdout (and JSON when asked). Returns an exit code of
// harness/exit_codes.h: 0; 1 when a checksum differs between backends or a
// backend failed a workload; 2 for bad options (unknown workload, repeats <
// 1, scale outside (0, 1]); 4 when a backend is unavailable.
int run_bench(const BenchOptions& opts);

}  // namespace sp
