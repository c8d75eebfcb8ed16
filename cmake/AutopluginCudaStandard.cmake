# CUDA sources that include autoplugin's headers must compile as C++20. The cxx_std_20 that
# autoplugin::core requires applies to a target's CUDA sources too, but CMake 3.25 (Debian 12's)
# knows no C++20 flag for nvcc and then adds none, leaving nvcc's default C++17 ("identifier
# "concept" is undefined"). nvcc has taken -std=c++20 since CUDA 12; newer CMake sets these
# itself. Include this in the scope that defines CUDA targets, before or after enabling CUDA.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
