# Install rules and the CMake package: find_package(autoplugin) gives autoplugin::core.
include(CMakePackageConfigHelpers)

install(TARGETS autoplugin_core EXPORT autoplugin-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(AUTOPLUGIN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/autoplugin)
set(AUTOPLUGIN_WITH_TENSORRT OFF)
if(TARGET autoplugin_trt)
  # The adapter is built against one TensorRT's headers; consumers find the same TensorRT.
  set(AUTOPLUGIN_WITH_TENSORRT ON)
  install(TARGETS autoplugin_trt EXPORT autoplugin-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES src/trt/entry_points.cpp cmake/plugin_exports.map
          DESTINATION ${CMAKE_INSTALL_DATADIR}/autoplugin)
  install(FILES cmake/FindTensorRT.cmake cmake/AutopluginPlugins.cmake
          DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
endif()
set(AUTOPLUGIN_WITH_TRITON OFF)
if(TARGET autoplugin_triton)
  set(AUTOPLUGIN_WITH_TRITON ON)
  install(TARGETS autoplugin_triton EXPORT autoplugin-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES cmake/AutopluginTriton.cmake DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
  install(PROGRAMS tools/triton_aot.py DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
  install(FILES tools/triton_aot_embed.py tools/triton_aot_family.py
          DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
endif()
# The library entry points' link options and the PyTorch adapter (compiled into each PyTorch op
# library against the consumer's PyTorch).
install(FILES cmake/AutopluginLibraryApi.cmake cmake/AutopluginTorch.cmake
        DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
install(FILES src/torch/torch_ops.cpp src/torch/torch_signature.cpp src/torch/torch_signature.h
              src/torch/torch_values.cpp src/torch/torch_values.h src/torch/eager_module.cpp
              cmake/torch_exports.map
        DESTINATION ${CMAKE_INSTALL_DATADIR}/autoplugin/torch)
install(DIRECTORY include/autoplugin DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The Python package (pure Python), found by `autoplugin from-torch` beside the tool.
if(AUTOPLUGIN_INSTALL_PYTHON_PACKAGE)
  install(DIRECTORY python/autoplugin DESTINATION ${CMAKE_INSTALL_DATADIR}/autoplugin/python
          PATTERN "__pycache__" EXCLUDE)
endif()
install(FILES cmake/AutopluginCudaStandard.cmake DESTINATION ${AUTOPLUGIN_CMAKE_DIR})

install(EXPORT autoplugin-targets NAMESPACE autoplugin:: DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
configure_package_config_file(cmake/autopluginConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfig.cmake INSTALL_DESTINATION ${AUTOPLUGIN_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/autopluginConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/autopluginConfigVersion.cmake
        DESTINATION ${AUTOPLUGIN_CMAKE_DIR})
