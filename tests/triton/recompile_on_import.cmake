# cmake -DAUTOPLUGIN_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DPYTHON=... \
#       -P recompile_on_import.cmake
# Builds the imported_module project's artefact, changes the helper module the kernel imports,
# and expects exactly one recompilation: after the change, and not on a build with no change.
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${CMAKE_CURRENT_LIST_DIR}/imported_module/ DESTINATION ${WORK_DIR}/source)

function(build expect_aot)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build --target artefact
                  OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "build failed:\n${output}${errors}")
  endif()
  string(FIND "${output}" "Triton AOT: doubled_kernel" found)
  if(expect_aot AND found EQUAL -1)
    message(FATAL_ERROR "the kernel was not recompiled:\n${output}")
  elseif(NOT expect_aot AND NOT found EQUAL -1)
    message(FATAL_ERROR "the kernel was recompiled with nothing changed:\n${output}")
  endif()
endfunction()

execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/source -B ${WORK_DIR}/build -G ${GENERATOR}
                        -DAUTOPLUGIN_SOURCE_DIR=${AUTOPLUGIN_SOURCE_DIR}
                        -DPython3_EXECUTABLE=${PYTHON}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "configure failed:\n${output}${errors}")
endif()
build(TRUE)
file(READ ${WORK_DIR}/build/doubled_triton/aot/doubled.d depfile)
if(NOT depfile MATCHES "source/helper.py")
  message(FATAL_ERROR "the depfile does not name the imported helper:\n${depfile}")
endif()
build(FALSE)
# A second later, so the helper is newer than the artefact whatever the file system's resolution.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1)
file(APPEND ${WORK_DIR}/source/helper.py "# changed\n")
build(TRUE)
build(FALSE)
message("the kernel was recompiled once, after the module it imports changed")
