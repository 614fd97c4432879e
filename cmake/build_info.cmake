# The tool's version and the git commit it was built from (harness/build_info.h).
#
# The commit is read at BUILD time, not only at configure time: the custom
# target sp_build_info_gen runs cmake/build_info_gen.cmake on every build,
# which asks git for the short hash (+ "-dirty" when tracked files differ
# from HEAD; "unknown commit" without git or .git, e.g. a tarball) and
# rewrites ${SP_BUILD_INFO_CC} only when that text changed, so an unchanged
# commit recompiles and relinks nothing.
set(SP_BUILD_INFO_CC ${PROJECT_BINARY_DIR}/generated/build_info.cc)
find_package(Git QUIET)
add_custom_target(
  sp_build_info_gen
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${SP_BUILD_INFO_CC}
          -DVERSION=${PROJECT_VERSION} -DGIT_EXECUTABLE=${GIT_EXECUTABLE} -P
          ${PROJECT_SOURCE_DIR}/cmake/build_info_gen.cmake
  BYPRODUCTS ${SP_BUILD_INFO_CC}
  COMMENT "Checking the git commit for --version"
  VERBATIM)
# At configure time too, so the file exists before the first build.
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${SP_BUILD_INFO_CC}
                        -DVERSION=${PROJECT_VERSION} -DGIT_EXECUTABLE=${GIT_EXECUTABLE} -P
                        ${PROJECT_SOURCE_DIR}/cmake/build_info_gen.cmake)
target_sources(sp_harness PRIVATE ${SP_BUILD_INFO_CC})
add_dependencies(sp_harness sp_build_info_gen)
