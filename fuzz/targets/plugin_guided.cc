// plugin_guided.cc — coverage-guided fuzzing of a vendor plugin
// (docs/fuzzing.md, "Coverage-guided fuzzing of a plugin").
//
//   SP_FUZZ_PLUGIN=/path/libvendor.so build/fuzz_plugin_guided [libFuzzer flags] [CORPUS_DIR]
//
// libFuzzer's bytes are the case generator's choice sequence (4 bytes per
// choice, little-endian; zeros past the end), generating calls of the ops
// the plugin offers. The plugin is loaded in this process (plugin_call.h), so
// when it is built with -fsanitize=fuzzer-no-link (the SDK's
// `scatterproof_plugin(... COVERAGE)`) its own edge coverage is what steers
// libFuzzer: this program itself is not instrumented. Each call runs through
// the reference and the plugin; a disagreement is a finding:
//   - it is shrunk and written as a one-file repro spec into
//     SP_FUZZ_REPRO_DIR (default "."), replayable with
//     `scatterproof repro FILE --backend plugin:/path/libvendor.so`;
//   - then the target aborts, and libFuzzer saves the input (crash-*).
// A crash, a leak or a sanitizer report inside the plugin is caught by
// libFuzzer the same way, with its input saved; replaying the input
// (`fuzz_plugin_guided crash-*`) with SP_FUZZ_WRITE_CASE=DIR writes the call
// as a spec into DIR before the plugin runs, so even a crash leaves its repro.
//
// Mutations: libFuzzer's own on the choice bytes, and 1 in SP_FUZZ_FRESH
// (default 4; 0: none) a case the generator draws afresh
// (LLVMFuzzerCustomMutator below).
//
// SP_FUZZ_NO_SHRINK=1 leaves the finding unshrunk (the bench's mode:
// "found after N inputs, T s" is printed first either way).
//
// SP_FUZZ_BLIND=1 ignores libFuzzer's bytes: every input generates a call
// from a fresh seed (-seed's value times 2654435761 mod 2^32, plus 1, 2, ...), the plain generator
// as `scatterproof fuzz` draws it, at the same speed: the baseline of the
// time-to-find comparison (scripts/plugin-guided-bench).
//
// The isolated plugin host (`--backend plugin:PATH`) stays the default for
// runs: here a plugin that crashes takes this process down, which libFuzzer
// reports with the input.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/plugin/plugin_call.h"
#include "fuzz/case_gen.h"
#include "fuzz/engine.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace {

// The plugin as an in-process backend: each call answered as the plugin
// host answers it (the same code), decoded as the harness decodes it.
class InProcessPlugin : public sp::Backend {
 public:
  InProcessPlugin(std::string path, const sp_plugin& plugin) : path_(std::move(path)), plugin_(plugin) {
    channel_.program = "fuzz_plugin_guided";
    channel_.out = stderr;
    for (const std::string& op : sp::plugin::hello_reply(plugin).ops) ops_.push_back(op);
  }
  std::string name() const override { return "plugin:" + path_; }
  std::string description() const override { return "a plugin called in process (coverage-guided fuzzing)"; }
  bool implements(std::string_view op) const override {
    for (const std::string& o : ops_)
      if (o == op) return true;
    return false;
  }
  sp::Outcome run(const sp::OpCall& call) override {
    sp::OpCall c = call;  // the same storages: the plugin's writes are the caller's to see
    const nlohmann::json answer = sp::plugin::run_case(channel_, plugin_, ++id_, c);
    return sp::protocol::decode_response(answer, id_);
  }
  const std::vector<std::string>& ops() const { return ops_; }

 private:
  std::string path_;
  const sp_plugin& plugin_;
  sp::protocol::Channel channel_;
  std::vector<std::string> ops_;
  uint64_t id_ = 0;
};

struct State {
  std::unique_ptr<InProcessPlugin> backend;
  std::vector<const sp::OpSpec*> ops;
  bool blind = false;
  uint64_t next_seed = 1;
  std::string repro_dir = ".";
  std::string write_case;  // a directory
  bool shrink = true;
  uint32_t fresh_one_in = 4;  // SP_FUZZ_FRESH: 1 in N mutations is a freshly generated case (0: none)
  uint64_t inputs = 0;
  std::chrono::steady_clock::time_point start;
};
State& state() {
  static State s;
  return s;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "fuzz_plugin_guided: %s\n"
               "usage: SP_FUZZ_PLUGIN=/path/libvendor.so fuzz_plugin_guided [libFuzzer flags] [CORPUS_DIR]\n"
               "  (SP_FUZZ_BLIND=1: blind generation; SP_FUZZ_REPRO_DIR: where repro specs go; "
               "SP_FUZZ_WRITE_CASE=DIR: write each call as a spec before it runs)\n",
               why.c_str());
  std::exit(2);
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// -seed=N among libFuzzer's flags: the blind mode's first seed.
uint64_t seed_flag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "-seed=", 6) == 0) return std::strtoull(argv[i] + 6, nullptr, 10);
  return 1;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  State& s = state();
  const char* path = env("SP_FUZZ_PLUGIN");
  if (!path) usage("SP_FUZZ_PLUGIN names no plugin");
  const sp::plugin::LoadedPlugin loaded = sp::plugin::load_plugin(path);
  if (!loaded.plugin) usage(loaded.refusal);
  s.backend = std::make_unique<InProcessPlugin>(path, *loaded.plugin);
  for (const std::string& op : s.backend->ops())
    if (const sp::OpSpec* spec = sp::find_op(op); spec && spec->backward_of.empty()) s.ops.push_back(spec);
  if (s.ops.empty()) usage(std::string("plugin ") + path + " offers no forward op of the table");
  s.blind = env("SP_FUZZ_BLIND") != nullptr;
  // Runs of different -seed start far apart in the generator's 32-bit seed space.
  s.next_seed = static_cast<uint32_t>(seed_flag(*argc, *argv) * 2654435761u);
  if (const char* d = env("SP_FUZZ_REPRO_DIR")) s.repro_dir = d;
  if (const char* f = env("SP_FUZZ_WRITE_CASE")) s.write_case = f;
  s.shrink = env("SP_FUZZ_NO_SHRINK") == nullptr;
  if (const char* f = env("SP_FUZZ_FRESH")) s.fresh_one_in = static_cast<uint32_t>(std::strtoul(f, nullptr, 10));
  s.start = std::chrono::steady_clock::now();
  std::fprintf(stderr, "fuzz_plugin_guided: %s, %zu ops, %s generation\n", path, s.ops.size(),
               s.blind ? "blind" : "coverage-guided");
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// libFuzzer's mutations of the choice bytes, and (1 in SP_FUZZ_FRESH) a
// case drawn afresh by the generator from `seed`: the corpus then holds the
// generator's own distribution (sizes, layouts, dtypes, edge values) for
// coverage to select and mutate from, where an empty start would grow from
// the all-zero choices (the smallest case) alone.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  State& s = state();
  if (s.blind || s.fresh_one_in == 0 || seed % s.fresh_one_in != 0) return LLVMFuzzerMutate(data, size, max_size);
  sp::fuzz::Choices c(seed);
  (void)sp::fuzz::generate_call(c, s.ops);
  const size_t bytes = std::min(c.consumed().size() * 4, max_size / 4 * 4);
  std::memcpy(data, c.consumed().data(), bytes);
  return bytes;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  State& s = state();
  ++s.inputs;
  std::vector<uint32_t> choices(size / 4);
  if (!choices.empty()) std::memcpy(choices.data(), data, choices.size() * 4);
  sp::fuzz::Choices c = s.blind ? sp::fuzz::Choices(s.next_seed++) : sp::fuzz::Choices::replay(std::move(choices));
  const sp::OpCall call = sp::fuzz::generate_call(c, s.ops);
  if (!s.write_case.empty()) {
    std::fprintf(stderr, "fuzz_plugin_guided: the call about to run: %s\n", call.describe().c_str());
    sp::fuzz::Trial pending;
    pending.call = call;
    pending.expectation = sp::evaluate(call);
    const std::string file =
        sp::fuzz::write_repro(sp::fuzz::repro_case(pending, s.backend->name()), s.backend->name(), s.write_case);
    std::fprintf(stderr, "fuzz_plugin_guided: written as %s\n", file.c_str());
  }
  const sp::fuzz::Trial t = sp::fuzz::judge_call(*s.backend, call);
  if (!sp::fuzz::is_finding(t.verdict.kind)) return 0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  std::fprintf(stderr, "fuzz_plugin_guided: found after %llu inputs, %.2f s: %s: %s\n  %s\n",
               static_cast<unsigned long long>(s.inputs), seconds,
               std::string(sp::verdict_name(t.verdict.kind)).c_str(), call.describe().c_str(),
               t.verdict.detail.c_str());
  if (!s.shrink) std::abort();  // SP_FUZZ_NO_SHRINK: libFuzzer's crash input is the repro
  sp::fuzz::Trial found = t;
  found.choices = c.consumed();
  const sp::fuzz::Shrunk shrunk = sp::fuzz::shrink_finding(*s.backend, found);
  const std::string file =
      sp::fuzz::write_repro(sp::fuzz::repro_case(shrunk.trial, s.backend->name()), s.backend->name(), s.repro_dir);
  std::fprintf(stderr, "fuzz_plugin_guided: shrunk to %s\n  repro: %s\n", shrunk.trial.call.describe().c_str(),
               file.c_str());
  std::abort();
}
