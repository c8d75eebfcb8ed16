# Fails unless LIBRARY's dynamic symbol table defines exactly TensorRT's two entry points and
# autoplugin's library entry points.
execute_process(COMMAND nm -D --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
set(names "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND names ${name})
endforeach()
list(SORT names)
set(expected "autoplugin_library_v1_decode_fields;autoplugin_library_v1_describe;autoplugin_library_v1_ops;autoplugin_library_v1_shape_program;getCreators;setLoggerFinder")
if(NOT names STREQUAL expected)
  message(FATAL_ERROR "exported symbols of ${LIBRARY}: ${names}; expected ${expected}")
endif()
message(STATUS "exports: ${names}")
