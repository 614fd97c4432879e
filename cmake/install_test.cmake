# install_test.cmake — the CTest test `install_tree`: `cmake --install` into a
# temporary prefix, then the installed binary, run from another temporary
# directory with the source-tree fallback off (SCATTERPROOF_NO_SOURCE_FALLBACK=1),
# runs the whole suite on reference,cpu, the numpy adapter from the installed
# adapters (the interpreter of this source tree's .venv, named by
# SCATTERPROOF_VENV_ROOT) and the example plugin through the installed plugin
# host (tests/install_check.py says what each step checks).
# Use: include(cmake/install_test.cmake) after cmake/install.cmake.
# `cmake --install` builds nothing: it copies what this build made, so the
# test installs whatever the last build left (CTest runs after the build).
# Not in the sanitizer build (SP_SANITIZE): an installed tree is a release
# artifact, and that build runs the same suite in place (spec_suite_all_layouts).
if(SP_BUILD_TESTS AND NOT SP_SANITIZE)
  add_test(NAME install_tree
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/install_check.py
                   --build ${PROJECT_BINARY_DIR} --venv-root ${PROJECT_SOURCE_DIR}
                   --plugin $<TARGET_FILE:sp_example_vendor_plugin>)
  set_tests_properties(install_tree PROPERTIES TIMEOUT 300)
endif()
