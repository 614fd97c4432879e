// build_info.h — what `scatterproof --version` prints and every run records.
//
// The definitions are generated (cmake/build_info_gen.cmake, rerun on every
// build; the file changes only when the commit does).
#pragma once

#include <string>

namespace sp {

// The project version (CMakeLists.txt `project(... VERSION ...)`), e.g. "0.1.0".
const char* tool_version();
// The git commit built from: short hash, "-dirty" appended when tracked
// files differed from it at build time; "unknown commit" for a build
// without git or without .git (a source tarball).
const char* tool_commit();

// "scatterproof 0.1.0 (commit f5a7ff6-dirty)" / "scatterproof 0.1.0 (unknown commit)".
inline std::string tool_version_line() {
  const std::string commit = tool_commit();
  return "scatterproof " + std::string(tool_version()) + " (" +
         (commit == "unknown commit" ? commit : "commit " + commit) + ")";
}

}  // namespace sp
