# cmake -DCOMMAND="prog;arg;..." -DEXIT=<status>|nonzero -DREGEX=... [-DSKIP_REGEX=...]
#       -P run_expecting.cmake
# Passes when COMMAND exits with the status EXIT names (any failure for "nonzero") and its output
# matches REGEX (both checked, unlike CTest's PASS_REGULAR_EXPRESSION, which ignores the exit
# status). Output matching SKIP_REGEX (e.g. a check run without a GPU) prints "SKIPPED: ..."
# instead, for SKIP_REGULAR_EXPRESSION.
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE output ERROR_VARIABLE errors
                RESULT_VARIABLE status)
message("${output}${errors}")
if(SKIP_REGEX AND "${output}${errors}" MATCHES "${SKIP_REGEX}")
  message("SKIPPED: the output matches '${SKIP_REGEX}'")
  return()
endif()
if(EXIT STREQUAL "nonzero")
  if(status EQUAL 0)
    message(FATAL_ERROR "expected a failure, got exit status 0")
  endif()
elseif(NOT status STREQUAL EXIT)
  message(FATAL_ERROR "expected exit status ${EXIT}, got ${status}")
endif()
if(NOT "${output}${errors}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match: ${REGEX}")
endif()
