# test_labels.cmake — every CTest test's labels, from one table (issue 28).
#
# Each test gets exactly one tier label, the first rule below whose regex
# matches its name (default: fast):
#   fast       unit tests and cheap checks: `ctest -L fast` is the developer's
#              loop, held to SP_FAST_BUDGET_SECONDS of test time by
#              scripts/ci-budget (run by scripts/test after CTest);
#   framework  starts a Python framework or another LibTorch (adapters,
#              libtorch-current): seconds of import per process;
#   slow       end-to-end suites (spec suite in every layout, hostile kit,
#              bench, install, browser, mutants);
#   nightly    left out of scripts/test and .ci/run, run by the scheduled
#              workflow (.github/workflows/nightly.yml) only.
# and the label `sanitize` when it is in the ASan+UBSan subset that
# `scripts/test --sanitize` runs on every submission (docs/ci.md says why
# each omitted group cannot find a memory error the kept ones miss).
#
# sp_apply_test_labels() labels every test of the calling directory; the
# GoogleTest suites, known only after the build, are labelled at CTest time
# by sp_test_labels too (cmake/gtest_suites.cmake).

set(SP_FAST_BUDGET_SECONDS 200)  # sum of the fast tests' durations; scripts/ci-budget (docs/ci.md: why 200)

# GoogleTest suites run as one CTest test per case ("Suite.Case") instead of
# one per suite ("Suite.*", cmake/gtest_suites.cmake): suites whose cases take
# minutes under ASan+UBSan, where one process for the whole suite was the
# longest test of `scripts/test --sanitize` (CpuBackendTest: 7.5 minutes of
# one core, 900 s and a timeout on a loaded host) and CTest could not spread
# it over the cores. The labels below match "Suite." either way.
set(SP_GTEST_PER_CASE_SUITES CpuBackendTest)

set(SP_TIER_RULES
    # nightly: the emulated OSS-Fuzz build (two clang trees, 10+ minutes);
    # the @cpu device variant of torch 1.13 (the current torch's variant,
    # the one GPU hosts run, stays on every submission); the 2^31 boundary
    # (about 12 GiB, minutes)
    "^(oss_fuzz_build|real_torch_python_at_cpu|real_torch_compile_current_dynamic|huge_2p31)$=nightly"
    # framework: adapters and the out-of-process LibTorch
    "^(real_|numpy_adapter|onnx_|adapter_|fuzz_smoke_torch_python|ProcessAdapters\\.|OnnxAdapterOperands\\.)=framework"
    "^(bench_libtorch_current_int32|device_assert_emulated)$=framework"
    # slow: end-to-end suites
    "^(spec_suite_all_layouts|spec_suite_cuda_host|cuda_host_mutant_.*|hostile_.*|bench_smoke|install_tree)$=slow"
    "^(html_report_browser|cli_plan|cli_progress|mutant_kills|plugin_example_suite|plugin_planted_none_suite)$=slow"
    "^plugin_guided_=slow"
    "^(FuzzProperties|FuzzMutants|LibTorchFuzz[A-Za-z]*|FuzzCampaign|Bench|CpuBackendTest)\\.=slow")

set(SP_SANITIZE_RULES
    # memory: the loader, the supervisor and the protocol, the plugin host,
    # the kernels (cpu, and the CUDA kernel bodies through the host
    # launcher), the report writers and the hostile inputs. docs/ci.md says,
    # group by group, why each test left out cannot find a memory error the
    # kept ones miss (the nightly job runs them all under ASan+UBSan).
    "^(Hostile[A-Za-z]*|SpecLoader[A-Za-z]*|Process[A-Za-z]*|Modes/ProcessIsolation|Serve|PluginIsolation|ExamplePlugin|PluginSdk|SideEffects[A-Za-z]*|Device[A-Za-z]*)\\."
    "^(Cpu[A-Za-z]*|CudaHost[A-Za-z]*|TorchOutCpu|CoreTensor|CoreOutputBuilder|Report[A-Za-z]*|JunitXml|ResultStream|FuzzEngine|FuzzShrink|Repro)\\."
    "^(fuzz_corpus_.*|spec_suite_all_layouts|spec_suite_cuda_host|plugin_example_suite|fuzz_smoke_cpu|fuzz_smoke_plugin)$"
    # programs (issue 32): their reference and their runs on in-process backends (each under 10 s)
    "^(ProgramReference|ProgramRun)\\."
    # the hostile kit, one check per class of input (the rest differ in size
    # or in which subcommand reads the same loader output)
    "^hostile_loader_(far_view_layouts|spec_dir_with_loops_dangling_and_fifo|errors_quote_numbers_and_strings_short)$"
    "^hostile_(outputs_outputs_bigger_than_the_limit_are_spec_errors|process_a_timed_out_case_leaves_no_setsid_grandchild)$"
    "^hostile_process_(sigterm_of_the_harness_leaves_no_adapter_or_grandchild|an_adapter_that_hangs_at_every_restart_costs_a_bounded_time)$"
    "^hostile_runs_(report_md_escapes_control_bytes_from_provenance|sigint_finishes_the_record_and_exits_130|cases_spread_over_many_files_stream)$")

# sp_test_labels(NAME OUT): the labels of test NAME.
function(sp_test_labels name out)
  set(tier fast)
  foreach(rule IN LISTS SP_TIER_RULES)
    string(REGEX MATCH "^(.*)=([a-z]+)$" _ "${rule}")
    set(regex "${CMAKE_MATCH_1}")
    set(rule_tier "${CMAKE_MATCH_2}")  # before if(MATCHES), which resets CMAKE_MATCH_n
    if(name MATCHES "${regex}")
      set(tier ${rule_tier})
      break()
    endif()
  endforeach()
  set(labels ${tier})
  foreach(regex IN LISTS SP_SANITIZE_RULES)
    if(name MATCHES "${regex}")
      list(APPEND labels sanitize)
      break()
    endif()
  endforeach()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# Labels every test added so far in the calling directory, keeping labels
# a test already has (e.g. oss_fuzz_build's). A fast test requires the
# fixture fast_tier, whose cleanup is the budget check fast_budget
# (cmake/ci_tests.cmake): CTest then runs the check after every fast test.
function(sp_apply_test_labels)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    if(test STREQUAL "fast_budget")
      continue()
    endif()
    sp_test_labels("${test}" labels)
    get_test_property(${test} LABELS old)
    if(old)
      list(APPEND labels ${old})
    endif()
    set_tests_properties(${test} PROPERTIES LABELS "${labels}")
    if("fast" IN_LIST labels)
      set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED fast_tier)
      # scripts/ci-budget reads which tests are fast from these lists
      # (asking ctest itself would overwrite the running CTest's log).
      file(APPEND ${PROJECT_BINARY_DIR}/fast-tests.txt "${test}\n")
    endif()
  endforeach()
endfunction()
