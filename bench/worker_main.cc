// worker_main.cc — scatterproof-bench-worker: times one bench workload on
// one backend in this process, with the bench's own code (bench_core.h), and
// prints the result as one JSON line. `scatterproof bench` runs the
// build-libtorch-current/ copy of it for the contender libtorch-current
// (the current LibTorch cannot share a process with LibTorch 1.13).
//
//   scatterproof-bench-worker BACKEND --workload NAME --scale S --repeats R
//                             --threads T [--fresh]
//   scatterproof-bench-worker BACKEND --version
//
// stdout: {"backend", "version", "median_s", "times_s", "checksum",
// "peak_bytes" | "peak_unavailable", "note"?} or, when the backend failed the
// workload, "failure" instead of the timing fields; exit 0. --version prints
// {"backend", "version"}. --fresh: the backend allocates every output anew
// (BackendOptions::reuse_outputs = false). Exit 2 and a message on stderr for
// bad arguments, 4 when the backend is unavailable.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bench/bench_core.h"
#include "harness/exit_codes.h"

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "scatterproof-bench-worker: %s\nusage: scatterproof-bench-worker BACKEND --workload NAME --scale S "
               "--repeats R --threads T [--fresh] | BACKEND --version\n",
               why.c_str());
  return sp::exit_code::kUsage;
}

// A whole-string number, or false.
bool parse_number(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sp;
  if (argc < 3) return usage("too few arguments");
  const std::string backend_name = argv[1];
  std::string workload;
  double scale = 0, repeats = 0, threads = 0;
  bool fresh = false, version_only = false, int64_index = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fresh") {
      fresh = true;
    } else if (a == "--int64-index") {
      int64_index = true;
    } else if (a == "--version") {
      version_only = true;
    } else if (i + 1 < argc && (a == "--workload" || a == "--scale" || a == "--repeats" || a == "--threads")) {
      const std::string v = argv[++i];
      if (a == "--workload")
        workload = v;
      else if (!parse_number(v, a == "--scale" ? &scale : a == "--repeats" ? &repeats : &threads))
        return usage(a + " '" + v + "' is not a number");
    } else {
      return usage("unknown or incomplete argument '" + a + "'");
    }
  }
  const bench::WorkloadSpec* spec = nullptr;
  if (!version_only) {
    spec = bench::find_workload(workload);
    if (!spec) return usage("unknown workload '" + workload + "'");
    if (!(scale > 0 && scale <= 1)) return usage("--scale must be in (0, 1]");
    if (repeats < 1 || repeats != static_cast<int>(repeats)) return usage("--repeats must be an integer >= 1");
    if (threads < 1 || threads != static_cast<int>(threads)) return usage("--threads must be an integer >= 1");
  }

  BackendOptions options;
  options.threads = static_cast<int>(threads);
  options.reuse_outputs = !fresh;
  std::string why;
  auto backend = make_backend(backend_name, options, &why);
  if (!backend) {
    std::fprintf(stderr, "scatterproof-bench-worker: %s\n", why.c_str());
    return exit_code::kBackendUnavailable;
  }
  std::string line;
  if (version_only) {
    line = nlohmann::json{{"backend", backend_name}, {"version", backend->version()}}.dump();
  } else {
    const bench::Workload w = spec->build(scale);
    line = bench::worker_json_line(
        {backend_name, backend->version(), bench::time_backend(*backend, w, static_cast<int>(repeats), int64_index)});
  }
  std::printf("%s\n", line.c_str());
  return std::fflush(stdout) == 0 ? exit_code::kOk : exit_code::kUsage;
}
