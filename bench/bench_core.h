// bench_core.h — what `scatterproof bench` and scatterproof-bench-worker
// share: the fixed workloads (built deterministically, same seeds, from a
// scale), the output checksum, the timing loop and the peak-memory window,
// and the one JSON line in which the worker reports a timing back.
//
// The worker exists because the current LibTorch cannot share a process
// with LibTorch 1.13: build-libtorch-current/ builds it against the wheel,
// and the bench times that backend there with this same code, so every row
// of the table is measured the same way whatever process it ran in.
//
// Thread-safety: time_backend measures this process's memory, so one
// timing at a time per process.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "reference/op_call.h"

namespace sp::bench {

// One workload: the call, and the minimum bytes it must move (the bandwidth
// numerator). `int64_twin` is the same call with an int64 index, timed for a
// backend that rejects the int32 index (LibTorch 1.13 does), so the row still
// compares like with like and says so.
struct Workload {
  OpCall call;
  double min_bytes = 0;
  std::optional<OpCall> int64_twin;
};

struct WorkloadSpec {
  std::string name;  // "ID-words": "4b-scatter-add-hot"
  std::string description;
  std::function<Workload(double scale)> build;  // deterministic for a scale
};

// Every workload, in run order.
const std::vector<WorkloadSpec>& workload_specs();
// Whether `name` is chosen by `filter` (names or ids; empty: everything).
bool selected(const std::string& name, const std::vector<std::string>& filter);
// The workload with this exact name or id; nullptr when none.
const WorkloadSpec* find_workload(const std::string& name_or_id);

// FNV-1a over an output's elements in logical order; equal outputs give
// equal checksums.
uint64_t checksum(const Tensor& t);
double median(std::vector<double> v);

// The value of a "Field:   N kB" line of /proc/PID/status text, in bytes;
// nullopt when the field is absent or malformed.
std::optional<int64_t> status_field_bytes(std::string_view status_text, std::string_view field);

// The memory a backend adds while it runs, measured in this process: begin()
// resets the peak (writes "5" to /proc/self/clear_refs, which sets VmHWM to
// the current RSS; with glibc, malloc_trim first returns the free memory
// malloc holds, which a backend would otherwise reuse uncounted) and reads
// VmRSS; end() reads VmHWM. The peak is VmHWM
// minus that RSS: the bytes added on top of the inputs already built. When
// either step is impossible, why() says so and bytes() is nullopt; no number
// is made up.
class PeakWindow {
 public:
  void begin();
  void end();
  std::optional<int64_t> bytes() const { return bytes_; }
  const std::string& why() const { return why_; }

 private:
  std::optional<int64_t> rss_before_;
  std::optional<int64_t> bytes_;
  std::string why_ = "not measured";
};

struct Timing {
  std::optional<std::string> failure;  // the backend's error / unsupported text
  std::vector<double> seconds;         // one per timed repeat
  uint64_t checksum = 0;               // of the warm-up's output
  std::string note;                    // e.g. timed with the int64 twin
  std::optional<int64_t> peak_bytes;   // PeakWindow over warm-up and repeats
  std::string peak_unavailable;        // why, when peak_bytes is nullopt
  // LLC misses x 64 per timed call, every thread (traffic.h's MissCounter).
  std::optional<double> measured_bytes;
  std::string measured_unavailable;  // why, when measured_bytes is nullopt
};

// Untimed warm-up calls: at least kWarmUpCalls, and more until
// kWarmUpSeconds have passed, at most kWarmUpPerRepeat per timed repeat;
// the first one is checksummed.
inline constexpr int kWarmUpCalls = 3;
inline constexpr int kWarmUpPerRepeat = 4;
inline constexpr double kWarmUpSeconds = 0.1;

// Warm-up (checksummed), then `repeats` timed runs; the peak-memory window
// spans both. In-place ops get their self bytes restored before every run,
// outside the timed region (the pristine copy is made before the window).
// `int64_index`: time the workload's int64 twin from the start (the bench
// asks for it when a backend's int32 answer was wrong or an error other
// than index_dtype; the note says so).
Timing time_backend(Backend& backend, const Workload& w, int repeats, bool int64_index = false);

// Folds a later round's timing of the same contender and call into `into`:
// the times join; a failure, or an output whose checksum differs, makes the
// row a failure; the peak is the larger; measured bytes are averaged.
void merge_round(Timing& into, const Timing& more, int round);

// The worker's report: one JSON object on one line.
struct WorkerReport {
  std::string backend;
  std::string version;
  Timing timing;
};
// REQUIRES: r.timing has a failure or at least one time.
std::string worker_json_line(const WorkerReport& r);

// Writes a bench's JSON record to `path` (bench and bench --gpu; "" writes
// nothing): false, said on stderr, when it cannot be written.
bool write_json_report(const std::string& path, const nlohmann::json& report);
// nullopt (and *why) when the line is not a worker report.
std::optional<WorkerReport> parse_worker_json_line(const std::string& line, std::string* why);

}  // namespace sp::bench
