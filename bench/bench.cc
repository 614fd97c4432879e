#include "bench/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <thread>

#include "backends/backend.h"
#include "harness/exit_codes.h"
#include "reference/op_table.h"

namespace sp {
namespace {

using Clock = std::chrono::steady_clock;

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
  std::string name;
  std::string description;
  std::function<Workload(double scale)> build;
};

int64_t scaled(int64_t n, double scale) { return std::max<int64_t>(1, std::llround(static_cast<double>(n) * scale)); }

template <typename T>
T* data_of(const Tensor& t) {
  return reinterpret_cast<T*>(t.storage()->data()) + t.offset();
}

// Values are small integers so that float sums are exact in any order: the
// backends' outputs must then agree bit for bit, duplicates included.
Tensor small_int_values(DType dtype, const Shape& shape, int64_t max_value, std::mt19937_64& rng) {
  Tensor t = Tensor::zeros(dtype, shape);
  std::uniform_int_distribution<int64_t> pick(0, max_value);
  const int64_t n = t.numel();
  if (dtype == DType::Float32) {
    float* p = data_of<float>(t);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(pick(rng));
  } else {
    uint16_t* p = data_of<uint16_t>(t);
    for (int64_t i = 0; i < n; ++i) p[i] = float_to_bf16_bits(static_cast<float>(pick(rng)));
  }
  return t;
}

// `n` index values drawn by `value(i)`, stored as int64 or int32.
Tensor index_values(DType dtype, int64_t n, const std::function<int64_t(int64_t)>& value) {
  Tensor t = Tensor::zeros(dtype, {n});
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::Int64)
      data_of<int64_t>(t)[i] = value(i);
    else
      data_of<int32_t>(t)[i] = static_cast<int32_t>(value(i));
  }
  return t;
}

// A per-row index of `rows` values broadcast along `cols` (strides [1, 0]):
// every element of a row addresses the same row of the other operand.
Tensor expanded_row_index(const Tensor& per_row, int64_t cols) {
  return Tensor::view(per_row.dtype(), {per_row.numel(), cols}, {1, 0}, 0, per_row.storage());
}

OpCall make_call(std::string op, int64_t dim, std::map<std::string, Tensor> tensors) {
  OpCall c;
  c.op = std::move(op);
  c.set_arg("dim", Arg::of_int(dim));
  c.tensors = std::move(tensors);
  return c;
}

// The same call with an int32 copy of its int64 index (same layout).
OpCall with_int32_index(const OpCall& call) {
  OpCall c = call;
  const Tensor& index = call.tensors.at("index");
  const int64_t* values = reinterpret_cast<const int64_t*>(index.storage()->data());
  const Tensor storage =
      index_values(DType::Int32, static_cast<int64_t>(index.storage_elements()), [&](int64_t i) { return values[i]; });
  c.tensors["index"] = Tensor::view(DType::Int32, index.shape(), index.strides(), index.offset(), storage.storage());
  return c;
}

// 1: out = input.gather(1, index), [4096, 4096], index uniform.
// Bytes: read index + write out + read the gathered input elements.
Workload gather_last_dim(double scale) {
  std::mt19937_64 rng(1);
  const int64_t rows = scaled(4096, scale), cols = 4096;
  std::uniform_int_distribution<int64_t> col(0, cols - 1);
  const Tensor input = small_int_values(DType::Float32, {rows, cols}, 1023, rng);
  const Tensor flat = index_values(DType::Int64, rows * cols, [&](int64_t) { return col(rng); });
  const Tensor index = Tensor::view(DType::Int64, {rows, cols}, {cols, 1}, 0, flat.storage());
  const double n = static_cast<double>(rows * cols);
  return {make_call("torch.gather", 1, {{"input", input}, {"index", index}}), n * (8 + 4 + 4), std::nullopt};
}

// 2: out [1M, 128] = input [100k, 128].gather(0, index), index
// [1M, 128] with strides [1, 0] (one uniform row per output row).
// Bytes: read the index's 1M distinct values + write out + read the
// gathered input elements.
Workload row_gather(double scale) {
  std::mt19937_64 rng(2);
  const int64_t out_rows = scaled(1'000'000, scale), in_rows = scaled(100'000, scale), cols = 128;
  std::uniform_int_distribution<int64_t> row(0, in_rows - 1);
  const Tensor input = small_int_values(DType::Float32, {in_rows, cols}, 1023, rng);
  const Tensor index =
      expanded_row_index(index_values(DType::Int64, out_rows, [&](int64_t) { return row(rng); }), cols);
  const double n = static_cast<double>(out_rows * cols);
  return {make_call("torch.gather", 0, {{"input", input}, {"index", index}}),
          static_cast<double>(out_rows) * 8 + n * (4 + 4), std::nullopt};
}

// 3: self [R, 4096].scatter_(1, index, src), each index row a permutation.
// Bytes: read index + read src + write self.
Workload scatter_permutation(double scale) {
  std::mt19937_64 rng(3);
  const int64_t rows = scaled(4096, scale), cols = 4096;
  Tensor index = Tensor::zeros(DType::Int64, {rows, cols});
  int64_t* idx = data_of<int64_t>(index);
  for (int64_t r = 0; r < rows; ++r) {
    std::iota(idx + r * cols, idx + (r + 1) * cols, int64_t{0});
    std::shuffle(idx + r * cols, idx + (r + 1) * cols, rng);
  }
  const Tensor src = small_int_values(DType::Float32, {rows, cols}, 1023, rng);
  const double n = static_cast<double>(rows * cols);
  return {make_call("torch.scatter_", 1,
                    {{"self", Tensor::zeros(DType::Float32, {rows, cols})}, {"index", index}, {"src", src}}),
          n * (8 + 4 + 4), std::nullopt};
}

// 4, 4b, 6: self [100k, 128].scatter_add_(0, index, src [500k, 128]), index
// expanded like 2; `hot_row_share` of the src rows (every other one when
// 0.5) aim at row 0. Bytes: read the index's distinct values + read src +
// read and write self.
Workload scatter_add_rows(double scale, DType dtype, bool half_to_row_zero) {
  std::mt19937_64 rng(4);
  const int64_t src_rows = scaled(500'000, scale), self_rows = scaled(100'000, scale), cols = 128;
  std::uniform_int_distribution<int64_t> row(0, self_rows - 1);
  const Tensor src = small_int_values(dtype, {src_rows, cols}, 3, rng);
  const Tensor index = expanded_row_index(
      index_values(DType::Int64, src_rows, [&](int64_t i) { return half_to_row_zero && i % 2 == 0 ? 0 : row(rng); }),
      cols);
  const double es = static_cast<double>(dtype_size(dtype));
  return {make_call("torch.scatter_add_", 0,
                    {{"self", Tensor::zeros(dtype, {self_rows, cols})}, {"index", index}, {"src", src}}),
          static_cast<double>(src_rows) * 8 + static_cast<double>(src_rows * cols) * es +
              2 * static_cast<double>(self_rows * cols) * es,
          std::nullopt};
}

// 5: self [1M].scatter_add_(0, index [16M] uniform, src [16M]).
// Bytes: read index + read src + read and write self.
Workload scatter_add_1d(double scale) {
  std::mt19937_64 rng(5);
  const int64_t n = scaled(16'000'000, scale), slots = scaled(1'000'000, scale);
  std::uniform_int_distribution<int64_t> slot(0, slots - 1);
  const Tensor src = small_int_values(DType::Float32, {n}, 3, rng);
  const Tensor index = index_values(DType::Int64, n, [&](int64_t) { return slot(rng); });
  return {make_call("torch.scatter_add_", 0,
                    {{"self", Tensor::zeros(DType::Float32, {slots})}, {"index", index}, {"src", src}}),
          static_cast<double>(n) * (8 + 4) + 2 * static_cast<double>(slots) * 4, std::nullopt};
}

// 8a, 8b: the aggregation of a graph network layer: as 4, through
// scatter_reduce_(0, index, src, reduce, include_self=False). Small integer
// values keep mean and amax exact in any order. Bytes as 4.
Workload scatter_reduce_rows(double scale, const char* reduce) {
  Workload w = scatter_add_rows(scale, DType::Float32, false);
  w.call.op = "torch.scatter_reduce_";
  w.call.set_arg("reduce", Arg::of_string(reduce));
  w.call.set_arg("include_self", Arg::of_bool(false));
  return w;
}

// 7a, 7b: a workload with its index as int32; 4 bytes less per distinct
// index value.
Workload int32_variant(Workload w64) {
  Workload w32{with_int32_index(w64.call), 0, w64.call};
  const Tensor& index = w64.call.tensors.at("index");
  w32.min_bytes = w64.min_bytes - 4.0 * static_cast<double>(index.storage_elements());
  return w32;
}

const std::vector<WorkloadSpec>& workload_specs() {
  static const std::vector<WorkloadSpec> specs = {
      {"1-gather", "gather dim 1, [4096,4096] f32, uniform int64 index", gather_last_dim},
      {"2-row-gather", "gather dim 0, out [1M,128] from [100k,128] f32, index strides [1,0]", row_gather},
      {"3-scatter", "scatter_ dim 1, [4096,4096] f32, a permutation per row", scatter_permutation},
      {"4-scatter-add", "scatter_add_ dim 0, src [500k,128] into [100k,128] f32, uniform rows",
       [](double s) { return scatter_add_rows(s, DType::Float32, false); }},
      {"4b-scatter-add-hot", "as 4, every other src row into row 0",
       [](double s) { return scatter_add_rows(s, DType::Float32, true); }},
      {"5-scatter-add-1d", "scatter_add_ 1-D, 16M f32 values into 1M slots", scatter_add_1d},
      {"6-scatter-add-bf16", "as 4 in bfloat16", [](double s) { return scatter_add_rows(s, DType::BFloat16, false); }},
      {"7a-gather-int32", "as 1 with an int32 index", [](double s) { return int32_variant(gather_last_dim(s)); }},
      {"7b-row-gather-int32", "as 2 with an int32 index", [](double s) { return int32_variant(row_gather(s)); }},
      {"8a-scatter-reduce-amax", "scatter_reduce_ dim 0 amax, include_self=False, shapes as 4",
       [](double s) { return scatter_reduce_rows(s, "amax"); }},
      {"8b-scatter-reduce-mean", "scatter_reduce_ dim 0 mean, include_self=False, shapes as 4",
       [](double s) { return scatter_reduce_rows(s, "mean"); }},
  };
  return specs;
}

bool selected(const std::string& name, const std::vector<std::string>& filter) {
  if (filter.empty()) return true;
  const std::string id = name.substr(0, name.find('-'));
  return std::any_of(filter.begin(), filter.end(), [&](const std::string& f) { return f == name || f == id; });
}

// FNV-1a over 8-byte words of an output's elements in logical order; equal
// outputs give equal checksums.
uint64_t checksum(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : t.contiguous();
  const size_t bytes = static_cast<size_t>(c.numel()) * dtype_size(c.dtype());
  const std::byte* p = c.element_ptr(c.offset());
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < bytes; ++i) h = (h ^ static_cast<uint64_t>(p[i])) * 1099511628211ull;
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Read + write bandwidth of a multi-threaded memcpy of 256 MiB, in bytes/s.
double copy_bandwidth(int threads, int repeats) {
  const size_t bytes = size_t{256} << 20;
  std::vector<std::byte> from(bytes, std::byte{1}), to(bytes, std::byte{0});
  auto copy_once = [&] {
    std::vector<std::thread> workers;
    const size_t chunk = bytes / static_cast<size_t>(threads);
    for (int t = 0; t < threads; ++t) {
      const size_t begin = chunk * static_cast<size_t>(t);
      const size_t end = t + 1 == threads ? bytes : begin + chunk;
      workers.emplace_back([&, begin, end] { std::memcpy(to.data() + begin, from.data() + begin, end - begin); });
    }
    for (auto& w : workers) w.join();
  };
  copy_once();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    copy_once();
    times.push_back(seconds_since(t0));
  }
  return 2.0 * static_cast<double>(bytes) / median(times);
}

struct Timing {
  std::optional<std::string> failure;  // the backend's error / unsupported text
  std::vector<double> seconds;
  uint64_t checksum = 0;
  std::string note;
};

// Warm-up (checksummed), then `repeats` timed runs. In-place ops get their
// self bytes restored before every run, outside the timed region.
Timing time_backend(Backend& backend, const Workload& w, int repeats) {
  Timing timing;
  const OpCall* call = &w.call;
  const bool in_place = is_inplace_op(call->op);
  std::vector<std::byte> pristine;
  auto restore = [&] {
    if (in_place) std::copy(pristine.begin(), pristine.end(), call->tensors.at("self").storage()->begin());
  };
  if (in_place) pristine = *call->tensors.at("self").storage();

  Outcome warm = run_backend(backend, *call);
  if (warm.kind == Outcome::Kind::Error && warm.error == ErrorCategory::IndexDtype && w.int64_twin) {
    timing.note = fmt::format("rejects {} index ({}); timed with int64 index",
                              dtype_name(call->tensors.at("index").dtype()), error_name(*warm.error));
    call = &*w.int64_twin;
    warm = run_backend(backend, *call);
  }
  if (warm.kind != Outcome::Kind::Outputs || warm.outputs.size() != 1) {
    timing.failure = fmt::format("{}: {}", outcome_kind_name(warm.kind), warm.message);
    restore();
    return timing;
  }
  timing.checksum = checksum(warm.outputs[0]);
  warm = Outcome{};
  for (int r = 0; r < repeats; ++r) {
    restore();
    const auto t0 = Clock::now();
    const Outcome out = run_backend(backend, *call);
    timing.seconds.push_back(seconds_since(t0));
    if (out.kind != Outcome::Kind::Outputs) {
      timing.failure = fmt::format("repeat {}: {}: {}", r, outcome_kind_name(out.kind), out.message);
      break;
    }
  }
  restore();
  return timing;
}

struct Row {
  std::string workload, backend;
  Timing timing;
};

std::string format_ratio(double r) { return std::isfinite(r) ? fmt::format("{:.2f}x", r) : "-"; }

}  // namespace

std::vector<std::string> bench_workload_names() {
  std::vector<std::string> names;
  for (const auto& s : workload_specs()) names.push_back(s.name);
  return names;
}

int run_bench(const BenchOptions& opts) {
  const int threads =
      opts.threads > 0 ? opts.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (opts.repeats < 1 || !(opts.scale > 0 && opts.scale <= 1)) {
    fmt::print(stderr, "bench: --repeats must be >= 1 and --scale in (0, 1]\n");
    return exit_code::kUsage;
  }
  for (const std::string& f : opts.workloads) {
    const auto names = bench_workload_names();
    if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return selected(n, {f}); })) {
      fmt::print(stderr, "bench: unknown workload '{}' (known: {})\n", f, fmt::join(names, ", "));
      return exit_code::kUsage;
    }
  }
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> backends;
  for (const std::string& name : opts.backends) {
    std::string why;
    auto b = make_backend(name, BackendOptions{threads, false}, &why);
    if (!b) {
      fmt::print(stderr, "bench: {}\n", why);
      return exit_code::kBackendUnavailable;
    }
    backends.emplace_back(name, std::move(b));
  }
  const auto has = [&](const std::string& n) {
    return std::any_of(backends.begin(), backends.end(), [&](const auto& b) { return b.first == n; });
  };
  const std::string baseline = has("libtorch") ? "libtorch" : opts.backends.back();

  const double copy_bps = copy_bandwidth(threads, opts.repeats);
  fmt::print("scatterproof bench: {} threads, {} repeats (median, after a warm-up), scale {}\n", threads, opts.repeats,
             opts.scale);
  fmt::print("memcpy 256 MiB, {} threads: {:.1f} GB/s (read + write)\n\n", threads, copy_bps / 1e9);
  fmt::print("{:<22} {:<10} {:>11} {:>8} {:>8} {:>10}  {}\n", "workload", "backend", "median ms", "GB/s", "of copy",
             fmt::format("vs {}", baseline), "note");

  nlohmann::json report = {{"threads", threads},
                           {"repeats", opts.repeats},
                           {"scale", opts.scale},
                           {"baseline", baseline},
                           {"copy_gbs", copy_bps / 1e9},
                           {"workloads", nlohmann::json::array()},
                           {"scaling", nlohmann::json::array()}};
  bool all_good = true;

  for (const WorkloadSpec& spec : workload_specs()) {
    if (!selected(spec.name, opts.workloads)) continue;
    const Workload w = spec.build(opts.scale);
    std::vector<Row> rows;
    for (auto& [name, backend] : backends) rows.push_back({spec.name, name, time_backend(*backend, w, opts.repeats)});

    // Every backend that produced an output must agree with the first one.
    const Row* reference_row = nullptr;
    for (Row& r : rows) {
      if (r.timing.failure) {
        all_good = false;
        continue;
      }
      if (!reference_row) {
        reference_row = &r;
      } else if (r.timing.checksum != reference_row->timing.checksum) {
        all_good = false;
        r.timing.failure =
            fmt::format("CHECKSUM MISMATCH with {}: output differs, time not reported", reference_row->backend);
      }
    }
    double baseline_s = NAN;
    for (const Row& r : rows)
      if (r.backend == baseline && !r.timing.failure) baseline_s = median(r.timing.seconds);

    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json j = {{"backend", r.backend}};
      if (r.timing.failure) {
        fmt::print("{:<22} {:<10} {:>11} {:>8} {:>8} {:>10}  {}\n", spec.name, r.backend, "-", "-", "-", "-",
                   *r.timing.failure);
        j["failure"] = *r.timing.failure;
      } else {
        const double s = median(r.timing.seconds);
        const double bps = w.min_bytes / s;
        fmt::print("{:<22} {:<10} {:>11.3f} {:>8.2f} {:>7.0f}% {:>10}  {}\n", spec.name, r.backend, s * 1e3, bps / 1e9,
                   100 * bps / copy_bps, format_ratio(baseline_s / s), r.timing.note);
        j.update({{"median_s", s},
                  {"times_s", r.timing.seconds},
                  {"gbs", bps / 1e9},
                  {"of_copy", bps / copy_bps},
                  {"checksum", fmt::format("{:016x}", r.timing.checksum)}});
        if (std::isfinite(baseline_s)) j["speedup_vs_baseline"] = baseline_s / s;
        if (!r.timing.note.empty()) j["note"] = r.timing.note;
      }
      rows_json.push_back(std::move(j));
    }
    report["workloads"].push_back(
        {{"name", spec.name}, {"description", spec.description}, {"min_bytes", w.min_bytes}, {"rows", rows_json}});

    // Scaling: the 1-D scatter_add_ again at 1 thread, against the N-thread time.
    if (spec.name != "5-scatter-add-1d") continue;
    for (const Row& r : rows) {
      if (r.timing.failure) continue;
      auto single = make_backend(r.backend, BackendOptions{1, false}, nullptr);
      const Timing one = time_backend(*single, w, opts.repeats);
      if (one.failure || one.checksum != r.timing.checksum) {
        all_good = false;
        fmt::print("{:<22} {:<10} 1 thread: {}\n", "5-scaling", r.backend, one.failure.value_or("CHECKSUM MISMATCH"));
        continue;
      }
      const double t1 = median(one.seconds), tn = median(r.timing.seconds);
      fmt::print("{:<22} {:<10} {:>11.3f} ms at 1 thread, {:.3f} ms at {}: scaling {}\n", "5-scaling", r.backend,
                 t1 * 1e3, tn * 1e3, threads, format_ratio(t1 / tn));
      report["scaling"].push_back({{"workload", spec.name},
                                   {"backend", r.backend},
                                   {"one_thread_s", t1},
                                   {"threads", threads},
                                   {"n_threads_s", tn},
                                   {"scaling", t1 / tn}});
    }
  }

  if (!opts.json_path.empty()) {
    std::ofstream out(opts.json_path);
    out << report.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "bench: cannot write {}\n", opts.json_path);
      return exit_code::kUsage;
    }
  }
  return all_good ? exit_code::kOk : exit_code::kUnexpectedResults;
}

}  // namespace sp
