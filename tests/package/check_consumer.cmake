# Installs an autoplugin build and builds the consumer project (consumer/) against it, as a user
# would (CMake's default generator, Unix Makefiles, where make is installed, else Ninja; no
# TensorRT_ROOT; no CUDA settings), then checks what it built.
#   cmake -DBUILD_DIR=<autoplugin build> -DWORK_DIR=<scratch folder> [-DCUDA_COMPILER=<nvcc>]
#         [-DWITH_TENSORRT=ON] [-DWITH_TRITON=ON] -P check_consumer.cmake
set(source_dir ${CMAKE_CURRENT_LIST_DIR}/consumer)
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/../script_steps.cmake)

function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}', got:\n${text}")
  endif()
endfunction()

run("installing the build" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(configure_options -DCMAKE_PREFIX_PATH=${prefix}
                      -DTRITON_ARTEFACTS=${CMAKE_CURRENT_LIST_DIR}/../triton)
if(CUDA_COMPILER)
  list(APPEND configure_options -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
find_program(make_program make)
if(make_program)
  set(built "Unix Makefiles:")
else()
  list(APPEND configure_options -G Ninja)
  set(built "Ninja (no make here):")
endif()
run("configuring the consumer"
    ${CMAKE_COMMAND} -E env --unset=TensorRT_ROOT --unset=TENSORRT_ROOT --unset=CMAKE_GENERATOR
    ${CMAKE_COMMAND} -S ${source_dir} -B ${build} ${configure_options})
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run("building the consumer" ${CMAKE_COMMAND} --build ${build} --parallel ${cores})

# Declaration sites relative to the consumer's source folder, from C++ and CUDA sources.
run("running the consumer" ${build}/consumer)
expect("consumer" "${output}" "plugin    name \"scale\", namespace \"pkg\"")
expect("consumer" "${output}" "\n  declared  consumer.cpp:[0-9]+\n")
string(APPEND built " core, C++ op")
if(CUDA_COMPILER)
  expect("consumer" "${output}" "pkg::scale_cuda.*\n  declared  cuda_op.cu:[0-9]+\n.*float16")
  string(APPEND built ", CUDA op")
endif()

if(WITH_TENSORRT)
  set(library ${build}/libconsumer_plugins.so)
  run("autoplugin inspect" ${prefix}/bin/autoplugin inspect ${library})
  expect("autoplugin inspect" "${output}" "pkg::identity")
  if(CUDA_COMPILER)
    expect("autoplugin inspect" "${output}" "pkg::scale_cuda")
  endif()
  file(STRINGS ${library} absolute_paths REGEX "${source_dir}/")
  if(absolute_paths)
    message(FATAL_ERROR "${library} holds absolute source paths: ${absolute_paths}")
  endif()
  string(APPEND built ", plugin library without TensorRT_ROOT")
endif()

if(WITH_TRITON)
  run("running the Triton consumer" ${build}/triton_consumer)
  expect("triton_consumer" "${output}" "test_scale_add 5 parameters, BLOCK 1024")
  string(APPEND built ", Triton kernel from a shipped artefact")
endif()
message("package consumer: ok (${built})")
