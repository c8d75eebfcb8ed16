# The build's third-party packages, each found with a message that says how to get it: a missing
# package names the script that installs it instead of CMake's generic "Could not find a package
# configuration file".
function(autoplugin_require_package package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "autoplugin: ${package} was not found. Run scripts/install-deps (it installs "
                        "the Debian package ${debian_package}), or point CMAKE_PREFIX_PATH at an "
                        "install of ${package}.")
  endif()
endfunction()

# GoogleTest with GoogleMock: Debian ships them as two packages, and CMake's FindGTest reports
# GTest found without GMock.
macro(autoplugin_require_gtest_with_gmock)
  autoplugin_require_package(GTest libgtest-dev)
  if(NOT TARGET GTest::gmock)
    message(FATAL_ERROR "autoplugin: GoogleMock was not found (GoogleTest was). Run "
                        "scripts/install-deps (it installs the Debian package libgmock-dev).")
  endif()
endmacro()
