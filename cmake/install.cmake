# `cmake --install`: the CLI, the plugin host beside it, the plugin SDK
# header, and a CMake package so a vendor's project can
#   find_package(scatterproof CONFIG REQUIRED)
#   target_link_libraries(my_plugin PRIVATE scatterproof::plugin_sdk)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS scatterproof scatterproof-plugin-host scatterproof-reaper RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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
  DESTINATION ${SP_CMAKE_PACKAGE_DIR})
