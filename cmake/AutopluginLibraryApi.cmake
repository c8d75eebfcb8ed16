# The core's library entry points (include/autoplugin/backend/library_api.h) are linked into every op
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

# What every op library gets, TensorRT's or PyTorch's: hidden symbols but those EXPORTS_MAP lists,
# the library entry points linked in, declaration sites relative to the top-level source folder
# (no absolute source paths in the library), and its declarations checked after linking.
function(autoplugin_op_library_options target exports_map)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${exports_map})
  target_link_options(${target} PRIVATE "LINKER:--version-script=${exports_map}"
                      ${AUTOPLUGIN_LIBRARY_API_LINK_OPTIONS})
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${CMAKE_SOURCE_DIR}/=>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${CMAKE_SOURCE_DIR}/=>)
  autoplugin_check_declarations(${target})
endfunction()
