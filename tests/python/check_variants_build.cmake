# from-torch's kernel variants end to end on the CPU: the test modules with a constexpr family,
# heuristics, autotune configs, float8 tensors and a kernel defined inside a function are
# generated, built against the installed package (as in tests/package) and passed through
# `autoplugin check` with their own cases (CPU steps here;
# `scripts/gpu variants` runs them on a GPU).
#   cmake -DBUILD_DIR=<autoplugin build> -DWORK_DIR=<scratch> -DPYTHON=<python with torch, triton>
#         -DSOURCE_DIR=<autoplugin source> -DCUDA_COMPILER=<nvcc> -P check_variants_build.cmake
execute_process(COMMAND ${PYTHON} -c "import torch, triton" RESULT_VARIABLE missing
                OUTPUT_QUIET ERROR_QUIET)
if(missing)
  message("SKIPPED: ${PYTHON} cannot import torch and triton, which generation needs")
  return()
endif()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/../script_steps.cmake)

run("installing the build" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(configure_options -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
                      -DPython3_EXECUTABLE=${PYTHON})
find_program(ninja_program ninja)
if(ninja_program)
  list(APPEND configure_options -G Ninja)
endif()
# Small families (rows up to 128), one dtype: each variant is a Triton compilation.
foreach(entry "from_torch_constexpr_family|row_softmax|family::row_softmax(x=[4, 100], scale=0.5, mode='shifted', log=False)"
              "from_torch_heuristics|row_double|heur::row_double(x=[3, 100])"
              "from_torch_autotuned|autotuned_copy|test::autotuned_copy(x=[6, 10])"
              "from_torch_float8|rescale_fp8|test::rescale_fp8(x=float8_e4m3fn[4, 100], scale=[4])"
              "from_torch_nested_kernel|scale_rows|test::scale_rows(x=[4, 100], scale=0.5)")
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 module)
  list(GET entry 1 op)
  list(GET entry 2 example)
  run("generating ${module}" ${CMAKE_COMMAND} -E env PYTHONPATH=${SOURCE_DIR}/python
      ${PYTHON} -m autoplugin.from_torch ${SOURCE_DIR}/tests/python/${module}.py
      --example "${example}" --max-block 128 --out ${WORK_DIR}/generated)
  set(project ${WORK_DIR}/generated/${op})
  run("configuring ${op}" ${CMAKE_COMMAND} -S ${project} -B ${project}/build ${configure_options})
  run("building ${op}" ${CMAKE_COMMAND} --build ${project}/build)
  run("autoplugin check ${op}" ${prefix}/bin/autoplugin check ${project}/build/lib${op}_plugin.so
      --case ${project}/cases.json)
  message("${op}:\n${output}")
endforeach()
message("variants generated, built and checked: ok")
