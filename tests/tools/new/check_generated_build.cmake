# A project from `autoplugin new`, as generated, built against the installed package (as in
# tests/package) and passed through `autoplugin check` with its own cases (CPU steps here).
#   cmake -DBUILD_DIR=<autoplugin build> -DWORK_DIR=<scratch folder> -DCUDA_COMPILER=<nvcc>
#         -P check_generated_build.cmake
set(prefix ${WORK_DIR}/prefix)
set(project ${WORK_DIR}/project)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/../../script_steps.cmake)

run("installing the build" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(tool ${prefix}/bin/autoplugin)
run("autoplugin new" ${tool} new gen::attrs --out ${project} --dtypes float32,float16,bfloat16
    --schema "(Tensor x, Tensor? bias, int[] padding, float eps=1e-05, str mode=\"reflect\", bool flag=True, ScalarType dtype, int[2] kernel=3, float[] scales=[1.0, 2.5], bool[] mask, int? limit=None) -> Tensor")
set(configure_options -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
find_program(ninja_program ninja)
if(ninja_program)
  list(APPEND configure_options -G Ninja)
endif()
run("configuring the generated project"
    ${CMAKE_COMMAND} -E env --unset=TensorRT_ROOT --unset=TENSORRT_ROOT
    ${CMAKE_COMMAND} -S ${project} -B ${build} ${configure_options})
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run("building the generated project" ${CMAKE_COMMAND} --build ${build} --parallel ${cores})
run("autoplugin check" ${tool} check ${build}/libattrs_plugin.so --case ${project}/cases.json
    --reference "python3 ${project}/reference.py")
message("${output}")
message("new generated build: ok")
