# aarch64-toolchain.cmake: cross-compiles this project for aarch64 Linux with
# Debian's g++-aarch64-linux-gnu, against abseil, GoogleTest, Google Benchmark,
# nlohmann-json and CLI11 taken from Debian's arm64 packages unpacked into a
# private sysroot by tests/arm64/sysroot (the host's dpkg is left alone).
#
#   cmake -S . -B build/arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-toolchain.cmake \
#     -DPERFCOUNTERS_AARCH64_SYSROOT=$(tests/arm64/sysroot)
#
# The C library and libstdc++ come from the cross compiler itself
# (/usr/aarch64-linux-gnu); the sysroot only adds the packages above, so it is
# a find root, not a --sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT PERFCOUNTERS_AARCH64_SYSROOT)
  if(DEFINED ENV{PERFCOUNTERS_AARCH64_SYSROOT})
    set(PERFCOUNTERS_AARCH64_SYSROOT "$ENV{PERFCOUNTERS_AARCH64_SYSROOT}")
  elseif(DEFINED ENV{PERFCOUNTERS_CACHE})
    set(PERFCOUNTERS_AARCH64_SYSROOT "$ENV{PERFCOUNTERS_CACHE}/arm64/sysroot")
  else()
    set(PERFCOUNTERS_AARCH64_SYSROOT "$ENV{HOME}/.cache/perfcounters/arm64/sysroot")
  endif()
endif()
set(PERFCOUNTERS_AARCH64_SYSROOT "${PERFCOUNTERS_AARCH64_SYSROOT}" CACHE PATH
    "arm64 packages unpacked by tests/arm64/sysroot")
if(NOT EXISTS "${PERFCOUNTERS_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/cmake/absl")
  message(FATAL_ERROR
    "No arm64 abseil in PERFCOUNTERS_AARCH64_SYSROOT=${PERFCOUNTERS_AARCH64_SYSROOT}. "
    "Run tests/arm64/sysroot first; it prints the path to pass.")
endif()
# try_compile() projects read this file again: hand them the path.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PERFCOUNTERS_AARCH64_SYSROOT)

set(CMAKE_FIND_ROOT_PATH "${PERFCOUNTERS_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The shared libraries (abseil's, libpng's) need each other at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${PERFCOUNTERS_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu:${PERFCOUNTERS_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")
