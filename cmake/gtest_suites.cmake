# gtest_suites.cmake — sp_add_gtest_suites(TARGET): one CTest test per
# GoogleTest suite of TARGET, named "Suite.*" and run as
# `TARGET --gtest_filter=Suite.*` (issue 28).
#
# Why not gtest_discover_tests' one test per case: every process of a
# binary that links LibTorch spends about 0.45 s of CPU in the dynamic
# loader and LibTorch's static initialisers before the first test runs
# (LD_DEBUG=statistics), which for 600 cases was 4+ minutes of the 8 of
# `scripts/test`. A suite's cases share a fixture and a subject, so one
# process per suite keeps CTest's parallelism and labels (cmake/test_labels.cmake
# matches "Suite."), while GoogleTest's own output still names each case.
#
# The suites are listed at CTest time (TARGET --gtest_list_tests), like
# gtest_discover_tests' PRE_TEST mode, so a rebuilt binary is never out of
# step with the tests CTest runs. A binary that cannot list its tests
# becomes one failing test, never an empty suite.
function(sp_add_gtest_suites target)
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  file(GENERATE OUTPUT ${script} CONTENT "
# No if(IN_LIST): CTest reads this file with no policies set (CMP0057), and
# setting one here would leak into CTestTestfile.cmake (CMP0011's warning).
include(${PROJECT_SOURCE_DIR}/cmake/test_labels.cmake)
set(exe [==[$<TARGET_FILE:${target}>]==])
execute_process(COMMAND \"\${exe}\" --gtest_list_tests OUTPUT_VARIABLE listing ERROR_VARIABLE errors
                RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  add_test(${target}_cannot_list_tests \"\${exe}\" --gtest_list_tests)
  return()
endif()
string(REPLACE \";\" \"\" listing \"\${listing}\")
string(REPLACE \"\\n\" \";\" lines \"\${listing}\")
# One name per CTest test: \"Suite.*\", or \"Suite.Case\" for each case of a
# suite in SP_GTEST_PER_CASE_SUITES (cmake/test_labels.cmake says which, why).
set(names \"\")
set(suite \"\")
foreach(line IN LISTS lines)
  if(line MATCHES \"^([^ #][^ ]*)\\\\.\")
    set(suite \"\${CMAKE_MATCH_1}\")
    list(FIND SP_GTEST_PER_CASE_SUITES \"\${suite}\" per_case)
    if(per_case EQUAL -1)
      list(APPEND names \"\${suite}.*\")
    endif()
  elseif(line MATCHES \"^  ([^ #]+)\")
    set(case_name \"\${CMAKE_MATCH_1}\")
    list(FIND SP_GTEST_PER_CASE_SUITES \"\${suite}\" per_case)
    if(NOT per_case EQUAL -1)
      list(APPEND names \"\${suite}.\${case_name}\")
    endif()
  endif()
endforeach()
set(fast_list \"\")
foreach(name IN LISTS names)
  add_test(\"\${name}\" \"\${exe}\" \"--gtest_filter=\${name}\")
  sp_test_labels(\"\${name}\" labels)
  set_tests_properties(\"\${name}\" PROPERTIES LABELS \"\${labels}\" TIMEOUT 900
                       WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==])
  list(FIND labels fast fast_at)
  if(fast_at GREATER -1)
    set_tests_properties(\"\${name}\" PROPERTIES FIXTURES_REQUIRED fast_tier)
    string(APPEND fast_list \"\${name}\\n\")
  endif()
endforeach()
# scripts/ci-budget reads which suites are fast from here.
file(WRITE [==[${CMAKE_CURRENT_BINARY_DIR}/fast-tests-${target}.txt]==] \"\${fast_list}\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
