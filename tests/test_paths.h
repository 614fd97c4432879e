// test_paths.h — where the tests find the source tree and this build's
// helper binaries and test plugins.
//
// The paths are absolute and differ between clones, so they are compiled
// into one translation unit (tests/test_paths.cc, its compile definitions
// set in CMakeLists.txt) rather than given to every test file: a definition
// that holds a clone's path is part of every compile command that has it,
// and ccache then misses every such object in a fresh clone (CI's).
#pragma once

#include <string>

namespace sp::test {

// The source tree this build was configured from (no trailing slash).
std::string source_dir();
// The folder holding the test plugins (tests/data/plugin) of this build.
std::string plugin_dir();
// This build's scatterproof-serve.
std::string serve_binary();

}  // namespace sp::test
