# autoplugin_add_torch_library(NAME [SOURCES file...] [LINK target...])
#
# A PyTorch op library with every op declared in SOURCES (and in the LINKed object libraries):
# `torch.ops.load_library("libNAME.so")` defines each op with its schema string and a CUDA kernel
# that calls the op's launcher; `autoplugin.torch.load_library` also registers the fake (meta)
# implementations torch.compile and torch.export need. PyTorch is found through the Python
# interpreter's torch.utils.cmake_prefix_path (Python_EXECUTABLE, else python3 on PATH).
#
# Where that Python has its development headers, NAME_eager (libNAME_eager.so, beside the library)
# is built with it: the direct path of eager calls through `autoplugin.torch.direct_ops`
# (src/torch/eager_module.cpp). Without it those calls go through torch.ops.
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
  autoplugin_add_torch_eager_module(${name})
endfunction()

function(autoplugin_add_torch_eager_module name)
  find_package(Python COMPONENTS Interpreter Development.Module QUIET)
  get_filename_component(torch_library_dir "${TORCH_LIBRARY}" DIRECTORY)
  find_library(AUTOPLUGIN_TORCH_PYTHON_LIBRARY torch_python HINTS "${torch_library_dir}"
               NO_DEFAULT_PATH)
  if(NOT Python_Development.Module_FOUND OR NOT AUTOPLUGIN_TORCH_PYTHON_LIBRARY)
    message(STATUS "autoplugin: ${name}: no direct path for eager calls (it needs Python's "
                   "development headers for ${Python_EXECUTABLE} and PyTorch's libtorch_python)")
    return()
  endif()
  add_library(${name}_eager MODULE ${AUTOPLUGIN_TORCH_EAGER_SOURCE})
  target_link_libraries(${name}_eager PRIVATE Python::Module ${TORCH_LIBRARIES}
                                              ${AUTOPLUGIN_TORCH_PYTHON_LIBRARY})
  target_include_directories(${name}_eager SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS})
  target_compile_features(${name}_eager PRIVATE cxx_std_20)
  set_target_properties(${name}_eager PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden)
  get_target_property(directory ${name} LIBRARY_OUTPUT_DIRECTORY)
  if(directory)
    set_target_properties(${name}_eager PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${directory}")
  endif()
  add_dependencies(${name} ${name}_eager)  # building the library builds its module
endfunction()
