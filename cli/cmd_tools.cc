// cmd_tools.cc — the subcommands of the layers beside the harness
// (commands.h): bench (bench/), and fuzz, repro and mutants (fuzz/): their
// options; each runs its layer's entry point.
#include <memory>

#include "bench/bench.h"
#include "bench/gpu_bench.h"
#include "cli/commands.h"
#include "fuzz/fuzz_cli.h"

namespace sp::cli {

Subcommand add_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "time fixed gather/scatter workloads side by side on several backends");
  bench->add_option("--threads", o->threads, "threads per backend (default: hardware)");
  bench->add_option("--repeats", o->repeats, "timed runs per workload and round (the median is reported)");
  bench->add_option("--rounds", o->rounds,
                    "rounds per workload, each timing every contender, order reversed every other round (default 2)");
  bench->add_option("--json", o->json_path, "also write the results as JSON");
  CLI::Option* backends =
      bench
          ->add_option("--backend", o->backends,
                       "comma-separated contenders (default cpu,cpu-fresh,libtorch-current,libtorch; cpu-fresh: cpu "
                       "without output reuse; libtorch-current: timed out of process, bench/bench.h; with --gpu: "
                       "cuda,cuda-deterministic,torch-cuda, or cuda-host,torch-cpu without a GPU)")
          ->delimiter(',');
  bench->add_option("--workload", o->workloads, "workload names or ids (e.g. 1,4b)")->delimiter(',');
  bench->add_option("--scale", o->scale, "shrink every workload by this factor in (0, 1]");
  bench->add_flag("--gpu", o->gpu,
                  "GPU contenders: kernel time (CUDA events) apart from host<->device copies, the device's copy "
                  "bandwidth in the header (bench/gpu_bench.h); exit 4 without a GPU");
  bench->add_option("--torch-python", o->torch_python,
                    "with --gpu: the Python with the torch of torch-cuda/torch-cpu (default: $SP_TORCH_PYTHON, "
                    "else .venv-current)");
  return {bench, [o, backends] {
            if (o->gpu && backends->count() == 0) o->backends = gpu_bench_default_backends();
            return o->gpu ? run_gpu_bench(*o) : run_bench(*o);
          }};
}

Subcommand add_fuzz(CLI::App& app) {
  auto o = std::make_shared<fuzz::FuzzOptions>();
  CLI::App* fuzz_cmd =
      app.add_subcommand("fuzz", "a fuzz campaign: bucket disagreements, shrink each to a one-file repro spec");
  fuzz_cmd->add_option("--backend", o->backend, "the backend under test")->required();
  fuzz_cmd->add_option("--seconds", o->seconds, "time budget")->capture_default_str();
  fuzz_cmd->add_option("--seed", o->seed, "0: from the clock (printed)");
  fuzz_cmd->add_option("--out", o->out_dir, "where repro-*.json and findings.{json,md} go")->capture_default_str();
  fuzz_cmd->add_option("--max-cases", o->max_cases, "stop after this many cases");
  fuzz_cmd->add_option("--max-findings", o->max_findings, "stop after this many distinct findings (0: none)")
      ->capture_default_str();
  fuzz_cmd->add_option("--shrink-seconds", o->shrink_seconds, "shrinking budget per distinct finding")
      ->capture_default_str();
  fuzz_cmd
      ->add_option("--history", o->history,
                   "earlier cases kept per backend process, replayed (fuzz/history.h) when a finding does not "
                   "reproduce alone (0: no replay)")
      ->capture_default_str();
  fuzz_cmd->add_option("--history-seconds", o->history_seconds, "history replay budget per distinct finding")
      ->capture_default_str();
  fuzz_cmd->add_option("--backend-threads", o->threads, "threads the backend may use (0: the hardware's)")
      ->capture_default_str();
  fuzz_cmd->add_option("--op", o->ops, "generate only ops matching this id glob (repeatable)");
  fuzz_cmd->add_flag("--programs", o->programs,
                     "generate programs of 2 to 4 steps (a write, a view, a read, a write back) instead of single "
                     "calls (docs/fuzzing.md)");
  fuzz_cmd->add_option("--timeout", o->timeout_s, kTimeoutHelp)->check(CLI::Range(0.001, 1e6));
  fuzz_cmd->add_option("--expectations", o->expectations,
                       "expectation file whose entries are the backend's known deviations (repeatable)");
  return {fuzz_cmd, [o] { return fuzz::fuzz_main(*o); }};
}

Subcommand add_repro(CLI::App& app) {
  auto o = std::make_shared<fuzz::ReproOptions>();
  CLI::App* repro_cmd =
      app.add_subcommand("repro", "replay a repro spec on the reference and the named backends, explained");
  repro_cmd->add_option("file", o->file, "a spec file (e.g. a fuzz repro)")->required();
  repro_cmd->add_option("--backend", o->backends, "backends to replay on (repeatable; default: cpu)")->delimiter(',');
  repro_cmd->add_option("--timeout", o->timeout_s, kTimeoutHelp)->check(CLI::Range(0.001, 1e6));
  return {repro_cmd, [o] { return fuzz::repro_main(*o); }};
}

Subcommand add_mutants(CLI::App& app) {
  auto o = std::make_shared<fuzz::MutantsOptions>();
  CLI::App* mutants_cmd =
      app.add_subcommand("mutants", "is every deliberately wrong backend caught, by the specs and by fuzzing?");
  mutants_cmd->add_option("--seconds-per-mutant", o->seconds_per_mutant, "fuzzing budget per mutant")
      ->capture_default_str();
  mutants_cmd
      ->add_option("--cases-per-mutant", o->cases_per_mutant,
                   "stop fuzzing a mutant after this many cases (0: only the time budget); with a fixed seed the "
                   "same cases on every machine, so a kill does not depend on the machine's speed")
      ->capture_default_str();
  mutants_cmd->add_option("--json", o->json_file, "also write the table as JSON");
  mutants_cmd->add_option("--seed", o->seed, "fuzzing seed");
  mutants_cmd->add_option(
      "--specs", o->spec_paths,
      "spec paths (default: the installed share/scatterproof/specs, else the source tree's specs/)");
  mutants_cmd->add_option("--only", o->only, "only these mutants")->delimiter(',');
  return {mutants_cmd, [o] { return fuzz::mutants_main(*o); }};
}

}  // namespace sp::cli
