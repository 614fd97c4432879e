// gpu_timing.cc — the timing of one workload on a contender of bench --gpu
// (gpu_timing.h): our cuda backends through the executor's JobClock, and
// PyTorch through adapters/bench_torch_worker.py.
#include "bench/gpu_timing.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

#include "backends/cuda/job_clock.h"
#include "reference/op_table.h"

extern char** environ;

namespace sp::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Restores an in-place op's self to its bytes before the first call.
class SelfKeeper {
 public:
  explicit SelfKeeper(const OpCall& call) : call_(call), in_place_(is_inplace_op(call)) {
    if (in_place_) pristine_ = *call.tensors.at("self").storage();
  }
  ~SelfKeeper() { restore(); }
  void restore() const {
    if (in_place_) std::copy(pristine_.begin(), pristine_.end(), call_.tensors.at("self").storage()->begin());
  }

 private:
  const OpCall& call_;
  bool in_place_;
  std::vector<std::byte> pristine_;
};

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

nlohmann::json arg_json(const Arg& a) {
  switch (a.type) {
    case Arg::Type::Int:
      return a.i;
    case Arg::Type::Bool:
      return a.b;
    case Arg::Type::String:
      return a.s;
    case Arg::Type::IntList:
      return a.ints;
    case Arg::Type::Scalar:
      break;
  }
  const Scalar& s = a.scalar;
  if (s.kind == Scalar::Kind::Bool) return s.b;
  if (s.kind == Scalar::Kind::Int) return s.i;
  return s.f;
}

// The output the worker wrote: `bytes` contiguous elements of dtype/shape.
std::optional<Tensor> read_output(const std::filesystem::path& file, const nlohmann::json& reply, std::string* why) {
  const auto dtype = reply.contains("dtype") && reply["dtype"].is_string()
                         ? dtype_from_name(reply["dtype"].get<std::string>())
                         : std::nullopt;
  if (!dtype || !reply.contains("shape") || !reply["shape"].is_array()) {
    *why = "the worker's reply has no dtype or shape";
    return std::nullopt;
  }
  Shape shape;
  for (const auto& d : reply["shape"]) shape.push_back(d.get<int64_t>());
  Tensor out = Tensor::zeros(*dtype, shape);
  std::ifstream in(file, std::ios::binary);
  const auto bytes = static_cast<std::streamsize>(out.storage()->size());
  in.read(reinterpret_cast<char*>(out.storage()->data()), bytes);
  if (!in || in.gcount() != bytes || in.peek() != std::ifstream::traits_type::eof()) {
    *why = fmt::format("the worker's output file {} does not hold {} bytes", file.string(), bytes);
    return std::nullopt;
  }
  return out;
}

}  // namespace

GpuTiming time_cuda_backend(Backend& backend, const Workload& w, int warmups, int repeats, bool int64_index) {
  GpuTiming t;
  const OpCall* call = int64_index && w.int64_twin ? &*w.int64_twin : &w.call;
  if (call != &w.call) t.note = "timed with int64 index";
  auto keeper = std::make_unique<SelfKeeper>(*call);
  Outcome warm = run_backend(backend, *call);
  if (warm.kind == Outcome::Kind::Error && warm.error == ErrorCategory::IndexDtype && w.int64_twin) {
    t.note = fmt::format("rejects {} index ({}); timed with int64 index", dtype_name(call->tensors.at("index").dtype()),
                         error_name(*warm.error));
    keeper.reset();
    call = &*w.int64_twin;
    keeper = std::make_unique<SelfKeeper>(*call);
    warm = run_backend(backend, *call);
  }
  if (warm.kind != Outcome::Kind::Outputs || warm.outputs.size() != 1) {
    t.failure = fmt::format("{}: {}", outcome_kind_name(warm.kind), warm.message);
    return t;
  }
  t.checksum = checksum(warm.outputs[0]);
  warm = Outcome{};
  for (int i = 1; i < warmups; ++i) {
    keeper->restore();
    run_backend(backend, *call);
  }
  std::vector<double> to_device, to_host;
  for (int r = 0; r < repeats; ++r) {
    keeper->restore();
    cuda::JobClock clock;
    const auto t0 = Clock::now();
    Outcome out;
    {
      const cuda::JobClockScope scope(&clock);
      out = run_backend(backend, *call);
    }
    t.call_s.push_back(seconds_since(t0));
    if (out.kind != Outcome::Kind::Outputs) {
      t.failure = fmt::format("repeat {}: {}: {}", r, outcome_kind_name(out.kind), out.message);
      return t;
    }
    if (clock.launches == 0) {
      t.failure = "no kernel launch was timed: the op did not run on the executor's clock";
      return t;
    }
    t.kernel_s.push_back(clock.kernel_s);
    to_device.push_back(clock.to_device_s);
    to_host.push_back(clock.to_host_s);
    t.to_device_bytes = clock.to_device_bytes;
    t.to_host_bytes = clock.to_host_bytes;
    t.launches = clock.launches;
  }
  t.to_device_s = median(to_device);
  t.to_host_s = median(to_host);
  return t;
}

std::filesystem::path make_scratch_dir(std::string* why) {
  // /dev/shm only with room for the largest workload's operands and output
  // (~1.2 GB at scale 1): a container's is often 64 MiB.
  std::error_code ec;
  std::filesystem::path base = "/dev/shm";
  const auto space = std::filesystem::space(base, ec);
  if (ec || space.available < (uint64_t{4} << 30) || ::access(base.c_str(), W_OK) != 0)
    base = std::filesystem::temp_directory_path(ec);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const auto dir = base / fmt::format("scatterproof-bench-gpu-{}-{}", ::getpid(), attempt);
    if (std::filesystem::create_directory(dir, ec)) return dir;
  }
  *why = fmt::format("cannot make a scratch directory under {}: {}", base.string(), ec.message());
  return {};
}

std::unique_ptr<TorchWorker> TorchWorker::start(const std::string& python, const std::string& script,
                                                const std::string& device, const std::filesystem::path& scratch,
                                                double timeout_s, std::string* why, bool* unavailable) {
  *unavailable = false;
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker is an error on write, not the end of the bench
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) {
    *why = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<TorchWorker> w(new TorchWorker);
  w->scratch_ = scratch;
  const std::string err_file = (scratch / "worker.stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args = {python, script, "--device", device};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&w->pid_, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  w->to_worker_ = in_pipe[1];
  w->from_worker_ = out_pipe[0];
  if (rc != 0) {
    w->pid_ = -1;
    *why = fmt::format("cannot run {}: {}", python, std::strerror(rc));
    return nullptr;
  }
  std::string line;
  if (!w->read_line(&line, timeout_s)) {
    *why = fmt::format("{} {} printed no hello line ({}){}", python, script, w->dead_, w->stderr_tail());
    return nullptr;
  }
  w->hello_ = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!w->hello_.is_object() || !w->hello_.contains("hello")) {
    *why = fmt::format("{} printed '{}', not a hello line{}", script, line.substr(0, 200), w->stderr_tail());
    return nullptr;
  }
  if (w->hello_.contains("unavailable")) {
    *unavailable = true;
    *why = w->hello_["unavailable"].get<std::string>();
    return nullptr;
  }
  return w;
}

TorchWorker::~TorchWorker() {
  if (to_worker_ >= 0) {
    write_all(to_worker_, "\n");
    ::close(to_worker_);
  }
  if (from_worker_ >= 0) ::close(from_worker_);
  if (pid_ <= 0) return;
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

bool TorchWorker::read_line(std::string* line, double timeout_s) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  while (true) {
    const size_t eol = pending_.find('\n');
    if (eol != std::string::npos) {
      *line = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      dead_ = fmt::format("no answer within {:.0f} s", timeout_s);
      return false;
    }
    pollfd fd{from_worker_, POLLIN, 0};
    const int n = ::poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) {
      dead_ = std::string("poll: ") + std::strerror(errno);
      return false;
    }
    if (n <= 0) continue;
    char buffer[65536];
    const ssize_t got = ::read(from_worker_, buffer, sizeof buffer);
    if (got > 0) {
      pending_.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      dead_ = "the worker exited";
      return false;
    }
  }
}

std::string TorchWorker::stderr_tail() const {
  std::ifstream in(scratch_ / "worker.stderr");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.empty()) return "";
  return ": " + (text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text);
}

GpuTiming TorchWorker::time(const OpCall& call, int warmups, int repeats, double timeout_s) {
  GpuTiming t;
  if (!dead_.empty()) {
    t.failure = "bench_torch_worker.py: " + dead_;
    return t;
  }
  const std::filesystem::path dir = scratch_ / fmt::format("request-{}", requests_++);
  std::filesystem::create_directory(dir);
  nlohmann::json req = {{"op", call.op},
                        {"args", nlohmann::json::object()},
                        {"tensors", nlohmann::json::object()},
                        {"out_file", (dir / "out.bin").string()},
                        {"warmups", warmups},
                        {"repeats", repeats}};
  for (const auto& [name, a] : call.args) req["args"][name] = arg_json(a);
  for (const auto& [name, tensor] : call.tensors) {
    const auto file = dir / (name + ".bin");
    std::ofstream out(file, std::ios::binary);
    const auto& storage = *tensor.storage();
    out.write(reinterpret_cast<const char*>(storage.data()), static_cast<std::streamsize>(storage.size()));
    if (!out) {
      t.failure = fmt::format("cannot write {}", file.string());
      return t;
    }
    req["tensors"][name] = {{"file", file.string()},
                            {"dtype", dtype_name(tensor.dtype())},
                            {"storage_elements", tensor.storage_elements()},
                            {"shape", tensor.shape()},
                            {"strides", tensor.strides()},
                            {"offset", tensor.offset()}};
  }
  std::string line;
  const bool answered = write_all(to_worker_, req.dump() + "\n") && read_line(&line, timeout_s);
  std::string why;
  const nlohmann::json reply = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!answered) {
    if (dead_.empty()) dead_ = "it stopped reading requests";
    t.failure = "bench_torch_worker.py: " + dead_ + stderr_tail();
  } else if (!reply.is_object()) {
    t.failure = "bench_torch_worker.py answered '" + line.substr(0, 200) + "'";
  } else if (reply.contains("failure")) {
    t.failure = "torch: " + reply["failure"].get<std::string>();
  } else if (auto out = read_output(dir / "out.bin", reply, &why)) {
    t.checksum = checksum(*out);
    for (const auto& s : reply.value("kernel_s", nlohmann::json::array())) t.kernel_s.push_back(s.get<double>());
    if (t.kernel_s.size() != static_cast<size_t>(repeats)) t.failure = "the worker's reply lacks kernel_s times";
    if (reply.value("to_device_bytes", 0.0) > 0) t.to_device_s = reply.value("to_device_s", NAN);
    if (reply.value("to_host_bytes", 0.0) > 0) t.to_host_s = reply.value("to_host_s", NAN);
    t.to_device_bytes = reply.value("to_device_bytes", 0.0);
    t.to_host_bytes = reply.value("to_host_bytes", 0.0);
  } else {
    t.failure = why;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return t;
}

}  // namespace sp::bench
