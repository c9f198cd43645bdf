# BuildSpeed.cmake: how this project keeps its builds fast, in one place.
# Nothing here changes what is built or what a test checks; each function
# tunes how one kind of target compiles. The CMakeLists.txt files only call
# them:
#
#   perfcounters_speed_test_support(TARGET)  the test support library: the
#       precompiled gtest/gmock header (the donor) and the test flags
#   perfcounters_speed_test(TARGET)          one test binary: the test
#       flags and the donor's precompiled header
#   perfcounters_speed_unity_group(TARGET GROUP SOURCE...)  compile SOURCEs
#       of TARGET as one unity source (unless CMAKE_UNITY_BUILD batches
#       every target anyway)
#   perfcounters_speed_unity(TARGET)         TARGET as unity sources when
#       PERFCOUNTERS_BENCHMARK_EXT_UNITY is on (benchmark_ext)
#
# Options and cache variables: PERFCOUNTERS_TEST_OPTIMIZATION,
# PERFCOUNTERS_TEST_PCH, PERFCOUNTERS_BENCHMARK_EXT_UNITY. What each saves,
# measured: docs/ci.md.

# The tests' own code compiles at PERFCOUNTERS_TEST_OPTIMIZATION (-O0) in
# the optimized build types, with line tables only (-g1) where the build
# type has debug information: -O2 -g costs a test file 2.5 times the CPU
# time of -O0 -g1 (the gtest/gmock bodies' codegen and variable locations),
# and CI compiles every test file in four trees; the native suite takes as
# long either way (its time is the kernel's, the children's and the
# library's). The emulated arm64 machine's tree keeps -O1
# (tests/arm64/cross-build: each emulated instruction costs host CPU). What
# the tests measure keeps the build type's flags: the library,
# benchmark_ext, the command, tests/e2e's benchmark binaries, and
# profile_test and profile_symbols_test (their own code is the profiled
# subject: inlined frames, DWARF). Debug keeps -O0 -g; an empty value keeps every build type's. The
# tests pass at any level (they hold bounds, never the optimizer's code
# shape).
set(PERFCOUNTERS_TEST_OPTIMIZATION "-O0" CACHE STRING
  "optimization level of the test sources in optimized build types (empty: the build type's)")
# One precompiled header for the test files (PERFCOUNTERS_TEST_PCH): about
# half of a test file's compile was parsing, most of it gtest and gmock,
# which ~50 files per tree include. The test support library builds it with
# the test files' flags and every test target reuses it; the path macros
# the test targets add on top are never read by these headers, so GCC and
# clang accept it (-Winvalid-pch, an error under PERFCOUNTERS_WERROR, says
# so otherwise). ccache caches a precompiled header's users only with
# sloppiness pch_defines,time_macros: the test targets' launcher sets it.
option(PERFCOUNTERS_TEST_PCH "Precompile gtest/gmock for the test files" ON)
# Unity sources for benchmark_ext alone (off by default): scripts/ci-gbench
# rebuilds it against each Google Benchmark version while the core's objects
# are ccache hits from the native tree, which CMAKE_UNITY_BUILD would turn
# into misses.
option(PERFCOUNTERS_BENCHMARK_EXT_UNITY "Compile benchmark_ext as unity sources" OFF)

# The test files' compile options and compiler launcher, computed once.
function(_perfcounters_speed_test_settings flags_var launcher_var)
  set(flags "")
  perfcounters_has_debug_info(debug_info)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
  if(PERFCOUNTERS_TEST_OPTIMIZATION AND
     build_type MATCHES "^(RELEASE|MINSIZEREL|RELWITHDEBINFO)$")
    set(flags ${PERFCOUNTERS_TEST_OPTIMIZATION})
    if(debug_info)
      list(APPEND flags -g1)
    endif()
  endif()
  set(launcher "")
  if(PERFCOUNTERS_TEST_PCH)
    # clang stamps a precompiled header with its headers' mtimes unless told
    # not to, and ccache then will not cache its users.
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      list(APPEND flags "SHELL:-Xclang -fno-pch-timestamp")
    endif()
    if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache$")
      set(sloppiness pch_defines,time_macros)
      if(DEFINED ENV{CCACHE_SLOPPINESS} AND NOT "$ENV{CCACHE_SLOPPINESS}" STREQUAL "")
        string(PREPEND sloppiness "$ENV{CCACHE_SLOPPINESS},")
      endif()
      set(launcher ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=${sloppiness} ${CMAKE_CXX_COMPILER_LAUNCHER})
    endif()
  endif()
  set(${flags_var} "${flags}" PARENT_SCOPE)
  set(${launcher_var} "${launcher}" PARENT_SCOPE)
endfunction()

function(perfcounters_speed_test_support target)
  _perfcounters_speed_test_settings(flags launcher)
  if(PERFCOUNTERS_TEST_PCH)
    target_precompile_headers(${target} PRIVATE
      <gmock/gmock.h> <gtest/gtest.h> <absl/status/status.h>
      <absl/status/statusor.h> <absl/strings/str_cat.h> <cstdint> <string>
      <vector>)
    if(launcher)
      set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
    endif()
  endif()
  target_compile_options(${target} PRIVATE ${flags})
  set_property(GLOBAL PROPERTY PERFCOUNTERS_SPEED_PCH_DONOR ${target})
endfunction()

function(perfcounters_speed_test target)
  _perfcounters_speed_test_settings(flags launcher)
  target_compile_options(${target} PRIVATE ${flags})
  if(PERFCOUNTERS_TEST_PCH)
    get_property(donor GLOBAL PROPERTY PERFCOUNTERS_SPEED_PCH_DONOR)
    target_precompile_headers(${target} REUSE_FROM ${donor})
    if(launcher)
      set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
    endif()
  endif()
endfunction()

function(perfcounters_speed_unity_group target group)
  if(NOT CMAKE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
      UNITY_BUILD_MODE GROUP)
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
      PROPERTIES UNITY_GROUP ${group})
  endif()
endfunction()

function(perfcounters_speed_unity target)
  if(PERFCOUNTERS_BENCHMARK_EXT_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
  endif()
endfunction()
