// resource_paths.h — where a scatterproof binary finds what it needs at run
// time besides itself: its helper programs, the Python adapters, the specs
// and the Python environments. One lookup, used by every caller, so an
// installed tree and a build tree follow the same rules.
//
// Installed tree (`cmake --install build --prefix P`, cmake/install.cmake):
//   P/bin/scatterproof, P/bin/scatterproof-plugin-host, P/bin/scatterproof-reaper
//   P/share/scatterproof/adapters/   manifest.json and the adapter scripts
//   P/share/scatterproof/python/     the scatterproof_adapter package (adapters/common.py finds it)
//   P/share/scatterproof/specs/      the spec suite, its schema and expectation files
// found from the running executable (/proc/self/exe: <dir>/../share/scatterproof),
// never from the build-time source path. A build tree's binary has no share/
// beside it and falls back to the source tree it was configured from
// (SP_SOURCE_DIR) and the helper programs this build made.
//
// Environment:
//   SCATTERPROOF_NO_SOURCE_FALLBACK=1  no fallback to the source or build tree
//                                      (what the install_tree test sets: the
//                                      installed layout alone must suffice)
//   SCATTERPROOF_VENV_ROOT=DIR         the directory holding the adapters'
//                                      virtual environments (.venv,
//                                      .venv-current); default: the source tree
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sp::resources {

// The directory of the running executable ("" when the system does not say).
std::filesystem::path executable_dir();
// <executable_dir>/../share/scatterproof when it exists, else "".
std::filesystem::path installed_data_dir();
// The source tree this build was configured from, or "" when
// SCATTERPROOF_NO_SOURCE_FALLBACK is set (to anything but "" or "0").
std::filesystem::path source_fallback_dir();
// `relative` (e.g. "adapters/manifest.json", "specs") under the installed data
// directory, else under the source tree; "" when neither has it. `looked` (if
// given) receives every place tried, for error messages.
std::filesystem::path find(const std::filesystem::path& relative, std::vector<std::string>* looked = nullptr);
// A helper program (scatterproof-plugin-host, scatterproof-reaper): beside the
// running executable, else `build_path` (this build's copy) unless the
// fallback is disabled; "" when neither is executable.
std::string helper_program(const std::string& name, const std::string& build_path);
// The virtual environment `venv` (".venv", ".venv-current"):
// $SCATTERPROOF_VENV_ROOT/venv, else <source tree>/venv; the path tried even
// when it does not exist (so the caller can name it), "" when no root is known.
std::filesystem::path venv_dir(const std::string& venv);
// One line for --help and error messages: where the installed data and the
// fallback are, e.g. "resources: /opt/sp/share/scatterproof (installed)".
std::string describe();

}  // namespace sp::resources
