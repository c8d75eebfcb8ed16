# FindTensorRT: TensorRT's headers and, when present, libnvinfer.
#
# Looks in, in order: TensorRT_INCLUDE_DIR / TensorRT_LIBRARY if set; TensorRT_ROOT (CMake or
# environment variable, also TENSORRT_ROOT), e.g. an unpacked tarball; the system (Debian/Ubuntu
# packages install to /usr/include/<arch> and /usr/lib/<arch>); for the library also the pip
# wheel's `tensorrt_libs` folder of the active Python (pip wheels ship no headers).
#
# Sets TensorRT_FOUND, TensorRT_VERSION, TensorRT_INCLUDE_DIR, TensorRT_LIBRARY (may be empty)
# and the targets TensorRT::headers (include folder as a system include) and, with the library,
# TensorRT::nvinfer.

# A relative path (a root, or an include folder set by hand) is looked for from the folder CMake
# was run in as the shell saw it, then the build and source folders; the targets below need an
# absolute include folder.
function(_trt_absolute path out)
  set(result "${path}")
  if(NOT IS_ABSOLUTE "${path}")
    foreach(base IN ITEMS "$ENV{PWD}" "${CMAKE_BINARY_DIR}" "${CMAKE_SOURCE_DIR}")
      if(NOT base STREQUAL "" AND IS_DIRECTORY "${base}/${path}")
        get_filename_component(result "${base}/${path}" ABSOLUTE)
        break()
      endif()
    endforeach()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

set(_trt_roots "")
foreach(_trt_root IN ITEMS ${TensorRT_ROOT} $ENV{TensorRT_ROOT} $ENV{TENSORRT_ROOT})
  _trt_absolute("${_trt_root}" _trt_root)
  list(APPEND _trt_roots "${_trt_root}")
endforeach()

find_path(TensorRT_INCLUDE_DIR NvInferVersion.h
  HINTS ${_trt_roots}
  PATH_SUFFIXES include include/${CMAKE_LIBRARY_ARCHITECTURE})
if(TensorRT_INCLUDE_DIR AND NOT IS_ABSOLUTE "${TensorRT_INCLUDE_DIR}")
  _trt_absolute("${TensorRT_INCLUDE_DIR}" _trt_include)
  set(TensorRT_INCLUDE_DIR "${_trt_include}" CACHE PATH "TensorRT's include folder" FORCE)
endif()

set(TensorRT_VERSION "")
if(TensorRT_INCLUDE_DIR)
  file(STRINGS "${TensorRT_INCLUDE_DIR}/NvInferVersion.h" _trt_version_lines
       REGEX "#define (TRT|NV_TENSORRT)_(MAJOR|MINOR|PATCH)(_ENTERPRISE)? +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    set(_trt_${_part} "")
    foreach(_line IN LISTS _trt_version_lines)
      if(_line MATCHES "_${_part}(_ENTERPRISE)? +([0-9]+)" AND _trt_${_part} STREQUAL "")
        set(_trt_${_part} ${CMAKE_MATCH_2})
      endif()
    endforeach()
  endforeach()
  set(TensorRT_VERSION "${_trt_MAJOR}.${_trt_MINOR}.${_trt_PATCH}")
  set(TensorRT_VERSION_MAJOR "${_trt_MAJOR}")
endif()

set(_trt_pip_libs "")
find_package(Python3 QUIET COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import os, tensorrt_libs; print(os.path.dirname(tensorrt_libs.__file__))"
    OUTPUT_VARIABLE _trt_pip_libs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
find_library(TensorRT_LIBRARY
  NAMES nvinfer nvinfer_${_trt_MAJOR} libnvinfer.so.${_trt_MAJOR}
  HINTS ${_trt_roots} ${_trt_pip_libs}
  PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(TensorRT
  REQUIRED_VARS TensorRT_INCLUDE_DIR
  VERSION_VAR TensorRT_VERSION
  REASON_FAILURE_MESSAGE "no NvInferVersion.h found. Set TensorRT_ROOT to a TensorRT install (the folder holding include/NvInferVersion.h, as -DTensorRT_ROOT=... or an environment variable), or TensorRT_INCLUDE_DIR to its include folder")

if(TensorRT_FOUND AND NOT TARGET TensorRT::headers)
  # Include folders of imported targets are system includes: no warnings from TensorRT.
  # TensorRT's headers include the CUDA runtime's (cuda_runtime_api.h).
  find_package(CUDAToolkit QUIET)
  add_library(TensorRT::headers INTERFACE IMPORTED)
  set_target_properties(TensorRT::headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TensorRT_INCLUDE_DIR};${CUDAToolkit_INCLUDE_DIRS}")
  if(TensorRT_LIBRARY)
    add_library(TensorRT::nvinfer UNKNOWN IMPORTED)
    set_target_properties(TensorRT::nvinfer PROPERTIES IMPORTED_LOCATION "${TensorRT_LIBRARY}"
      INTERFACE_LINK_LIBRARIES TensorRT::headers)
  endif()
endif()
mark_as_advanced(TensorRT_INCLUDE_DIR TensorRT_LIBRARY)
