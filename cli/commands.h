// commands.h — the subcommands of `scatterproof` (cli/): each one adds its
// options to the app and returns what runs it once the command line is
// parsed, so run_cli (main.cc) only lists them and dispatches. Internal to
// cli/.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace sp::cli {

// One subcommand: its CLI11 app, and what runs it when it was the one given
// (returns the exit code, harness/exit_codes.h).
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

// The help of --timeout (run, fuzz, repro).
inline const std::string kTimeoutHelp =
    "seconds a process/plugin backend gets per case, 3x per start (default: SCATTERPROOF_CASE_TIMEOUT_S, else 10)";

// The spec suite a command uses when given no paths: ./specs where it is a
// directory, else the installed share/scatterproof/specs (or, in a build
// tree, the source tree's), else "specs" (so the error names it).
std::string default_specs_dir();

// The backends that can be created here (a GPU backend without a GPU, a
// framework that is not installed, a prefix like "process:" are left out).
// A "NAME@cpu" device variant is left out too: it runs what NAME runs, on
// the same device (it is there to be named, e.g. beside NAME@cuda), so a run
// over every usable backend would only run NAME twice.
std::vector<std::string> usable_backend_names();

// `run` (cmd_run.cc); `argv`: the whole command line, for the plan's command.
Subcommand add_run(CLI::App& app, std::vector<std::string> argv);

// The subcommands of the layers beside the harness (cmd_tools.cc).
Subcommand add_bench(CLI::App& app);
Subcommand add_fuzz(CLI::App& app);
Subcommand add_repro(CLI::App& app);
Subcommand add_mutants(CLI::App& app);

}  // namespace sp::cli
