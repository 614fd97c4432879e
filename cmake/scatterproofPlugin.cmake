# scatterproof_plugin(NAME SOURCES source... [COVERAGE])
#
# A vendor plugin (<scatterproof/plugin.h>): a shared library linked with
# scatterproof::plugin_sdk that exports nothing but sp_plugin_entry (hidden
# visibility; the SDK marks the entry point SP_PLUGIN_EXPORT).
#
# COVERAGE builds it for coverage-guided fuzzing (docs/fuzzing.md,
# "Coverage-guided fuzzing of a plugin"): its edges instrumented with
# -fsanitize=fuzzer-no-link, so fuzz_plugin_guided, which loads it in process,
# is steered by the plugin's own coverage. That needs clang for every
# language of the plugin (CC=clang CXX=clang++); with another compiler
# configuring stops and says so. Leave it off for the plugin you ship and run
# with `scatterproof run --backend plugin:PATH`.
function(scatterproof_plugin name)
  cmake_parse_arguments(arg "COVERAGE" "" "SOURCES" ${ARGN})
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "scatterproof_plugin(${name}): no SOURCES given")
  endif()
  add_library(${name} SHARED ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE scatterproof::plugin_sdk)
  set_target_properties(${name} PROPERTIES C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden)
  if(arg_COVERAGE)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    foreach(lang IN ITEMS C CXX)
      if(lang IN_LIST languages AND NOT CMAKE_${lang}_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "scatterproof_plugin(${name} COVERAGE) needs clang: the ${lang} compiler is "
                            "${CMAKE_${lang}_COMPILER_ID} (configure with CC=clang CXX=clang++)")
      endif()
    endforeach()
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer-no-link -g)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
