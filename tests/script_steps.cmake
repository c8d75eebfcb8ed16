# For the test scripts run with `cmake -P` that install the build and build a project against it:
# run(WHAT COMMAND...) runs one step, stops the script naming WHAT with the step's output when it
# fails, and leaves its standard output in `output`.
function(run what)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE output ERROR_VARIABLE errors
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${what} failed:\n${output}${errors}")
  endif()
  set(output "${output}" PARENT_SCOPE)
endfunction()
