// bench_core.cc — the workloads, checksum, timing loop, peak-memory window
// and worker report line shared by `scatterproof bench` and
// scatterproof-bench-worker (bench_core.h).
#include "bench/bench_core.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <sstream>

#include "bench/traffic.h"
#include "reference/op_table.h"

namespace sp::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The torch version whose rules the int32-index workloads follow (T-I2:
// torch >= 2.8 accepts an int32 index for gather, scatter* and
// scatter_reduce), so that backends implementing the documents accept them;
// a LibTorch that rejects the index is timed on the int64 twin instead.
constexpr const char* kInt32IndexTorchVersion = "2.15.0";

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
  bind_call(c);
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

// 8s, 8a, 8b: the aggregation of a graph network layer: as 4, through
// scatter_reduce_(0, index, src, reduce, include_self=False). Small integer
// values keep mean and amax exact in any order. Bytes as 4.
Workload scatter_reduce_rows(double scale, const char* reduce) {
  Workload w = scatter_add_rows(scale, DType::Float32, false);
  w.call.op = "torch.scatter_reduce_";
  w.call.set_arg("reduce", Arg::of_string(reduce));
  w.call.set_arg("include_self", Arg::of_bool(false));
  bind_call(w.call);
  return w;
}

// 9, 9b: the message passing of a graph network layer:
// self [100k, 64].index_add_(0, index [2M] uniform, source [2M, 64]) (2M
// edges into 100k nodes, ~20 per node; values 0..3 keep the sums exact,
// bfloat16 included: every node's sum stays far below 256). Bytes: read
// index + read source + read and write self.
Workload index_add_gnn(double scale, DType dtype) {
  std::mt19937_64 rng(9);
  const int64_t edges = scaled(2'000'000, scale), nodes = scaled(100'000, scale), features = 64;
  std::uniform_int_distribution<int64_t> node(0, nodes - 1);
  const Tensor source = small_int_values(dtype, {edges, features}, 3, rng);
  const Tensor index = index_values(DType::Int64, edges, [&](int64_t) { return node(rng); });
  const double es = static_cast<double>(dtype_size(dtype));
  return {make_call("torch.index_add_", 0,
                    {{"self", Tensor::zeros(dtype, {nodes, features})}, {"index", index}, {"source", source}}),
          static_cast<double>(edges) * 8 + static_cast<double>(edges * features) * es +
              2 * static_cast<double>(nodes * features) * es,
          std::nullopt};
}

// 10: out [1M, 128] = torch.index_select(input [100k, 128] f32, 0, index
// [1M] uniform). Bytes: read index + write out + read the selected rows.
Workload index_select_rows(double scale) {
  std::mt19937_64 rng(10);
  const int64_t out_rows = scaled(1'000'000, scale), in_rows = scaled(100'000, scale), cols = 128;
  std::uniform_int_distribution<int64_t> row(0, in_rows - 1);
  const Tensor input = small_int_values(DType::Float32, {in_rows, cols}, 1023, rng);
  const Tensor index = index_values(DType::Int64, out_rows, [&](int64_t) { return row(rng); });
  const double n = static_cast<double>(out_rows * cols);
  return {make_call("torch.index_select", 0, {{"input", input}, {"index", index}}),
          static_cast<double>(out_rows) * 8 + n * (4 + 4), std::nullopt};
}

// 7a-7e: a workload with its index as int32 (following the current torch's
// rules, kInt32IndexTorchVersion); 4 bytes less per distinct index value.
Workload int32_variant(Workload w64) {
  Workload w32{with_int32_index(w64.call), 0, w64.call};
  w32.call.framework_version = kInt32IndexTorchVersion;
  const Tensor& index = w64.call.tensors.at("index");
  w32.min_bytes = w64.min_bytes - 4.0 * static_cast<double>(index.storage_elements());
  return w32;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::optional<std::string> read_text(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

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
      {"7c-scatter-add-int32", "as 4 with an int32 index",
       [](double s) { return int32_variant(scatter_add_rows(s, DType::Float32, false)); }},
      {"7d-index-add-gnn-int32", "as 9 with an int32 index",
       [](double s) { return int32_variant(index_add_gnn(s, DType::Float32)); }},
      {"7e-index-select-int32", "as 10 with an int32 index",
       [](double s) { return int32_variant(index_select_rows(s)); }},
      {"8s-scatter-reduce-sum", "scatter_reduce_ dim 0 sum, include_self=False, shapes as 4",
       [](double s) { return scatter_reduce_rows(s, "sum"); }},
      {"8a-scatter-reduce-amax", "scatter_reduce_ dim 0 amax, include_self=False, shapes as 4",
       [](double s) { return scatter_reduce_rows(s, "amax"); }},
      {"8b-scatter-reduce-mean", "scatter_reduce_ dim 0 mean, include_self=False, shapes as 4",
       [](double s) { return scatter_reduce_rows(s, "mean"); }},
      {"9-index-add-gnn", "index_add_ dim 0, 2M edges x 64 f32 into 100k nodes, uniform int64 index",
       [](double s) { return index_add_gnn(s, DType::Float32); }},
      {"9b-index-add-gnn-bf16", "as 9 in bfloat16", [](double s) { return index_add_gnn(s, DType::BFloat16); }},
      {"10-index-select-rows", "index_select dim 0, 1M rows from [100k,128] f32, uniform int64 index",
       index_select_rows},
  };
  return specs;
}

bool selected(const std::string& name, const std::vector<std::string>& filter) {
  if (filter.empty()) return true;
  const std::string id = name.substr(0, name.find('-'));
  return std::any_of(filter.begin(), filter.end(), [&](const std::string& f) { return f == name || f == id; });
}

const WorkloadSpec* find_workload(const std::string& name_or_id) {
  for (const WorkloadSpec& s : workload_specs())
    if (selected(s.name, {name_or_id})) return &s;
  return nullptr;
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

std::optional<int64_t> status_field_bytes(std::string_view status_text, std::string_view field) {
  size_t at = 0;
  while (at < status_text.size()) {
    const size_t eol = std::min(status_text.find('\n', at), status_text.size());
    const std::string_view line = status_text.substr(at, eol - at);
    at = eol + 1;
    if (line.size() <= field.size() || line.substr(0, field.size()) != field || line[field.size()] != ':') continue;
    std::string rest(line.substr(field.size() + 1));
    std::istringstream words(rest);
    long long kib = -1;
    std::string unit, extra;
    if (!(words >> kib) || kib < 0 || !(words >> unit) || unit != "kB" || (words >> extra)) return std::nullopt;
    return static_cast<int64_t>(kib) * 1024;
  }
  return std::nullopt;
}

void PeakWindow::begin() {
  rss_before_.reset();
  bytes_.reset();
#ifdef __GLIBC__
  // Free memory malloc still holds goes back to the system first, so that a
  // backend reusing what an earlier one freed is charged for it too.
  malloc_trim(0);
#endif
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  const bool reset = fd >= 0 && ::write(fd, "5", 1) == 1;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!reset) {
    why_ = fmt::format("cannot reset the peak: writing /proc/self/clear_refs failed: {}", std::strerror(error));
    return;
  }
  const auto status = read_text("/proc/self/status");
  if (status) rss_before_ = status_field_bytes(*status, "VmRSS");
  if (!rss_before_) why_ = "no VmRSS in /proc/self/status";
}

void PeakWindow::end() {
  if (!rss_before_) return;  // why_ says why
  const auto status = read_text("/proc/self/status");
  const std::optional<int64_t> hwm = status ? status_field_bytes(*status, "VmHWM") : std::nullopt;
  if (!hwm) {
    why_ = "no VmHWM in /proc/self/status";
    return;
  }
  bytes_ = std::max<int64_t>(0, *hwm - *rss_before_);
  why_.clear();
}

Timing time_backend(Backend& backend, const Workload& w, int repeats, bool int64_index) {
  Timing timing;
  const OpCall* call = int64_index && w.int64_twin ? &*w.int64_twin : &w.call;
  if (call != &w.call) timing.note = "timed with int64 index";
  const bool in_place = is_inplace_op(*call);
  std::vector<std::byte> pristine;
  auto restore = [&] {
    if (in_place) std::copy(pristine.begin(), pristine.end(), call->tensors.at("self").storage()->begin());
  };
  if (in_place) pristine = *call->tensors.at("self").storage();

  PeakWindow peak;
  peak.begin();
  auto finish = [&] {
    peak.end();
    timing.peak_bytes = peak.bytes();
    if (!timing.peak_bytes) timing.peak_unavailable = peak.why();
    restore();
    return timing;
  };
  Outcome warm = run_backend(backend, *call);
  if (warm.kind == Outcome::Kind::Error && warm.error == ErrorCategory::IndexDtype && w.int64_twin) {
    timing.note = fmt::format("rejects {} index ({}); timed with int64 index",
                              dtype_name(call->tensors.at("index").dtype()), error_name(*warm.error));
    call = &*w.int64_twin;
    warm = run_backend(backend, *call);
  }
  if (warm.kind != Outcome::Kind::Outputs || warm.outputs.size() != 1) {
    timing.failure = fmt::format("{}: {}", outcome_kind_name(warm.kind), warm.message);
    return finish();
  }
  timing.checksum = checksum(warm.outputs[0]);
  warm = Outcome{};
  // More untimed calls (bench_core.h): a short call's first ones, after the
  // copy meter's 512 MB, run up to 2x slower for every contender (docs/speed.md).
  const auto warm_start = Clock::now();
  const int most = std::max(kWarmUpCalls, kWarmUpPerRepeat * repeats);
  for (int n = 1; n < most && (n < kWarmUpCalls || seconds_since(warm_start) < kWarmUpSeconds); ++n) {
    restore();
    if (run_backend(backend, *call).kind != Outcome::Kind::Outputs) break;  // the timed repeats report it
  }
  MissCounter misses;
  for (int r = 0; r < repeats; ++r) {
    restore();
    misses.begin();  // per repeat: the restore's copy stays out of the count
    const auto t0 = Clock::now();
    const Outcome out = run_backend(backend, *call);
    timing.seconds.push_back(seconds_since(t0));
    misses.end();
    if (misses.bytes()) timing.measured_bytes = timing.measured_bytes.value_or(0) + *misses.bytes() / repeats;
    if (!misses.bytes()) timing.measured_unavailable = misses.why();
    if (out.kind != Outcome::Kind::Outputs) {
      timing.failure = fmt::format("repeat {}: {}: {}", r, outcome_kind_name(out.kind), out.message);
      break;
    }
  }
  return finish();
}

void merge_round(Timing& into, const Timing& more, int round) {
  if (into.failure) return;
  if (more.failure) {
    into.failure = fmt::format("round {}: {}", round + 1, *more.failure);
  } else if (more.checksum != into.checksum) {
    into.failure = fmt::format("round {}: output differs from round 1 (checksum)", round + 1);
  }
  into.seconds.insert(into.seconds.end(), more.seconds.begin(), more.seconds.end());
  if (more.peak_bytes) into.peak_bytes = std::max(into.peak_bytes.value_or(0), *more.peak_bytes);
  if (into.measured_bytes && more.measured_bytes)
    into.measured_bytes = (*into.measured_bytes + *more.measured_bytes) / 2;
}

bool write_json_report(const std::string& path, const nlohmann::json& report) {
  if (path.empty()) return true;
  std::ofstream out(path);
  out << report.dump(2) << "\n";
  if (out) return true;
  fmt::print(stderr, "bench: cannot write {}\n", path);
  return false;
}

std::string worker_json_line(const WorkerReport& r) {
  nlohmann::json j = {{"backend", r.backend}, {"version", r.version}};
  const Timing& t = r.timing;
  if (t.failure) {
    j["failure"] = *t.failure;
  } else {
    j["median_s"] = median(t.seconds);
    j["times_s"] = t.seconds;
    j["checksum"] = fmt::format("{:016x}", t.checksum);
  }
  if (t.peak_bytes)
    j["peak_bytes"] = *t.peak_bytes;
  else
    j["peak_unavailable"] = t.peak_unavailable;
  if (!t.note.empty()) j["note"] = t.note;
  if (t.measured_bytes) j["measured_bytes"] = *t.measured_bytes;
  return j.dump();
}

std::optional<WorkerReport> parse_worker_json_line(const std::string& line, std::string* why) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto fail = [&](std::string what) -> std::optional<WorkerReport> {
    *why = std::move(what);
    return std::nullopt;
  };
  if (!j.is_object()) return fail("not a JSON object");
  const auto text = [&](const char* k) { return j.contains(k) && j[k].is_string(); };
  if (!text("backend") || !text("version")) return fail("no backend or version");
  WorkerReport r{j["backend"], j["version"], {}};
  Timing& t = r.timing;
  if (text("note")) t.note = j["note"];
  if (j.contains("measured_bytes") && j["measured_bytes"].is_number())
    t.measured_bytes = j["measured_bytes"].get<double>();
  if (j.contains("peak_bytes") && j["peak_bytes"].is_number_integer())
    t.peak_bytes = j["peak_bytes"].get<int64_t>();
  else if (text("peak_unavailable"))
    t.peak_unavailable = j["peak_unavailable"];
  else
    return fail("neither peak_bytes nor peak_unavailable");
  if (text("failure")) {
    t.failure = j["failure"];
    return r;
  }
  if (!j.contains("times_s") || !j["times_s"].is_array() || j["times_s"].empty() || !text("checksum"))
    return fail("no failure, and no times_s or checksum");
  for (const auto& s : j["times_s"]) {
    if (!s.is_number() || !(s.get<double>() >= 0)) return fail("times_s holds a value that is not a time");
    t.seconds.push_back(s.get<double>());
  }
  const std::string sum = j["checksum"];
  char* end = nullptr;
  t.checksum = std::strtoull(sum.c_str(), &end, 16);
  if (sum.size() != 16 || *end != '\0') return fail("checksum '" + sum + "' is not 16 hex digits");
  return r;
}

}  // namespace sp::bench
