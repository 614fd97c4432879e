# The OSS-Fuzz / ClusterFuzzLite build contract, checked on this machine:
# scripts/check-oss-fuzz-build emulates the base-builder (clang, libFuzzer,
# SRC/WORK/OUT, the sanitizer given only through CFLAGS/CXXFLAGS), runs
# .clusterfuzzlite/build.sh twice (ASan + libFuzzer, then UBSan + a standalone
# engine, which proves no sanitizer or engine is hard-coded) and runs every
# produced target on its seed corpus for a bounded number of executions.
# It builds its own trees in a temporary directory with clang, so it is left
# out of the sanitized build (SP_SANITIZE) and of the fuzzing builds
# themselves; it uses both cores, hence PROCESSORS 2.
if(SP_BUILD_TESTS AND NOT SP_SANITIZE AND NOT SP_FUZZERS AND NOT SP_LIB_FUZZING_ENGINE)
  add_test(NAME oss_fuzz_build COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check-oss-fuzz-build --runs 2000
                                       --seconds 60)
  set_tests_properties(oss_fuzz_build PROPERTIES TIMEOUT 2400 LABELS "oss-fuzz;ci-integration" PROCESSORS 2)
endif()
