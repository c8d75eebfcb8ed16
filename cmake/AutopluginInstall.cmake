# Install rules and the CMake package: find_package(autoplugin) gives autoplugin::core.
include(CMakePackageConfigHelpers)

install(TARGETS autoplugin_core EXPORT autoplugin-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/autoplugin DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(AUTOPLUGIN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/autoplugin)
install(EXPORT autoplugin-targets NAMESPACE autoplugin:: DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
configure_package_config_file(cmake/autopluginConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfig.cmake INSTALL_DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/autopluginConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfigVersion.cmake
        DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
