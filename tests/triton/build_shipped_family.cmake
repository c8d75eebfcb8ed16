# cmake -DAUTOPLUGIN_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P build_shipped_family.cmake
# Configures shipped_family/ without Triton and builds the family's library from the shipped
# artefacts.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/shipped_family
                        -B ${WORK_DIR} -G ${GENERATOR}
                        -DAUTOPLUGIN_SOURCE_DIR=${AUTOPLUGIN_SOURCE_DIR}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "configure failed:\n${output}${errors}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} --target test_row_scale
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "build failed:\n${output}${errors}")
endif()
message("the family built from its 6 shipped variants")
