include(AutopluginLibraryApi)

# autoplugin_add_library(NAME [SOURCES file...] [LINK target...])
#
# A TensorRT plugin library with every op declared in SOURCES (and in the LINKed object
# libraries): loadable with `trtexec --dynamicPlugins=libNAME.so`, IPluginRegistry::loadLibrary
# and `--setPluginsToSerialize`. It exports getCreators and setLoggerFinder for TensorRT, and the
# autoplugin_library_v1_* entry points (include/autoplugin/backend/library_api.h) for autoplugin's tools.
# LINK object libraries (or sources), not static libraries: the linker drops static-library
# members nothing references, and the ops declared in them with them.
#
# CUDA sources compile as C++20 (see AutopluginCudaStandard.cmake; the flag is set in the calling
# directory). Declaration sites print relative to the top-level source folder: the library holds
# no absolute paths of its sources.
function(autoplugin_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/AutopluginCudaStandard.cmake)
  foreach(variable CMAKE_CUDA20_STANDARD_COMPILE_OPTION CMAKE_CUDA20_EXTENSION_COMPILE_OPTION)
    set(${variable} "${${variable}}" PARENT_SCOPE)
  endforeach()
  add_library(${name} SHARED ${ARG_SOURCES} ${AUTOPLUGIN_ENTRY_POINTS_SOURCE})
  target_link_libraries(${name} PRIVATE autoplugin::trt ${ARG_LINK})
  autoplugin_op_library_options(${name} ${AUTOPLUGIN_EXPORTS_MAP})
  target_link_options(${name} PRIVATE "LINKER:--no-undefined")
endfunction()
