# autoplugin_add_torch_library(NAME [SOURCES file...] [LINK target...])
#
# A PyTorch op library with every op declared in SOURCES (and in the LINKed object libraries):
# `torch.ops.load_library("libNAME.so")` defines each op with its schema string and a CUDA kernel
# that calls the op's launcher; `autoplugin.torch.load_library` also registers the fake (meta)
# implementations torch.compile and torch.export need. PyTorch is found through the Python
# interpreter's torch.utils.cmake_prefix_path (Python_EXECUTABLE, else python3 on PATH).
function(autoplugin_find_torch)
  if(TARGET torch)
    return()
  endif()
  if(NOT Python_EXECUTABLE)
    find_program(Python_EXECUTABLE NAMES python3 python REQUIRED)
  endif()
  execute_process(
    COMMAND ${Python_EXECUTABLE} -c "import torch; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed
    ERROR_QUIET)
  if(failed)
    message(FATAL_ERROR "autoplugin_add_torch_library: ${Python_EXECUTABLE} cannot import torch "
                        "(install PyTorch, or set Python_EXECUTABLE to a Python that has it)")
  endif()
  list(APPEND CMAKE_PREFIX_PATH ${torch_prefix})
  # PyTorch's package otherwise compiles and runs a program to ask the GPU its architecture (and
  # fails where there is no GPU): name the first of ours instead. Our kernels keep their own flags.
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(arch 90)
    if(CMAKE_CUDA_ARCHITECTURES)
      list(GET CMAKE_CUDA_ARCHITECTURES 0 arch)
      string(REGEX REPLACE "[^0-9].*$" "" arch "${arch}")
    endif()
    if(NOT arch MATCHES "^[0-9][0-9]+$")
      set(arch 90)
    endif()
    string(REGEX REPLACE "([0-9])$" ".\\1" TORCH_CUDA_ARCH_LIST "${arch}")
  endif()
  find_package(Torch REQUIRED)
  set(TORCH_LIBRARIES ${TORCH_LIBRARIES} PARENT_SCOPE)
  set(TORCH_INCLUDE_DIRS ${TORCH_INCLUDE_DIRS} PARENT_SCOPE)
endfunction()

function(autoplugin_add_torch_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/AutopluginCudaStandard.cmake)  # .cu ops as C++20
  foreach(variable CMAKE_CUDA20_STANDARD_COMPILE_OPTION CMAKE_CUDA20_EXTENSION_COMPILE_OPTION)
    set(${variable} "${${variable}}" PARENT_SCOPE)
  endforeach()
  autoplugin_find_torch()
  add_library(${name} SHARED ${ARG_SOURCES} ${AUTOPLUGIN_TORCH_ADAPTER_SOURCES})
  target_link_libraries(${name} PRIVATE autoplugin::core ${TORCH_LIBRARIES} ${ARG_LINK})
  target_include_directories(${name} SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS})
  autoplugin_op_library_options(${name} ${AUTOPLUGIN_TORCH_EXPORTS_MAP})
endfunction()
