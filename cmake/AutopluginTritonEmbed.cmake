# Turns a Triton AOT artefact (NAME.json + NAME.cubin + NAME.ptx, written by triton_aot.py) into
# C++: OUT_DIR/NAME.cpp (the embedded module and its KernelImage) and
# OUT_DIR/include/triton_kernels/NAME.h (a struct NAME with the kernel's constexprs and a typed
# launch()). Runs as a script (cmake -P) so that building from a shipped artefact needs neither
# Python nor Triton.
#   -DARTEFACT=<dir>/<NAME>  -DNAMESPACE=<ns or empty>  -DOUT_DIR=<dir>
cmake_minimum_required(VERSION 3.25)

get_filename_component(name "${ARTEFACT}" NAME)
file(READ "${ARTEFACT}.json" json)
string(JSON format ERROR_VARIABLE json_error GET "${json}" format)
if(json_error OR NOT format EQUAL 1)
  message(FATAL_ERROR "${ARTEFACT}.json: not an autoplugin Triton artefact of format 1 "
                      "(${json_error})")
endif()
foreach(key function signature triton_version arch launch_num_warps shared_bytes
            scratch_parameters)
  string(JSON ${key} GET "${json}" ${key})
endforeach()
string(JSON global_scratch_bytes GET "${json}" global_scratch bytes)
string(JSON global_scratch_align GET "${json}" global_scratch align)
string(JSON profile_scratch_bytes GET "${json}" profile_scratch bytes)
string(JSON profile_scratch_align GET "${json}" profile_scratch align)
if(scratch_parameters GREATER 2)
  message(FATAL_ERROR "${ARTEFACT}.json: ${scratch_parameters} scratch parameters; at most 2")
endif()
foreach(alignment global_scratch_align profile_scratch_align)
  math(EXPR below "${${alignment}} - 1")
  math(EXPR overlap "${${alignment}} & ${below}")
  if(${alignment} LESS 1 OR NOT overlap EQUAL 0)
    message(FATAL_ERROR "${ARTEFACT}.json: ${alignment} ${${alignment}} is not a power of two")
  endif()
endforeach()

# C++ spellings of Triton's types: the ParamType, the typed launch() parameter.
function(triton_type_to_cpp triton_type out_param_type out_cpp_type)
  set(scalar_i1 I1 bool)
  set(scalar_u1 U1 bool)
  set(scalar_i8 I8 std::int8_t)
  set(scalar_i16 I16 std::int16_t)
  set(scalar_i32 I32 std::int32_t)
  set(scalar_i64 I64 std::int64_t)
  set(scalar_u8 U8 std::uint8_t)
  set(scalar_u16 U16 std::uint16_t)
  set(scalar_u32 U32 std::uint32_t)
  set(scalar_u64 U64 std::uint64_t)
  set(scalar_fp16 FP16 autoplugin::triton::Float16Arg)
  set(scalar_bf16 BF16 autoplugin::triton::BFloat16Arg)
  set(scalar_fp32 FP32 float)
  set(scalar_fp64 FP64 double)
  set(element_fp32 float)
  set(element_fp16 autoplugin::half_storage)
  set(element_bf16 autoplugin::bfloat16_storage)
  set(element_i8 std::int8_t)
  set(element_i32 std::int32_t)
  set(element_i64 std::int64_t)
  set(element_u8 std::uint8_t)
  set(element_i1 bool)
  if(triton_type MATCHES "^\\*(.*)$")
    set(element "${CMAKE_MATCH_1}")
    set(${out_param_type} Pointer PARENT_SCOPE)
    if(DEFINED element_${element})
      set(${out_cpp_type} "autoplugin::triton::PointerArg<${element_${element}}>" PARENT_SCOPE)
    else()
      set(${out_cpp_type} "autoplugin::triton::PointerArg<>" PARENT_SCOPE)
    endif()
  elseif(DEFINED scalar_${triton_type})
    list(GET scalar_${triton_type} 0 param_type)
    list(GET scalar_${triton_type} 1 cpp_type)
    set(${out_param_type} ${param_type} PARENT_SCOPE)
    set(${out_cpp_type} ${cpp_type} PARENT_SCOPE)
  else()
    message(FATAL_ERROR "${ARTEFACT}.json: unknown Triton type '${triton_type}'")
  endif()
endfunction()

# A Python name as a C++ identifier: C++ keywords and the names launch() itself uses get a
# trailing underscore.
set(reserved_names alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else enum
    explicit export extern false float for friend goto if inline int long mutable namespace new
    noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast struct
    switch template this thread_local throw true try typedef typeid typename union unsigned using
    virtual void volatile wchar_t while xor xor_eq
    # macros of the C library and of GNU C++, and what launch() and its struct are called
    NULL errno assert linux unix stdin stdout stderr EOF
    grid stream scratch image launch scratch_bytes ${name})
function(cpp_identifier python_name out)
  if(python_name IN_LIST reserved_names)
    set(${out} "${python_name}_" PARENT_SCOPE)
  else()
    set(${out} "${python_name}" PARENT_SCOPE)
  endif()
endfunction()

string(JSON parameter_count LENGTH "${json}" parameters)
set(parameter_rows "")
set(launch_parameters "")
set(launch_arguments "")
if(parameter_count GREATER 0)
  math(EXPR last "${parameter_count} - 1")
  foreach(i RANGE ${last})
    string(JSON parameter_name GET "${json}" parameters ${i} name)
    string(JSON triton_type GET "${json}" parameters ${i} type)
    string(JSON divisibility GET "${json}" parameters ${i} divisibility)
    triton_type_to_cpp("${triton_type}" param_type cpp_type)
    string(APPEND parameter_rows
      "    {\"${parameter_name}\", \"${triton_type}\", autoplugin::triton::ParamType::${param_type}, "
      "${divisibility}},\n")
    cpp_identifier("${parameter_name}" cpp_name)
    string(APPEND launch_parameters ",\n      ${cpp_type} ${cpp_name}")
    list(APPEND launch_arguments "${cpp_name}")
  endforeach()
endif()
list(JOIN launch_arguments ", " launch_arguments)

string(JSON constant_count LENGTH "${json}" constants)
set(constant_rows "")
set(constant_members "")
if(constant_count GREATER 0)
  math(EXPR last "${constant_count} - 1")
  foreach(i RANGE ${last})
    string(JSON constant_name GET "${json}" constants ${i} name)
    string(JSON constant_value GET "${json}" constants ${i} value)
    string(APPEND constant_rows "    {\"${constant_name}\", \"${constant_value}\"},\n")
    cpp_identifier("${constant_name}" constant_name)
    if(constant_value MATCHES "^-?0[0-9]")
      message(FATAL_ERROR "${ARTEFACT}.json: constexpr ${constant_name} = ${constant_value}: "
                          "a leading zero makes a C++ integer octal")
    endif()
    if(constant_value MATCHES "^(True|False)$")
      string(TOLOWER "${constant_value}" cpp_value)
      string(APPEND constant_members "  static constexpr bool ${constant_name} = ${cpp_value};\n")
    elseif(constant_value MATCHES "^-?[0-9]+$")
      string(APPEND constant_members
             "  static constexpr std::int64_t ${constant_name} = ${constant_value};\n")
    else()
      string(APPEND constant_members
             "  static constexpr double ${constant_name} = ${constant_value};\n")
    endif()
  endforeach()
endif()

# The kernel in the PTX (compiled with the cubin) must take exactly the parameters described:
# the launch passes that many.
file(READ "${ARTEFACT}.ptx" ptx_text)
string(REGEX MATCH "\\.entry[ \t\r\n]+${function}[ \t\r\n]*\\(([^)]*)\\)" entry "${ptx_text}")
if(entry STREQUAL "")
  message(FATAL_ERROR "${ARTEFACT}.ptx has no .entry ${function}")
endif()
string(REGEX MATCHALL "\\.param[ \t]" ptx_parameters "${CMAKE_MATCH_1}")
list(LENGTH ptx_parameters ptx_parameter_count)
math(EXPR described "${parameter_count} + ${scratch_parameters}")
if(NOT ptx_parameter_count EQUAL described)
  message(FATAL_ERROR "${ARTEFACT}: the kernel ${function} in the PTX takes "
                      "${ptx_parameter_count} parameters; the .json describes ${described} "
                      "(the files are from different compilations: regenerate the artefact)")
endif()

# Bytes as a C array initializer, 16 to a line.
function(bytes_initializer file out)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REPEAT "0x[0-9a-f][0-9a-f]," 16 line_pattern)
  string(REGEX REPLACE "(${line_pattern})" "\\1\n    " bytes "${bytes}")
  set(${out} "${bytes}" PARENT_SCOPE)
  set(${out}_size ${size} PARENT_SCOPE)
endfunction()
bytes_initializer("${ARTEFACT}.cubin" cubin)
bytes_initializer("${ARTEFACT}.ptx" ptx)

if(NOT NAMESPACE STREQUAL "")
  set(namespace_open "namespace ${NAMESPACE} {\n")
  set(namespace_close "}  // namespace ${NAMESPACE}\n")
endif()
if(parameter_count GREATER 0)
  set(parameters_span "kParameters")
  set(parameters_definition
      "const autoplugin::triton::Parameter kParameters[] = {\n${parameter_rows}};\n")
else()
  set(parameters_span "{}")
endif()
if(constant_count GREATER 0)
  set(constants_span "kConstants")
  set(constants_definition
      "const autoplugin::triton::Constant kConstants[] = {\n${constant_rows}};\n")
else()
  set(constants_span "{}")
endif()

set(scratch_needed FALSE)
if((scratch_parameters GREATER_EQUAL 1 AND global_scratch_bytes GREATER 0) OR
   (scratch_parameters EQUAL 2 AND profile_scratch_bytes GREATER 0))
  set(scratch_needed TRUE)
endif()
if(scratch_needed)
  set(launch_members "\
  // Device memory the kernel needs for `grid`: declare it as the op's workspace.
  static std::size_t scratch_bytes(autoplugin::triton::Grid grid) {
    return autoplugin::triton::scratch_bytes(image(), grid);
  }
  // The same for the op's .workspace function: `programs`, the grid's size, from the shapes.
  static autoplugin::Dim scratch_bytes(const autoplugin::Dim& programs) {
    return autoplugin::triton::scratch_bytes(image(), programs);
  }
  // Launches on `stream`; throws autoplugin::Error naming the kernel on any failure.
  static void launch(
      autoplugin::triton::Grid grid, autoplugin::Stream stream,
      autoplugin::Workspace scratch${launch_parameters}) {
    autoplugin::triton::launch(image(), grid, stream, {${launch_arguments}}, scratch);
  }
")
else()
  set(launch_members "\
  // Launches on `stream`; throws autoplugin::Error naming the kernel on any failure.
  static void launch(
      autoplugin::triton::Grid grid, autoplugin::Stream stream${launch_parameters}) {
    autoplugin::triton::launch(image(), grid, stream, {${launch_arguments}});
  }
")
endif()

set(generated_by "Generated by autoplugin_add_triton_kernel from ${name}.json: do not edit.")
file(WRITE "${OUT_DIR}/include/triton_kernels/${name}.h" "\
// ${generated_by}
// Triton ${triton_version} kernel ${function} for sm_${arch}: ${signature}
#pragma once

#include <autoplugin/triton.h>

#include <cstddef>
#include <cstdint>

${namespace_open}
struct ${name} {
  // The constexpr arguments the kernel was compiled with.
${constant_members}
  static const autoplugin::triton::KernelImage& image() noexcept;
${launch_members}};

${namespace_close}")

file(WRITE "${OUT_DIR}/${name}.cpp" "\
// ${generated_by}
#include \"triton_kernels/${name}.h\"

${namespace_open}
namespace {

alignas(64) const unsigned char kCubin[${cubin_size}] = {
    ${cubin}};
alignas(64) const char kPtx[${ptx_size} + 1] = {
    ${ptx}0};
${parameters_definition}${constants_definition}
}  // namespace

const autoplugin::triton::KernelImage& ${name}::image() noexcept {
  static const autoplugin::triton::KernelImage kImage{
      \"${name}\",
      \"${function}\",
      \"${signature}\",
      ${arch},
      kCubin,
      kPtx,
      ${parameters_span},
      ${constants_span},
      ${launch_num_warps},
      ${shared_bytes},
      ${scratch_parameters},
      ${global_scratch_bytes},
      ${global_scratch_align},
      ${profile_scratch_bytes},
      ${profile_scratch_align}};
  return kImage;
}

${namespace_close}")
