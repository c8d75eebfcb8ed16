# autoplugin_add_triton_kernel(NAME
#     SOURCE kernel.py KERNEL function SIGNATURE "*fp32:16, *fp32:16, i32, 1024"
#     [NUM_WARPS 4] [NUM_STAGES 3] [ARCH 90] [NAMESPACE ns] [ARTEFACT_DIR dir]
#     [VARIANTS "BLOCK=256, num_warps=2" "BLOCK=512|1024, EVEN=True|False" ...] [AUTOTUNE]
#     [SPECIALIZE [SPECIALIZE_INTEGERS name... | "name, name" ...]
#                 [SPECIALIZE_VALUES "K=4, D=128" ...]])
#
# A Triton kernel compiled ahead of time for one signature, as a static library NAME whose header
# triton_kernels/NAME.h (in a folder, so that no kernel name shadows a system header) declares
# `struct NAME` with the kernel's constexprs and a typed `launch(grid, stream, args...)`
# (autoplugin/triton.h); a kernel that needs scratch memory has `launch(grid, stream, scratch,
# args...)` and `scratch_bytes(grid)` instead. Link NAME to the target that declares the op (its
# launcher calls NAME::launch, which pulls the kernel in). A constexpr of the signature may be a
# bool, a number or a quoted string ('leaky_relu'). A kernel under @triton.heuristics or
# @triton.autotune is compiled as the @triton.jit function they wrap.
#
# A FAMILY of variants is compiled when the SIGNATURE writes `constexpr` for constexprs the
# variants give, or with AUTOTUNE: each VARIANTS entry gives a value to each such constexpr (a|b:
# one variant per alternative, and per combination of them) and optionally its own num_warps and
# num_stages (default: NUM_WARPS, NUM_STAGES); AUTOTUNE makes one variant per config of the
# kernel's @triton.autotune (times each VARIANTS entry, for constexprs such as heuristics' that
# the configs leave open). The header then has `variants` (each variant's values, warps and
# stages), `find(values...)` and `select(values...)` (the variant for these constexprs, and the
# autotune config's index first with AUTOTUNE; select throws autoplugin::Error listing the
# variants when none matches), `image(variant)` and `launch(variant, grid, stream, args...)`: a
# launcher selects the variant from run-time values, and autotune configs can become tactics, one
# launcher per config.
#
# SPECIALIZE also compiles the kernel (each variant) assuming its addresses and integers are
# multiples of 16, then its addresses only, as Triton's JIT specializes a launch on the values it
# gets: launch() picks, per call, the most specialized build the arguments allow (vectorized
# memory access, as the JIT kernel has), else the generic one. SPECIALIZE_INTEGERS names the
# integer parameters that hold sizes and strides: one more build, between the two, promises the
# addresses and these (so that an attribute such as a seed, rarely a multiple of 16, does not
# cost the sizes their promise); sets of names, each quoted with its names joined by commas
# (`"n, rows, row_stride" "n, row_stride"`), make a build each, in order (the second for sizes
# where the rows are not a multiple of 16). A parameter annotated
# `tl.constexpr` may be given a run-time type in the SIGNATURE (`i32`): the kernel takes it at
# launch, where it only computes with the value. Each SPECIALIZE_VALUES entry adds builds (before
# the others) with those run-time parameters compiled as those values, as Triton's JIT compiles
# a constexpr's value (a filter size's loop unrolled, a vocabulary's size folded): launch() takes
# them where the arguments have exactly these values.
#
# Where Python can import triton, the kernel is compiled in the build (AUTOPLUGIN_TRITON_AOT=AUTO,
# the default; ON requires it). Elsewhere the artefact shipped in ARTEFACT_DIR (NAME.json, .cubin,
# .ptx, and for a family NAME.<k>.json, .cubin, .ptx per variant; default: the calling directory's
# `aot` folder) is used, so that a build needs neither Triton nor a GPU; its recorded signature,
# warps, stages, variants and arch must match this call. After a build that compiled kernels,
# `cmake --build <dir> --target autoplugin_update_triton_artefacts` copies the new artefacts into
# their ARTEFACT_DIRs. Either way, triton_aot.py generates the C++ from the artefact with Python
# 3.8 or newer and its standard library only.
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
  set(extensions json cubin ptx)
  if(is_family)
    set(extensions json)  # the variants' files are checked below
  endif()
  foreach(extension IN LISTS extensions)
    if(NOT EXISTS "${artefact}.${extension}")
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): no Triton here and no shipped "
        "artefact ${artefact}.${extension}. Build once where `python3 -c 'import triton'` works, "
        "then run the target autoplugin_update_triton_artefacts")
    endif()
  endforeach()
  file(READ "${artefact}.json" json)
  set(mismatches "")
  set(keys kernel signature num_warps num_stages arch)
  if(is_family)
    list(APPEND keys variants_requested)
  endif()
  foreach(key IN LISTS keys)
    string(JSON recorded ERROR_VARIABLE json_error GET "${json}" ${key})
    if(json_error)
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): ${artefact}.json: ${json_error}")
    endif()
    if(NOT "${recorded}" STREQUAL "${expected_${key}}")
      list(APPEND mismatches "${key}: artefact '${recorded}', call '${expected_${key}}'")
    endif()
  endforeach()
  # Artefacts from before SPECIALIZE record no "specialize": not specialized.
  string(JSON recorded ERROR_VARIABLE json_error GET "${json}" specialize)
  if(json_error)
    set(recorded OFF)
  endif()
  if(NOT recorded STREQUAL expected_specialize)
    list(APPEND mismatches "specialize: artefact '${recorded}', call '${expected_specialize}'")
  endif()
  # Recorded since SPECIALIZE_INTEGERS and SPECIALIZE_VALUES: empty where an artefact has none.
  foreach(key IN ITEMS specialize_integers specialize_values)
    string(JSON recorded ERROR_VARIABLE json_error GET "${json}" ${key})
    if(json_error)
      set(recorded "")
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
  if(is_family)
    # Each variant's files, which the embedding step reads.
    set(variant_files "")
    string(JSON count ERROR_VARIABLE json_error LENGTH "${json}" variants)
    if(json_error OR count LESS 1)
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): ${artefact}.json lists no "
                          "variants; recompile it where Triton is installed")
    endif()
    math(EXPR last "${count} - 1")
    foreach(index RANGE ${last})
      foreach(extension json cubin ptx)
        if(NOT EXISTS "${artefact}.${index}.${extension}")
          message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): the shipped family lacks "
            "${artefact}.${index}.${extension}; recompile it where Triton is installed (target "
            "autoplugin_update_triton_artefacts)")
        endif()
        list(APPEND variant_files "${artefact}.${index}.${extension}")
      endforeach()
    endforeach()
    set(shipped_variant_files ${variant_files} PARENT_SCOPE)
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
  # Its standard-library half, which generates the C++.
  get_filename_component(aot_dir ${aot_script} DIRECTORY)
  set(aot_scripts ${aot_script} ${aot_dir}/triton_aot_embed.py ${aot_dir}/triton_aot_family.py)
  cmake_parse_arguments(ARG "AUTOTUNE;SPECIALIZE"
                        "SOURCE;KERNEL;SIGNATURE;NUM_WARPS;NUM_STAGES;ARCH;NAMESPACE;ARTEFACT_DIR"
                        "VARIANTS;SPECIALIZE_INTEGERS;SPECIALIZE_VALUES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS OR ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): unexpected or incomplete "
      "arguments: ${ARG_UNPARSED_ARGUMENTS} ${ARG_KEYWORDS_MISSING_VALUES} (keywords: SOURCE "
      "KERNEL SIGNATURE NUM_WARPS NUM_STAGES ARCH NAMESPACE ARTEFACT_DIR VARIANTS AUTOTUNE "
      "SPECIALIZE SPECIALIZE_INTEGERS SPECIALIZE_VALUES; quote "
      "the SIGNATURE and each variant)")
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
  # A family: constexprs left to the variants, VARIANTS or AUTOTUNE. Its settings as the artefact
  # records them: "autotune" and each variant with entries separated by ", ", joined by " / ".
  set(is_family FALSE)
  set(variant_arguments "")
  set(requested "")
  if(ARG_AUTOTUNE)
    set(is_family TRUE)
    list(APPEND variant_arguments --autotune)
    list(APPEND requested autotune)
  endif()
  foreach(variant IN LISTS ARG_VARIANTS)
    set(is_family TRUE)
    string(REGEX REPLACE "[ \t\n]*,[ \t\n]*" ", " variant "${variant}")
    string(STRIP "${variant}" variant)
    list(APPEND variant_arguments "--variant=${variant}")
    list(APPEND requested "${variant}")
  endforeach()
  if(", ${signature}," MATCHES ", constexpr,")
    set(is_family TRUE)
  endif()
  list(JOIN requested " / " expected_variants_requested)
  set(specialize_arguments "")
  set(expected_specialize OFF)
  if(ARG_SPECIALIZE)
    set(specialize_arguments --specialize)
    set(expected_specialize ON)
  endif()
  # SPECIALIZE_INTEGERS: names (one build), or quoted sets of names joined by commas (a build
  # each, in order). As the artefact records them: names joined by ", ", sets by " / ".
  set(integer_sets "")
  string(FIND "${ARG_SPECIALIZE_INTEGERS}" "," comma)
  if(comma EQUAL -1 AND ARG_SPECIALIZE_INTEGERS)
    list(JOIN ARG_SPECIALIZE_INTEGERS "," integer_sets)
  elseif(NOT comma EQUAL -1)
    foreach(entry IN LISTS ARG_SPECIALIZE_INTEGERS)
      string(REGEX REPLACE "[ \t\n]+" "" entry "${entry}")
      list(APPEND integer_sets "${entry}")
    endforeach()
  endif()
  set(recorded_integers "")
  foreach(listed IN LISTS integer_sets)
    if(NOT ARG_SPECIALIZE)
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): SPECIALIZE_INTEGERS needs "
        "SPECIALIZE")
    endif()
    list(APPEND specialize_arguments "--specialize-integers=${listed}")
    string(REPLACE "," ", " listed "${listed}")
    list(APPEND recorded_integers "${listed}")
  endforeach()
  list(JOIN recorded_integers " / " expected_specialize_integers)
  # As the artefact records them: each entry's "NAME=VALUE" separated by ", ", joined by " / ".
  set(recorded_values "")
  foreach(entry IN LISTS ARG_SPECIALIZE_VALUES)
    if(NOT ARG_SPECIALIZE)
      message(FATAL_ERROR "autoplugin_add_triton_kernel(${name}): SPECIALIZE_VALUES needs "
        "SPECIALIZE")
    endif()
    string(REGEX REPLACE "[ \t\n]*([,=])[ \t\n]*" "\\1" entry "${entry}")
    string(STRIP "${entry}" entry)
    list(APPEND specialize_arguments "--specialize-values=${entry}")
    string(REPLACE "," ", " entry "${entry}")
    list(APPEND recorded_values "${entry}")
  endforeach()
  list(JOIN recorded_values " / " expected_specialize_values)

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
    # A family's variants are written beside its NAME.json, which lists them.
    set(artefact_files ${artefact}.json ${artefact}.cubin ${artefact}.ptx)
    if(is_family)
      set(artefact_files ${artefact}.json)
    endif()
    add_custom_command(
      OUTPUT ${artefact_files}
      COMMAND ${python} ${aot_script} compile --source ${source} --kernel ${ARG_KERNEL}
              --signature "${signature}" --name ${name} --num-warps ${ARG_NUM_WARPS}
              --num-stages ${ARG_NUM_STAGES} --arch ${ARG_ARCH} --out-dir ${generated}/aot
              ${variant_arguments} ${specialize_arguments} --depfile ${generated}/aot/${name}.d
      DEPENDS ${source} ${aot_scripts}
      # The modules the kernel imports and the installed Triton, as the compile found them.
      DEPFILE ${generated}/aot/${name}.d
      COMMENT "Triton AOT: ${ARG_KERNEL} -> ${name} (sm_${ARG_ARCH})" VERBATIM)
    if(NOT TARGET autoplugin_update_triton_artefacts)
      add_custom_target(autoplugin_update_triton_artefacts)
    endif()
    add_custom_target(${name}_update_artefact
      COMMAND ${embed_python} ${aot_script} ship --artefact ${artefact} --to ${ARG_ARTEFACT_DIR}
      DEPENDS ${artefact_files} VERBATIM)
    add_dependencies(autoplugin_update_triton_artefacts ${name}_update_artefact)
  else()
    set(artefact ${ARG_ARTEFACT_DIR}/${name})
    set(expected_kernel "${ARG_KERNEL}")
    set(expected_signature "${signature}")
    set(expected_num_warps "${ARG_NUM_WARPS}")
    set(expected_num_stages "${ARG_NUM_STAGES}")
    set(expected_arch "${ARG_ARCH}")
    set(shipped_variant_files "")
    _autoplugin_check_shipped_artefact(${name} ${artefact} ${source})
    set(artefact_files ${artefact}.json ${artefact}.cubin ${artefact}.ptx)
    if(is_family)
      set(artefact_files ${artefact}.json ${shipped_variant_files})
    endif()
    # Checked again when the artefact or the kernel source changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${artefact}.json ${source})
  endif()

  add_custom_command(
    OUTPUT ${generated}/${name}.cpp ${generated}/include/triton_kernels/${name}.h
    COMMAND ${embed_python} ${aot_script} embed --artefact ${artefact}
            "--namespace=${ARG_NAMESPACE}" --out-dir ${generated}
    DEPENDS ${artefact_files} ${aot_scripts}
    COMMENT "Embedding Triton kernel ${name}" VERBATIM)
  add_library(${name} STATIC ${generated}/${name}.cpp)
  target_include_directories(${name} PUBLIC ${generated}/include)
  target_link_libraries(${name} PUBLIC autoplugin::triton)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
