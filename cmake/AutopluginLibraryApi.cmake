# The core's library entry points (include/autoplugin/library_api.h) are linked into every op
# library, TensorRT's or PyTorch's, even though nothing in the library calls them.
set(AUTOPLUGIN_LIBRARY_API_LINK_OPTIONS
  "LINKER:--undefined=autoplugin_library_v1_ops" "LINKER:--undefined=autoplugin_library_v1_describe"
  "LINKER:--undefined=autoplugin_library_v1_shape_program"
  "LINKER:--undefined=autoplugin_library_v1_decode_fields")

# Fails the build of TARGET, an op library, when one of its declarations does not match its
# schema, with the message the library would otherwise log only when loaded: `autoplugin list`
# loads it after linking (no GPU needed).
# AUTOPLUGIN_TOOL_TARGET names the tool's target: `autoplugin` in autoplugin's own build,
# `autoplugin::autoplugin` from the installed package.
function(autoplugin_check_declarations target)
  if(NOT AUTOPLUGIN_TOOL_TARGET)
    return()
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${AUTOPLUGIN_TOOL_TARGET} list $<TARGET_FILE:${target}> --quiet
    COMMENT "Checking the op declarations of ${target}" VERBATIM)
endfunction()
