// gpu_bench.h — `scatterproof bench --gpu`: the bench's workloads (bench_core.h)
// at the same sizes, on GPU contenders, with kernel time apart from the
// host<->device copies (gpu_timing.h) and the device's copy bandwidth in the
// header (backends/cuda/device_probe.h).
//
// Contenders (--backend; default cuda,cuda-deterministic,torch-cuda):
//   cuda, cuda-deterministic   our kernels on the GPU; kernel time from CUDA
//                              events around each launch (the executor's JobClock)
//   torch-cuda                 PyTorch's CUDA kernels through Python
//                              (adapters/bench_torch_worker.py under
//                              opts.torch_python), torch.cuda.Event: the baseline
//   cuda-host, cuda-host-deterministic, cuda-host-mutant:NAME
//                              the same kernel bodies on the host launcher,
//                              std::chrono: host launcher timing, for checks
//                              without a GPU, never a GPU number
//   torch-cpu                  the torch worker on the CPU (its protocol and
//                              checksums checked without a GPU)
// Every contender's output checksum must agree with the first one's, or its
// row is a CHECKSUM MISMATCH (exit 1); the speedup column is the baseline's
// kernel time over the row's (torch-cuda, else torch-cpu, else the last one).
//
// Thread-safety: not reentrant (the torch worker, the device).
#pragma once

#include <string>
#include <vector>

#include "bench/bench.h"

namespace sp {

// --gpu's contenders when --backend is not given.
std::vector<std::string> gpu_bench_default_backends();

// Prints the table (and JSON when asked). Exit codes (harness/exit_codes.h):
// 0; 1 when a checksum differs or a contender failed a workload; 2 for bad
// options (a contender that is not a GPU one, an unknown workload, repeats <
// 1, scale outside (0, 1]); 4 when a contender is unavailable: no CUDA
// device (or a build without nvcc) for cuda, cuda-deterministic and
// torch-cuda — "bench --gpu: no GPU: ..." on stderr — or no torch for the
// worker.
int run_gpu_bench(const BenchOptions& opts);

}  // namespace sp
