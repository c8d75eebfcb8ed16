# Dependencies point one way: cmake -DSOURCE_DIR=<repository> -P private_headers.cmake
#
# Fails, naming each file and include, when
#  - a file outside the core includes one of the core's private headers (src/*.h, src/library/*.h):
#    the tools, examples and benchmarks, the C++ the Python package and `autoplugin new` generate,
#    and the adapters (src/trt, src/torch, src/trt_harness, src/triton), which reach the core
#    through include/autoplugin/ and include/autoplugin/backend/ only;
#  - an op author's header (include/autoplugin/, outside backend/) includes a backend header.
# Tests may include private headers, to test internals.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repository> -P private_headers.cmake")
endif()

file(GLOB core_private RELATIVE ${SOURCE_DIR}/src ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/src/library/*.h)
if(NOT core_private)
  message(FATAL_ERROR "no private headers found under ${SOURCE_DIR}/src: wrong SOURCE_DIR?")
endif()

file(GLOB_RECURSE checked LIST_DIRECTORIES false RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/tools/*.h ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.py
  ${SOURCE_DIR}/examples/*.h ${SOURCE_DIR}/examples/*.cuh ${SOURCE_DIR}/examples/*.cpp
  ${SOURCE_DIR}/examples/*.cu
  ${SOURCE_DIR}/bench/*.h ${SOURCE_DIR}/bench/*.cuh ${SOURCE_DIR}/bench/*.cpp ${SOURCE_DIR}/bench/*.cu
  ${SOURCE_DIR}/python/autoplugin/*.py
  ${SOURCE_DIR}/src/trt/* ${SOURCE_DIR}/src/torch/* ${SOURCE_DIR}/src/trt_harness/*
  ${SOURCE_DIR}/src/triton/*
  ${SOURCE_DIR}/include/*.h)

set(problems "")
foreach(file IN LISTS checked)
  get_filename_component(dir ${file} DIRECTORY)
  # Generated code is checked where it is written: #include lines inside strings count too.
  file(STRINGS ${SOURCE_DIR}/${file} lines REGEX "#[ \t]*include[ \t]*[<\"]")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      continue()
    endif()
    set(included ${CMAKE_MATCH_1})
    # As the compiler resolves it: beside the including file first, then the include paths; a
    # name that only src/ provides reaches the core's internals.
    get_filename_component(beside ${SOURCE_DIR}/${dir}/${included} ABSOLUTE)
    get_filename_component(private_dir ${SOURCE_DIR}/src ABSOLUTE)
    set(resolved "")
    if(EXISTS ${beside} AND NOT IS_DIRECTORY ${beside})
      file(RELATIVE_PATH resolved ${private_dir} ${beside})
    elseif(EXISTS ${SOURCE_DIR}/src/${included})
      set(resolved ${included})
    endif()
    if(resolved AND resolved IN_LIST core_private)
      string(APPEND problems "\n  ${file}: #include \"${included}\" is the core's private "
                             "src/${resolved}; use include/autoplugin/ or include/autoplugin/backend/")
    endif()
    if(file MATCHES "^include/autoplugin/" AND NOT file MATCHES "^include/autoplugin/backend/"
       AND included MATCHES "^autoplugin/backend/")
      string(APPEND problems "\n  ${file}: an op author's header includes the backend's "
                             "<${included}>")
    endif()
  endforeach()
endforeach()

list(LENGTH checked count)
if(problems)
  message(FATAL_ERROR "dependencies that point the wrong way:${problems}")
endif()
message(STATUS "${count} files checked: none reaches the core's private headers")
