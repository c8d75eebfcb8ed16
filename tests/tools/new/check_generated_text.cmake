# `autoplugin new` for several schemas: what each generated file says, and the errors for bad
# input.   cmake -DTOOL=<autoplugin> -DWORK_DIR=<scratch folder> -P check_generated_text.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(generate folder)
  execute_process(COMMAND ${TOOL} new ${ARGN} --out ${WORK_DIR}/${folder}
                  OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "autoplugin new ${ARGN} failed:\n${output}${errors}")
  endif()
endfunction()

function(expect file)
  file(READ ${WORK_DIR}/${file} text)
  foreach(literal IN LISTS ARGN)
    string(FIND "${text}" "${literal}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${file}: expected '${literal}' in:\n${text}")
    endif()
  endforeach()
endfunction()

function(expect_absent file literal)
  file(READ ${WORK_DIR}/${file} text)
  string(FIND "${text}" "${literal}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${file}: did not expect '${literal}' in:\n${text}")
  endif()
endfunction()

function(expect_failure what regex)
  execute_process(COMMAND ${TOOL} new ${ARGN} OUTPUT_VARIABLE output ERROR_VARIABLE errors
                  RESULT_VARIABLE failed)
  if(NOT failed)
    message(FATAL_ERROR "${what}: autoplugin new ${ARGN} succeeded")
  endif()
  if(NOT "${errors}" MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected '${regex}', got:\n${errors}")
  endif()
endfunction()

# Tensors and attributes of every kind, with and without defaults.
set(attrs_schema "(Tensor x, Tensor? bias, int[] padding, float eps=1e-05, str mode=\"reflect\", bool flag=True, ScalarType dtype, int[2] kernel=3, float[] scales=[1.0, 2.5], bool[] mask, int? limit=None) -> Tensor")
generate(attrs t::attrs --schema "${attrs_schema}" --dtypes float32,float16,bfloat16)
expect(attrs/attrs.cu
  "AUTOPLUGIN_OP(\"t::attrs(Tensor x, Tensor? bias, int[] padding, float eps=1e-05, str mode=\\\"reflect\\\","
  "attrs<float>,\n" "attrs<__half>,\n" "attrs<__nv_bfloat16>);"
  "cudaError_t attrs(ap::In<T> x,\n    [[maybe_unused]] ap::OptIn<T> bias,\n    ap::Out<T> out,"
  "std::span<const int64_t> padding" "double eps" "std::string_view mode" "bool flag"
  "ap::DType dtype" "std::span<const int64_t> kernel" "std::span<const double> scales"
  "std::span<const bool> mask" "std::optional<int64_t> limit" "cudaStream_t stream"
  "attrs_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(x.data(), out.data(), count);"
  "ap::Shape attrs_shape(ap::Shape x,\n    [[maybe_unused]] std::optional<ap::Shape> bias,"
  "  return x;\n")
expect(attrs/cases.json "\"op\": \"t::attrs\""
  "{\"name\": \"float16\", \"inputs\": [{\"dtype\": \"float16\", \"shape\": [2, 3, 4]}, {\"dtype\": \"float16\", \"shape\": [2, 3, 4]}]"
  "\"padding\": [1, 1], \"eps\": 1e-05, \"mode\": \"reflect\", \"flag\": true, \"dtype\": \"float32\", \"kernel\": [3, 3], \"scales\": [1.0, 2.5], \"mask\": [false, false]}"
  "\"expect_shapes\": [[2, 3, 4]]" "\"name\": \"bfloat16\"")
expect_absent(attrs/cases.json "limit")
expect(attrs/CMakeLists.txt "find_package(autoplugin REQUIRED)"
  "autoplugin_add_library(attrs_plugin SOURCES attrs.cu)"
  "autoplugin_add_torch_library(attrs_torch SOURCES attrs.cu)")
expect(attrs/reference.py "return [inputs[0].copy() for _ in outputs]")

# Several returns; integer dtypes.
generate(split t::split --schema "(Tensor x) -> (Tensor a, Tensor b)" --dtypes float32,int32)
expect(split/split.cu "ap::Out<T> a,\n    ap::Out<T> b," "split<std::int32_t>);"
  "std::array<ap::Shape, 2> split_shape(ap::Shape x)" "return {x, x};"
  "(x.data(), b.data(), count);")
expect(split/cases.json "\"expect_shapes\": [[2, 3, 4], [2, 3, 4]]" "\"name\": \"int32\"")

# No tensor input: a whole schema given, SymInt[] and SymInt arguments.
generate(fill t::fill --schema "t::fill(SymInt[] size, SymInt n) -> Tensor")
expect(fill/fill.cu "ap::Shape fill_shape(ap::Shape size,\n    [[maybe_unused]] ap::Dim n)"
  "cudaMemsetAsync(out.data(), 0, count * sizeof(T), stream)" "fill<float>);")
expect_absent(fill/fill.cu "fill_kernel")
expect(fill/cases.json "\"inputs\": []," "\"shape_inputs\": [[2, 3, 4], [4]],")
expect(fill/reference.py "np.zeros(shape_inputs[0]")

# Bad input: each a clear error, nothing written.
expect_failure("unparsable schema" "autoplugin new t::bad: .*expected" t::bad
               --schema "(Tensor x -> Tensor" --out ${WORK_DIR}/bad)
expect_failure("unknown dtype" "unknown dtype 'float33' \\(float32, float16" t::bad
               --schema "(Tensor x) -> Tensor" --dtypes float32,float33 --out ${WORK_DIR}/bad)
expect_failure("existing folder" "exists and is not an empty folder" t::attrs
               --schema "(Tensor x) -> Tensor" --out ${WORK_DIR}/attrs)
expect_failure("another op's schema" "the schema names op 'u::other', but the op to create is 't::bad'"
               t::bad --schema "u::other(Tensor x) -> Tensor" --out ${WORK_DIR}/bad)
expect_failure("no schema" "needs NS::NAME and --schema" t::bad)
if(EXISTS ${WORK_DIR}/bad)
  message(FATAL_ERROR "a failed autoplugin new wrote ${WORK_DIR}/bad")
endif()
message("new generated text: ok")
