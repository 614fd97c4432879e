// traffic.cc — bytes moved per call: the models and the LLC-miss counter
// (traffic.h).
#include "bench/traffic.h"

#include <dirent.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace sp::bench {
namespace {

// The shape of a whole-row reduction: K source rows of L elements land on
// S target rows, `targeted` of which some index value names.
struct Rows {
  double K = 0, L = 0, S = 0, targeted = 0;
  double element = 0, index_element = 0;
  bool index_add = false;
  bool alpha_one = true;
};

std::optional<Rows> whole_row_shape(const OpCall& call) {
  const Tensor* self = call.tensor("self");
  const Tensor* index = call.tensor("index");
  const bool scatter = call.op == "torch.scatter_add_" || call.op == "torch.scatter_reduce_";
  const bool index_add = call.op == "torch.index_add_";
  const Tensor* src = call.tensor(index_add ? "source" : "src");
  if (!(scatter || index_add) || !self || !index || !src || call.int_arg("dim").value_or(-1) != 0) return std::nullopt;
  if (self->shape().size() != 2 || !self->is_contiguous() || !src->is_contiguous()) return std::nullopt;
  Rows r;
  r.index_add = index_add;
  r.S = static_cast<double>(self->shape()[0]);
  r.L = static_cast<double>(self->shape()[1]);
  r.element = static_cast<double>(dtype_size(self->dtype()));
  r.index_element = static_cast<double>(dtype_size(index->dtype()));
  int64_t K = 0;
  if (index_add) {
    if (index->shape().size() != 1) return std::nullopt;
    K = index->shape()[0];
    if (const auto alpha = call.scalar_arg("alpha"))
      r.alpha_one =
          alpha->kind == Scalar::Kind::Float ? alpha->f == 1.0 : alpha->kind == Scalar::Kind::Int && alpha->i == 1;
  } else {
    // The index expanded along rows: [K, L] with strides [s, 0].
    if (index->shape().size() != 2 || index->strides()[1] != 0 || index->shape()[1] != self->shape()[1])
      return std::nullopt;
    K = index->shape()[0];
  }
  r.K = static_cast<double>(K);
  std::vector<bool> seen(static_cast<size_t>(self->shape()[0]), false);
  for (int64_t k = 0; k < K; ++k) {
    int64_t v = index_add ? index->value_at({k}).i : index->value_at({k, 0}).i;
    if (v < 0) v += self->shape()[0];
    if (v >= 0 && v < self->shape()[0]) seen[static_cast<size_t>(v)] = true;
  }
  for (bool b : seen) r.targeted += b ? 1 : 0;
  return r;
}

// Ours: backends/cpu/row_reduce.cc.
Traffic ours(const Rows& r, int threads) {
  const double P = threads;
  const double sort = 2 * r.K * r.index_element              // the count and place passes read the index
                      + 8 * r.K                              // order written
                      + 7 * P * r.S * 8 + 8 * r.S;           // per-thread histograms: zeroed, counted, prefixed, placed
  const double reduce = 8 * r.K + 8 * r.S                    // order and row starts read
                        + r.K * r.L * r.element              // each source row once
                        + 2 * r.targeted * r.L * r.element;  // each targeted row read (or owned) and written once
  return {sort + reduce, fmt::format("counting sort ({} histograms) + sorted rows, each source row once, each "
                                     "targeted row read and written once",
                                     threads)};
}

// ATen 2.x: the expanded-index scatter (radix sort of keys and row ids).
Traffic aten_sorted(const Rows& r) {
  int bits = 0;
  while ((int64_t{1} << bits) < static_cast<int64_t>(r.S)) ++bits;
  const int passes = std::max(1, (bits + 7) / 8);
  const double build = r.K * r.index_element + 16 * r.K;  // keys and row ids written
  const double sort = passes * 40 * r.K;                  // per pass: histogram read, keys + ids read and written
  const double offsets = 8 * r.K + 8 * r.targeted;
  const double reduce = 8 * r.K + r.K * r.L * r.element + 2 * r.targeted * r.L * r.element;
  return {build + sort + offsets + reduce,
          fmt::format("radix sort of keys + row ids ({} passes of 8 bits) + sorted rows", passes)};
}

// ATen 2.x index_add_ other than through scatter_add_: one row add per
// index value, in index order, on one thread.
Traffic aten_row_at_a_time(const Rows& r) {
  return {r.K * r.index_element + r.K * r.L * r.element + 2 * r.K * r.L * r.element,
          "one row add per index value, in index order, one thread: each target row read and written per value"};
}

}  // namespace

std::optional<Traffic> modelled_traffic(const OpCall& call, Algorithm a, int threads) {
  const std::optional<Rows> r = whole_row_shape(call);
  if (!r) return std::nullopt;
  if (a == Algorithm::Ours) return ours(*r, threads);
  // ATen's index_add_ takes scatter_add_ (hence the sorted path) for dim 0
  // with alpha 1 and an int64 index (TensorAdvancedIndexing.cpp,
  // index_add_cpu_out); otherwise it adds a row at a time.
  if (r->index_add && !(r->alpha_one && r->index_element == 8)) return aten_row_at_a_time(*r);
  return aten_sorted(*r);
}

TrafficCell traffic_cell(std::optional<double> measured, const std::string& measured_unavailable, const OpCall& call,
                         std::optional<Algorithm> algorithm, int threads) {
  TrafficCell c{"-", nlohmann::json::object()};
  const std::optional<Traffic> model = algorithm ? modelled_traffic(call, *algorithm, threads) : std::nullopt;
  if (model) {
    c.text = fmt::format("{:.0f}*", model->bytes / 1e6);
    c.json["modelled"] = {{"bytes", model->bytes}, {"how", model->how}};
  }
  if (measured) {
    c.text = fmt::format("{:.0f}", *measured / 1e6);
    c.json["measured"] = {{"bytes", *measured}, {"how", "LLC misses x 64 B (perf_event_open), per call"}};
  } else {
    c.json["measured_unavailable"] = measured_unavailable;
  }
  return c;
}

MissCounter::~MissCounter() { close_all(); }

void MissCounter::close_all() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

void MissCounter::begin() {
  close_all();
  bytes_.reset();
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) {
    why_ = "cannot list /proc/self/task";
    return;
  }
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CACHE_MISSES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    const long fd = ::syscall(SYS_perf_event_open, &attr, tid, -1, -1, 0);
    if (fd < 0) {
      why_ = fmt::format("perf_event_open(PERF_COUNT_HW_CACHE_MISSES) refused: {}", std::strerror(errno));
      ::closedir(dir);
      close_all();
      return;
    }
    fds_.push_back(static_cast<int>(fd));
  }
  ::closedir(dir);
  for (int fd : fds_) ::ioctl(fd, PERF_EVENT_IOC_RESET, 0), ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void MissCounter::end() {
  if (fds_.empty()) return;  // why_ says why
  double misses = 0;
  for (int fd : fds_) {
    ::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t n = 0;
    if (::read(fd, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) {
      why_ = "reading a perf counter failed";
      close_all();
      return;
    }
    misses += static_cast<double>(n);
  }
  close_all();
  bytes_ = misses * 64;
  why_.clear();
}

}  // namespace sp::bench
