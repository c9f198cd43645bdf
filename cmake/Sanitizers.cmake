# Sanitizers.cmake: sanitizer and fuzzing builds (docs/hardening.md).
#
#   -DPERFCOUNTERS_SANITIZE=address,undefined   ASan + UBSan (GCC or clang)
#   -DPERFCOUNTERS_SANITIZE=thread              TSan (GCC 12's libtsan)
#   -DPERFCOUNTERS_FUZZ=ON                      libFuzzer targets in fuzz/
#                                               (clang only; implies ASan +
#                                               UBSan on every target)
#
# The flags apply to every target of this project (not to the Debian-built
# abseil/gtest/benchmark libraries it links). UBSan findings abort
# (-fno-sanitize-recover), so a test with undefined behaviour fails.
set(PERFCOUNTERS_SANITIZE "" CACHE STRING
  "Comma-separated -fsanitize= list for every target (e.g. address,undefined or thread)")
option(PERFCOUNTERS_FUZZ "Build the libFuzzer targets in fuzz/ (clang)" OFF)

set(pc_sanitize "${PERFCOUNTERS_SANITIZE}")
if(PERFCOUNTERS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PERFCOUNTERS_FUZZ=ON needs -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(pc_sanitize MATCHES "thread")
    message(FATAL_ERROR "PERFCOUNTERS_FUZZ=ON runs under ASan+UBSan, not TSan")
  endif()
  set(pc_sanitize "address,undefined")
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(pc_sanitize)
  if(pc_sanitize MATCHES "thread" AND pc_sanitize MATCHES "address")
    message(FATAL_ERROR "PERFCOUNTERS_SANITIZE: thread cannot be combined with address")
  endif()
  add_compile_options(-fsanitize=${pc_sanitize} -fno-omit-frame-pointer)
  # file:line in every report: debug information unless the build type's
  # flags already choose a level (scripts/ci-hardening's -g1, line tables
  # only: a later -g here would override it and cost a third more CPU).
  perfcounters_has_debug_info(pc_debug_info)
  if(NOT pc_debug_info)
    add_compile_options(-g)
  endif()
  unset(pc_debug_info)
  add_link_options(-fsanitize=${pc_sanitize})
  if(pc_sanitize MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  message(STATUS "perfcounters: sanitizers ${pc_sanitize}")
endif()
unset(pc_sanitize)
