# `cmake --install`: the CLI, the plugin host and reaper beside it, what the
# CLI reads at run time (share/scatterproof: adapters, specs, the Python
# adapter SDK), the plugin SDK header, and a CMake package so a vendor's project can
#   find_package(scatterproof CONFIG REQUIRED)
#   target_link_libraries(my_plugin PRIVATE scatterproof::plugin_sdk)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS scatterproof scatterproof-plugin-host scatterproof-reaper RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Keep the run path to libraries outside the system's (CUDA, LibTorch) in the installed binary.
set_target_properties(scatterproof PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# What the installed binary reads at run time, under <prefix>/share/scatterproof
# (backends/common/resource_paths.h finds it from the binary's own path,
# <bindir>/../share/scatterproof, so GNUInstallDirs' default datadir is assumed):
#   adapters/  manifest.json and the Python adapter scripts
#   python/    the scatterproof_adapter package (adapters/common.py finds it
#              at ../python/scatterproof_adapter/src; also pip-installable)
#   specs/     the spec suite, with its schema (specs/schema) and expectation files
# A build tree's binary has no share/ beside it and falls back to the source
# tree (SP_RESOURCE_SOURCE_DIR). The install_tree test (cmake/install_test.cmake)
# installs into a temporary prefix and runs the suite from there.
set(SP_DATA_DIR ${CMAKE_INSTALL_DATADIR}/scatterproof)
# On resource_paths.cc alone: a clone's path in a whole target's definitions
# makes ccache miss all of its objects in a fresh clone.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/backends/common/resource_paths.cc APPEND
             PROPERTY COMPILE_DEFINITIONS "SP_RESOURCE_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/adapters/ DESTINATION ${SP_DATA_DIR}/adapters
        FILES_MATCHING PATTERN "*.py" PATTERN "manifest.json" PATTERN "README.md"
        PATTERN "test_*.py" EXCLUDE PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/scatterproof_adapter DESTINATION ${SP_DATA_DIR}/python
        PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE PATTERN "build" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/specs/ DESTINATION ${SP_DATA_DIR}/specs
        PATTERN "__pycache__" EXCLUDE)
install(TARGETS sp_plugin_sdk EXPORT scatterproofTargets)
install(FILES ${PROJECT_SOURCE_DIR}/include/scatterproof/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scatterproof)

set(SP_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/scatterproof)
install(EXPORT scatterproofTargets NAMESPACE scatterproof:: DESTINATION ${SP_CMAKE_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/scatterproofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/scatterproofConfig.cmake
  INSTALL_DESTINATION ${SP_CMAKE_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
# The plugin ABI's major version is what must match; the package version
# follows the project's (0.x: same minor).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/scatterproofConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/scatterproofConfig.cmake ${PROJECT_BINARY_DIR}/scatterproofConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/scatterproofPlugin.cmake DESTINATION ${SP_CMAKE_PACKAGE_DIR})
# The coverage-guided plugin fuzzer, where this build has it (fuzz/CMakeLists.txt).
if(TARGET fuzz_plugin_guided)
  install(TARGETS fuzz_plugin_guided RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
