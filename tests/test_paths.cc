// test_paths.cc — the one place the build's absolute paths are compiled in
// (tests/test_paths.h says why).
#include "tests/test_paths.h"

#if !defined(SP_TEST_SOURCE_DIR) || !defined(SP_TEST_PLUGIN_DIR) || !defined(SP_TEST_SERVE)
#error "SP_TEST_SOURCE_DIR, SP_TEST_PLUGIN_DIR and SP_TEST_SERVE are set for this file in CMakeLists.txt"
#endif

namespace sp::test {

std::string source_dir() { return SP_TEST_SOURCE_DIR; }
std::string plugin_dir() { return SP_TEST_PLUGIN_DIR; }
std::string serve_binary() { return SP_TEST_SERVE; }

}  // namespace sp::test
