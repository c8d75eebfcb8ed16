# autoplugin_add_triton_kernel(NAME
#     SOURCE kernel.py KERNEL function SIGNATURE "*fp32:16, *fp32:16, i32, 1024"
#     [NUM_WARPS 4] [NUM_STAGES 3] [ARCH 90] [NAMESPACE ns] [ARTEFACT_DIR dir])
#
# A Triton kernel compiled ahead of time for one signature, as a static library NAME whose header
# triton_kernels/NAME.h (in a folder, so that no kernel name shadows a system header) declares
# `struct NAME` with the kernel's constexprs and a typed `launch(grid, stream, args...)`
# (autoplugin/triton.h); a kernel that needs scratch memory has `launch(grid, stream, scratch,
# args...)` and `scratch_bytes(grid)` instead. Link NAME to the target that declares the op (its
# launcher calls NAME::launch, which pulls the kernel in).
#
# Where Python can import triton, the kernel is compiled in the build (AUTOPLUGIN_TRITON_AOT=AUTO,
# the default; ON requires it). Elsewhere the artefact shipped in ARTEFACT_DIR (NAME.json, .cubin,
# .ptx; default: the calling directory's `aot` folder) is used, so that a build needs neither
# Triton nor a GPU; its recorded signature, warps, stages and arch must match this call. After a
# build that compiled kernels, `cmake --build <dir> --target autoplugin_update_triton_artefacts`
# copies the new artefacts into their ARTEFACT_DIRs. Either way, triton_aot.py generates the C++
# from the artefact with Python 3.8 or newer and its standard library only.
set(AUTOPLUGIN_TRITON_AOT AUTO CACHE STRING
    "Compile Triton kernels in the build: AUTO (where Python has triton), ON, OFF (shipped artefacts)")
set_property(CACHE AUTOPLUGIN_TRITON_AOT PROPERTY STRINGS AUTO ON OFF)

# Sets the global properties _AUTOPLUGIN_PYTHON (a Python 3.8+ interpreter, for the C++
# generation) and _AUTOPLUGIN_TRITON_PYTHON (the same where it imports triton), or leaves them
# empty.
function(_autoplugin_find_triton)
  get_property(searched GLOBAL PROPERTY _AUTOPLUGIN_TRITON_SEARCHED)
  if(searched)
    return()
  endif()
  set_property(GLOBAL PROPERTY _AUTOPLUGIN_TRITON_SEARCHED TRUE)
  find_package(Python3 3.8 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set_property(GLOBAL PROPERTY _AUTOPLUGIN_PYTHON "${Python3_EXECUTABLE}")
  endif()
  set(python "")
  if(NOT AUTOPLUGIN_TRITON_AOT STREQUAL "OFF")
    if(Python3_Interpreter_FOUND)
      execute_process(
        COMMAND ${Python3_EXECUTABLE} -c
                "import triton; print(triton.__version__); print(triton.__file__)"
        RESULT_VARIABLE failed OUTPUT_VARIABLE found ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(NOT failed)
        set(python ${Python3_EXECUTABLE})
        string(REPLACE "\n" ";" found "${found}")
        list(GET found 0 version)
        list(GET found 1 package_file)
        message(STATUS "autoplugin: Triton ${version}: Triton kernels are compiled in the build")
        # Upgrading or removing Triton re-runs this search: the kernels are then recompiled (each
        # AOT step's depfile names this file too) or built from their shipped artefacts.
        set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                     ${package_file})
      endif()
    endif()
    if(NOT python AND AUTOPLUGIN_TRITON_AOT STREQUAL "ON")
      message(FATAL_ERROR "AUTOPLUGIN_TRITON_AOT=ON, but no Python interpreter here imports "
                          "triton (pip install triton, or use AUTO/OFF for the shipped artefacts)")
    endif()
  endif()
  if(NOT python)
    message(STATUS "autoplugin: Triton kernels are built from their shipped artefacts "
                   "(no Python with triton, or AUTOPLUGIN_TRITON_AOT=OFF)")
  endif()
  set_property(GLOBAL PROPERTY _AUTOPLUGIN_TRITON_PYTHON "${python}")
endfunction()

# Fails the configure step when the shipped artefact was made for other settings than `call`.
# The call's settings arrive in expected_<key> variables.
function(_autoplugin_check_shipped_artefact name artefact source)
  foreach(extension json cubin ptx)
    if(NOT EXISTS "${artefact}.${extension}")
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): no Triton here and no shipped "
        "artefact ${artefact}.${extension}. Build once where `python3 -c 'import triton'` works, "
        "then run the target autoplugin_update_triton_artefacts")
    endif()
  endforeach()
  file(READ "${artefact}.json" json)
  set(mismatches "")
  foreach(key kernel signature num_warps num_stages arch)
    string(JSON recorded ERROR_VARIABLE json_error GET "${json}" ${key})
    if(json_error)
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): ${artefact}.json: ${json_error}")
    endif()
    if(NOT "${recorded}" STREQUAL "${expected_${key}}")
      list(APPEND mismatches "${key}: artefact '${recorded}', call '${expected_${key}}'")
    endif()
  endforeach()
  if(mismatches)
    list(JOIN mismatches "\n  " mismatches)
    # The path and the differences go on indented lines, which CMake prints unwrapped.
    message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): the shipped artefact was "
      "compiled for other settings:\n  ${artefact}.json\n  ${mismatches}\nRecompile it where "
      "Triton is installed (target autoplugin_update_triton_artefacts)")
  endif()
  string(JSON recorded_hash GET "${json}" source_sha256)
  file(SHA256 "${source}" source_hash)
  if(NOT recorded_hash STREQUAL source_hash)
    message(WARNING "autoplugin_add_triton_kernel(${name}): ${source} changed since the shipped "
      "artefact was compiled; the build uses the old kernel until the artefact is recompiled "
      "where Triton is installed (target autoplugin_update_triton_artefacts)")
  endif()
endfunction()

# Sets `out` to TRUE where kernels are compiled in the build (Python imports triton).
function(autoplugin_triton_compiles_here out)
  _autoplugin_find_triton()
  get_property(python GLOBAL PROPERTY _AUTOPLUGIN_TRITON_PYTHON)
  if(python)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

function(autoplugin_add_triton_kernel name)
  # The generator lies beside this file (installed), or in the source tree's tools/.
  set(aot_script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/triton_aot.py)
  if(NOT EXISTS ${aot_script})
    set(aot_script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools/triton_aot.py)
  endif()
  cmake_parse_arguments(ARG "" "SOURCE;KERNEL;SIGNATURE;NUM_WARPS;NUM_STAGES;ARCH;NAMESPACE;ARTEFACT_DIR"
                        "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS OR ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): unexpected or incomplete "
      "arguments: ${ARG_UNPARSED_ARGUMENTS} ${ARG_KEYWORDS_MISSING_VALUES} (keywords: SOURCE "
      "KERNEL SIGNATURE NUM_WARPS NUM_STAGES ARCH NAMESPACE ARTEFACT_DIR; quote the SIGNATURE)")
  endif()
  foreach(required SOURCE KERNEL SIGNATURE)
    if("${ARG_${required}}" STREQUAL "")
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): ${required} is required")
    endif()
  endforeach()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): the name must be a C++ identifier")
  endif()
  if("${ARG_NUM_WARPS}" STREQUAL "")
    set(ARG_NUM_WARPS 4)
  endif()
  if("${ARG_NUM_STAGES}" STREQUAL "")
    set(ARG_NUM_STAGES 3)
  endif()
  if("${ARG_ARCH}" STREQUAL "")
    set(ARG_ARCH 90)
  endif()
  if("${ARG_ARTEFACT_DIR}" STREQUAL "")
    set(ARG_ARTEFACT_DIR ${CMAKE_CURRENT_SOURCE_DIR}/aot)
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  get_filename_component(ARG_ARTEFACT_DIR "${ARG_ARTEFACT_DIR}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  # The signature as the artefact records it: entries separated by ", ".
  string(REGEX REPLACE "[ \t\n]*,[ \t\n]*" ", " signature "${ARG_SIGNATURE}")
  string(STRIP "${signature}" signature)

  _autoplugin_find_triton()
  get_property(embed_python GLOBAL PROPERTY _AUTOPLUGIN_PYTHON)
  if(NOT embed_python)
    message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): no Python 3.8 or newer found; "
      "it generates the kernel's C++ (with the standard library only, Triton is not needed). "
      "Install python3, or point Python3_EXECUTABLE at one")
  endif()
  get_property(python GLOBAL PROPERTY _AUTOPLUGIN_TRITON_PYTHON)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${name}_triton)
  if(python)
    set(artefact ${generated}/aot/${name})
    add_custom_command(
      OUTPUT ${artefact}.json ${artefact}.cubin ${artefact}.ptx
      COMMAND ${python} ${aot_script} compile --source ${source} --kernel ${ARG_KERNEL}
              --signature "${signature}" --name ${name} --num-warps ${ARG_NUM_WARPS}
              --num-stages ${ARG_NUM_STAGES} --arch ${ARG_ARCH} --out-dir ${generated}/aot
              --depfile ${generated}/aot/${name}.d
      DEPENDS ${source} ${aot_script}
      # The modules the kernel imports and the installed Triton, as the compile found them.
      DEPFILE ${generated}/aot/${name}.d
      COMMENT "Triton AOT: ${ARG_KERNEL} -> ${name} (sm_${ARG_ARCH})" VERBATIM)
    if(NOT TARGET autoplugin_update_triton_artefacts)
      add_custom_target(autoplugin_update_triton_artefacts)
    endif()
    add_custom_target(${name}_update_artefact
      COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_ARTEFACT_DIR}
      COMMAND ${CMAKE_COMMAND} -E copy ${artefact}.json ${artefact}.cubin ${artefact}.ptx
              ${ARG_ARTEFACT_DIR}
      DEPENDS ${artefact}.json ${artefact}.cubin ${artefact}.ptx VERBATIM)
    add_dependencies(autoplugin_update_triton_artefacts ${name}_update_artefact)
  else()
    set(artefact ${ARG_ARTEFACT_DIR}/${name})
    set(expected_kernel "${ARG_KERNEL}")
    set(expected_signature "${signature}")
    set(expected_num_warps "${ARG_NUM_WARPS}")
    set(expected_num_stages "${ARG_NUM_STAGES}")
    set(expected_arch "${ARG_ARCH}")
    _autoplugin_check_shipped_artefact(${name} ${artefact} ${source})
    # Checked again when the artefact or the kernel source changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${artefact}.json ${source})
  endif()

  add_custom_command(
    OUTPUT ${generated}/${name}.cpp ${generated}/include/triton_kernels/${name}.h
    COMMAND ${embed_python} ${aot_script} embed --artefact ${artefact}
            "--namespace=${ARG_NAMESPACE}" --out-dir ${generated}
    DEPENDS ${artefact}.json ${artefact}.cubin ${artefact}.ptx ${aot_script}
    COMMENT "Embedding Triton kernel ${name}" VERBATIM)
  add_library(${name} STATIC ${generated}/${name}.cpp)
  target_include_directories(${name} PUBLIC ${generated}/include)
  target_link_libraries(${name} PUBLIC autoplugin::triton)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
