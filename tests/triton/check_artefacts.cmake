# Fails when a shipped Triton artefact (DIR/aot/*.json; a family's variants, NAME.<k>.json, with
# it) was compiled from another version of its kernel source (DIR/<source>) than the one in the
# tree: the artefacts were not refreshed. Counts artefacts and families, not variants.
#   -DDIRS=<dir>;<dir>...
set(stale "")
set(count 0)
foreach(dir IN LISTS DIRS)
  file(GLOB artefacts "${dir}/aot/*.json")
  foreach(artefact IN LISTS artefacts)
    file(READ "${artefact}" json)
    string(JSON source GET "${json}" source)
    string(JSON recorded GET "${json}" source_sha256)
    file(SHA256 "${dir}/${source}" actual)
    if(NOT recorded STREQUAL actual)
      list(APPEND stale "${artefact}")
    endif()
    get_filename_component(stem "${artefact}" NAME_WE)
    get_filename_component(file "${artefact}" NAME)
    if(file STREQUAL "${stem}.json")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
endforeach()
if(stale)
  list(JOIN stale "\n  " stale)
  message(FATAL_ERROR "compiled from an older kernel source (rebuild where Triton is installed, "
                      "then the target autoplugin_update_triton_artefacts):\n  ${stale}")
endif()
message(STATUS "${count} shipped artefacts match their kernel sources")
