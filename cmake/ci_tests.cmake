# ci_tests.cmake — the CI tier's checks of detection power (issue 28):
#   mutant_kills      every mutant of backends/mutant killed by fuzzing, and by
#                     the spec case the baseline fuzz/mutant-kills.json says
#                     (scripts/check-mutant-kills): 69 kills measured on every
#                     submission instead of by hand;
#   fuzz_smoke_*      a bounded `scatterproof fuzz` per backend family: in
#                     process (cpu), the plugin host (the example vendor
#                     plugin) and an out-of-process Python adapter
#                     (torch-python-current). LibTorch in process is fuzzed
#                     by the LibTorchFuzz* unit tests; its 10-minute
#                     campaigns, whose open findings are listed in
#                     real-frameworks.json per case, run nightly. A fixed seed and
#                     a case budget keep each run the same on every machine;
#                     the time limit only bounds a slow one. Known deviations of
#                     the real frameworks are the campaign expectation file's.
# The scheduled workflow (.github/workflows/nightly.yml) runs the same
# commands for 10 minutes a backend.
if(NOT SP_BUILD_TESTS)
  return()
endif()

# The fast label's budget (scripts/ci-budget, SP_FAST_BUDGET_SECONDS): the
# cleanup of the fixture every fast test requires, so it runs after them.
if(NOT SP_SANITIZE)  # sanitized durations are not the fast loop's
  add_test(NAME fast_budget COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/ci-budget
                                    --build ${PROJECT_BINARY_DIR})
  set_tests_properties(fast_budget PROPERTIES FIXTURES_CLEANUP fast_tier LABELS fast)
endif()

add_test(NAME mutant_kills COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check-mutant-kills
                                   --build ${PROJECT_BINARY_DIR})
set_tests_properties(mutant_kills PROPERTIES TIMEOUT 900)

set(SP_FUZZ_EXPECTATIONS ${PROJECT_SOURCE_DIR}/specs/expectations/fuzz-campaigns.json)
# sp_add_fuzz_smoke(NAME BACKEND CASES SECONDS [--op GLOB]...)
function(sp_add_fuzz_smoke name backend cases seconds)
  add_test(NAME fuzz_smoke_${name}
           COMMAND scatterproof fuzz --backend ${backend} --seed 1 --max-cases ${cases} --seconds ${seconds}
                   --expectations ${SP_FUZZ_EXPECTATIONS} --out ${PROJECT_BINARY_DIR}/fuzz-smoke/${name} ${ARGN})
  set_tests_properties(fuzz_smoke_${name} PROPERTIES TIMEOUT 600)
endfunction()
sp_add_fuzz_smoke(cpu cpu 20000 60)
sp_add_fuzz_smoke(plugin plugin:$<TARGET_FILE:sp_example_vendor_plugin> 5000 60)
# torch.take_along_dim is left to the nightly campaign: torch 2.15's open
# deviations there (specs/regressions/torch-take-along-dim-*) are listed per
# case in real-frameworks.json, not by clause, so a campaign reports them.
sp_add_fuzz_smoke(torch_python_current torch-python-current 500 120 --op torch.gather --op torch.scatter*
                  --op torch.index_*)
