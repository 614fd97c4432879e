// traffic.h — bytes moved per call, beside the time (issue 37: a kernel
// should win by moving fewer bytes, or by using cores the other does not).
//
// Two sources, and the table says which one a number came from:
// - measured: last-level cache misses x 64 bytes, counted by
//   perf_event_open (PERF_COUNT_HW_CACHE_MISSES) on every thread of the
//   process over the timed repeats. Needs a PMU the kernel exposes; a VM
//   without one (this project's development host) refuses it, and the
//   reason is kept instead.
// - modelled: the passes an algorithm makes over its operands and scratch,
//   each operand or scratch byte counted every time a pass reads or writes
//   it, whatever the caches hold (a row written after it was read counts
//   twice; a full-line write counts its read for ownership). Accumulators a
//   kernel keeps in L1 within one target row are not counted. Two
//   algorithms are modelled, for the whole-row reductions (scatter_add_ /
//   scatter_reduce_ with an index expanded along rows, index_add_ dim 0):
//   this project's cpu kernels (backends/cpu/row_reduce.h: a counting sort,
//   then sorted rows) and ATen 2.x's (a radix sort of index keys and row ids
//   with 8-bit digits, then sorted rows, for the expanded-index scatters;
//   index_add_ over contiguous slices: one row add per index value, in
//   index order, on one thread). Other workloads and LibTorch 1.13 are not
//   modelled (nullopt): their number would be a guess.
//
// Thread-safety: a MissCounter is used by one thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reference/op_call.h"

namespace sp::bench {

enum class Algorithm { Ours, ATen2 };

struct Traffic {
  double bytes = 0;
  std::string how;  // one line: the passes counted
};

// The model's bytes per call of `call` under `a`; nullopt when the call is
// not a whole-row reduction the model covers. `threads`: the sort's
// histogram copies (ours keeps one per thread).
std::optional<Traffic> modelled_traffic(const OpCall& call, Algorithm a, int threads);

// The table's "MB moved" cell and the JSON's "bytes_moved" for one row: the
// measured bytes where the host counted them, else the model's (marked *),
// else "-". `algorithm`: the model for this contender, if any.
struct TrafficCell {
  std::string text;
  nlohmann::json json;
};
TrafficCell traffic_cell(std::optional<double> measured, const std::string& measured_unavailable, const OpCall& call,
                         std::optional<Algorithm> algorithm, int threads);

// Counts LLC misses on every thread of this process between begin() and
// end(). bytes() is nullopt, and why() says why, where the host refuses.
class MissCounter {
 public:
  MissCounter() = default;
  MissCounter(const MissCounter&) = delete;
  MissCounter& operator=(const MissCounter&) = delete;
  ~MissCounter();
  void begin();
  void end();
  std::optional<double> bytes() const { return bytes_; }
  const std::string& why() const { return why_; }

 private:
  void close_all();
  std::vector<int> fds_;
  std::optional<double> bytes_;
  std::string why_ = "not measured";
};

}  // namespace sp::bench
