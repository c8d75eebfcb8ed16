# cmake -DPYTHON=... -DMAJOR=<TensorRT major> -DCOMMAND="autoplugin;check;..." -DEXIT=...
#       -DREGEX=... -P through_tensorrt_registry.cmake
# autoplugin check with --tensorrt: TensorRT's own runtime of the headers' major version from
# PYTHON's environment (PyPI's lean runtime, tensorrt-lean-cu13-libs or -cu12-libs, or a full
# TensorRT's tensorrt_libs); "SKIPPED: ..." where it has none.
set(find_runtime [=[
import glob, importlib.util, os, sys
for package in ("tensorrt_lean_libs", "tensorrt_libs"):
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for name in ("libnvinfer_lean.so.", "libnvinfer.so."):
            found = glob.glob(os.path.join(folder, name + sys.argv[1]))
            if found:
                print(found[0])
                sys.exit(0)
]=])
execute_process(COMMAND ${PYTHON} -c "${find_runtime}" ${MAJOR} OUTPUT_VARIABLE runtime
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR runtime STREQUAL "")
  message("SKIPPED: no TensorRT ${MAJOR} runtime library for ${PYTHON} (scripts/install-python-deps installs TensorRT's lean runtime from PyPI)")
  return()
endif()
list(APPEND COMMAND --tensorrt ${runtime})
include(${CMAKE_CURRENT_LIST_DIR}/../../run_expecting.cmake)
