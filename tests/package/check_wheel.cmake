# The Python user's path (docs/building.md#pip-install), from the source tree: the wheel
# (`pip wheel`, scikit-build-core, this machine's CMake and compiler), a fresh virtual environment
# that sees PYTHON's packages (torch, triton), the wheel installed into it, `autoplugin from-torch`
# on the RFC's example through the installed script; where the wheel has the TensorRT adapter
# (TensorRT's headers at its build), the generated project built against the wheel's CMake package
# (CMAKE_PREFIX_PATH from `python -m autoplugin --cmake-dir`) and `autoplugin check --cpu` with
# its cases.
#   cmake -DSOURCE_DIR=<autoplugin source> -DWORK_DIR=<scratch> -DPYTHON=<python with torch, triton>
#         [-DTensorRT_INCLUDE_DIR=<TensorRT's include folder>] -P check_wheel.cmake
if(NOT PYTHON)
  message("SKIPPED: no Python interpreter")
  return()
endif()
execute_process(COMMAND ${PYTHON} -c "import pip, scikit_build_core" RESULT_VARIABLE missing
                OUTPUT_QUIET ERROR_QUIET)
if(missing)
  message("SKIPPED: ${PYTHON} cannot import pip and scikit_build_core, which build the wheel "
          "(scripts/install-python-deps installs them)")
  return()
endif()
execute_process(COMMAND ${PYTHON} -c "import torch, triton" RESULT_VARIABLE missing
                OUTPUT_QUIET ERROR_QUIET)
if(missing)
  message("SKIPPED: ${PYTHON} cannot import torch and triton, which from-torch needs")
  return()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../script_steps.cmake)
# The wheel's CMake build folder is kept: a second run builds only what changed.
set(wheel_build ${WORK_DIR}/wheel-build)
set(venv ${WORK_DIR}/venv)
set(generated ${WORK_DIR}/generated)
file(REMOVE_RECURSE ${WORK_DIR}/wheel ${venv} ${generated})
# What the user's shell would not have: the source tree's package, the test's TensorRT root.
set(clean_env ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=TensorRT_ROOT
              --unset=TENSORRT_ROOT --unset=CMAKE_GENERATOR)

string(TIMESTAMP started "%s")
set(wheel_options --config-settings=build-dir=${wheel_build})
if(TensorRT_INCLUDE_DIR)
  list(APPEND wheel_options --config-settings=cmake.define.TensorRT_INCLUDE_DIR=${TensorRT_INCLUDE_DIR})
endif()
run("building the wheel" ${clean_env} ${PYTHON} -m pip wheel --no-deps --no-build-isolation
    --disable-pip-version-check --wheel-dir ${WORK_DIR}/wheel ${wheel_options} ${SOURCE_DIR})
file(GLOB wheel ${WORK_DIR}/wheel/autoplugin-*.whl)
string(TIMESTAMP built "%s")
math(EXPR wheel_seconds "${built} - ${started}")

# PYTHON may itself be a virtual environment, whose packages --system-site-packages would not
# show: a .pth file names its site-packages instead.
run("creating the virtual environment" ${PYTHON} -m venv ${venv})
# (no semicolons in the Python code: CMake would split the argument there)
run("finding the environment's site-packages" ${venv}/bin/python -c
    "from sysconfig import get_path\nprint(get_path('purelib'))")
string(STRIP "${output}" venv_site)
run("finding PYTHON's site-packages" ${PYTHON} -c
    "from sysconfig import get_path\nprint(get_path('purelib'))\nprint(get_path('platlib'))")
file(WRITE ${venv_site}/autoplugin_test_base.pth "${output}")
run("installing the wheel" ${clean_env} ${venv}/bin/python -m pip install --no-deps
    --disable-pip-version-check ${wheel})

# The installed script, not activated: the tool runs from-torch with the environment's Python,
# never python3 from PATH (a stub that fails here).
file(WRITE ${WORK_DIR}/stubs/python3 "#!/bin/sh\necho 'python3 from PATH was run' >&2\nexit 1\n")
file(CHMOD ${WORK_DIR}/stubs/python3 PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
run("autoplugin from-torch" ${clean_env} --modify PATH=path_list_prepend:${WORK_DIR}/stubs
    ${venv}/bin/autoplugin from-torch
    ${SOURCE_DIR}/examples/from_torch/scaled_leaky_relu.py --out ${generated} --no-artefacts)
string(REGEX MATCH "[^\n]*/scaled_leaky_relu" project "${output}")
if(NOT IS_DIRECTORY "${project}")
  message(FATAL_ERROR "autoplugin from-torch named no generated project:\n${output}")
endif()
set(done "wheel in ${wheel_seconds} s, venv, installed, from-torch")

run("python -m autoplugin --cmake-dir" ${venv}/bin/python -m autoplugin --cmake-dir)
string(STRIP "${output}" cmake_dir)
if(NOT EXISTS ${cmake_dir}/autopluginConfig.cmake)
  message(FATAL_ERROR "python -m autoplugin --cmake-dir printed '${cmake_dir}', which holds no "
                      "autopluginConfig.cmake")
endif()
# The generated project needs the TensorRT adapter, and the Triton support beside it.
if(NOT EXISTS ${cmake_dir}/../../libautoplugin_trt.a)
  message("wheel path: ok (${done}; the generated project not built or checked: the wheel has "
          "no TensorRT adapter, as TensorRT's headers were not found at its build)")
  return()
endif()

set(configure_options -DCMAKE_PREFIX_PATH=${cmake_dir} -DPython3_EXECUTABLE=${venv}/bin/python)
find_program(ninja_program ninja)
if(ninja_program)
  list(APPEND configure_options -G Ninja)
endif()
run("configuring the generated project" ${clean_env} ${CMAKE_COMMAND} -S ${project}
    -B ${project}/build ${configure_options})
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run("building the generated project" ${clean_env} ${CMAKE_COMMAND} --build ${project}/build
    --parallel ${cores})
run("autoplugin check --cpu" ${clean_env} ${venv}/bin/autoplugin check
    ${project}/build/libscaled_leaky_relu_plugin.so --case ${project}/cases.json --cpu)
string(REGEX MATCH "[0-9]+ passed, [0-9]+ failed" summary "${output}")
message("wheel path: ok (${done}, project built against --cmake-dir, check --cpu: ${summary})")
