# Arm64Tests.cmake: the hardware half of the test suite. Cross-builds this
# same source tree for aarch64 into <build>/arm64 and runs every test binary
# inside the emulated arm64 machine of tests/arm64/ (QEMU with a real kernel
# PMU), where hardware tests must pass instead of skipping. Included by the
# top-level CMakeLists.txt after tests/ (it needs PERFCOUNTERS_TEST_BINARIES).
#
# CTest tests (label "arm64"), all at test time, so a plain build stays fast:
#   arm64.setup           fetch kernel, busybox and the arm64 sysroot (fixture,
#                         under a lock: parallel runs never race)
#   arm64.build           cross-build into <build>/arm64 (fixture)
#   arm64.build_complete  fails when any part of the cross build failed
#   arm64.runner          the runner's own tests (tests/arm64/runner_test)
#   arm64.<binary>        each tests/*_test.cc binary, run in the machine; with
#                         PERFCOUNTERS_ARM64_BATCH=N > 1, N binaries per boot
#                         instead: arm64.batch.<binary>+<binary>+...
#   arm64.hardware_test.shift1  hardware_test again with --icount-shift 1
#   arm64.vendor_events_test.a57  vendor_events_test on a Cortex-A57, whose
#                         table libpfm4 detects (it knows none for -cpu max);
#                         arm64.vendor_events_hardware_test.a57 likewise
#   arm64.gbench-v1.9.5.benchmark_ext_unmodified_test  that test against
#                         Google Benchmark 1.9.5 (tests/arm64/gbench-test,
#                         in <build>/arm64-gbench and <build>/arm64-gbench-tree)

set(_pc_arm64_default OFF)
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND NOT CMAKE_CROSSCOMPILING)
  find_program(PERFCOUNTERS_AARCH64_CXX aarch64-linux-gnu-g++)
  if(PERFCOUNTERS_AARCH64_CXX)
    set(_pc_arm64_default ON)
  endif()
endif()
option(PERFCOUNTERS_ARM64_TESTS
       "Cross-build for aarch64 and run the tests in the emulated arm64 machine"
       ${_pc_arm64_default})
if(NOT PERFCOUNTERS_ARM64_TESTS)
  return()
endif()
if(CMAKE_CROSSCOMPILING)
  message(FATAL_ERROR "PERFCOUNTERS_ARM64_TESTS=ON needs a native build, not a cross build")
endif()
find_program(PERFCOUNTERS_AARCH64_CXX aarch64-linux-gnu-g++)
if(NOT PERFCOUNTERS_AARCH64_CXX)
  message(FATAL_ERROR "PERFCOUNTERS_ARM64_TESTS=ON needs aarch64-linux-gnu-g++: "
                      "apt-get install g++-aarch64-linux-gnu (scripts/deps.sh does), "
                      "or configure with -DPERFCOUNTERS_ARM64_TESTS=OFF")
endif()

set(_pc_arm64_dir "${PROJECT_SOURCE_DIR}/tests/arm64")
set(_pc_arm64_build "${CMAKE_BINARY_DIR}/arm64")
set(_pc_runner "${_pc_arm64_dir}/pmu-vm")
cmake_host_system_information(RESULT _pc_cores QUERY NUMBER_OF_LOGICAL_CORES)
# Binaries per boot of the machine. A boot (QEMU) and its preparation cost
# more host CPU than most test binaries take to run, so
# CI (.ci/run exports PERFCOUNTERS_ARM64_BATCH) runs several per boot; the
# default, 1, keeps one CTest test per binary (ctest -R arm64.<binary>).
if(DEFINED ENV{PERFCOUNTERS_ARM64_BATCH})
  set(_pc_batch_default "$ENV{PERFCOUNTERS_ARM64_BATCH}")
else()
  set(_pc_batch_default 1)
endif()
set(PERFCOUNTERS_ARM64_BATCH "${_pc_batch_default}" CACHE STRING
    "Test binaries per boot of the emulated arm64 machine (default from the environment, else 1)")
if(NOT PERFCOUNTERS_ARM64_BATCH MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "PERFCOUNTERS_ARM64_BATCH wants a positive number of test binaries "
                      "per boot, got '${PERFCOUNTERS_ARM64_BATCH}'")
endif()
# Test cases that do not run in the machine (GoogleTest's negative filter,
# given to every arm64 test binary as GTEST_FILTER), because what they check
# does not depend on the hardware or the architecture and the same check runs
# natively in CI (scripts/test, and .ci/run's repeat stage):
#   CompareSameBinary.*  (tools_compare_gates_test) runs every example
#     benchmark 10 times and checks that `compare` finds no time change.
#     Inside the machine the clock is virtual (-icount: time = instructions),
#     so the two sides hardly differ and the check is nearly vacuous there,
#     yet it was nearly all of that binary's time in the machine.
# (profile_symbols_test, the symbolizer against DWARF, addr2line and
# objcopy, is left out whole: below.)
set(PERFCOUNTERS_ARM64_GTEST_FILTER
    "-CompareSameBinary.*"
    CACHE STRING
    "GTEST_FILTER for the test binaries in the emulated arm64 machine")
set(_pc_filter "")
if(PERFCOUNTERS_ARM64_GTEST_FILTER)
  set(_pc_filter --env "GTEST_FILTER=${PERFCOUNTERS_ARM64_GTEST_FILTER}")
endif()
set(_pc_build_type "${CMAKE_BUILD_TYPE}")
if(NOT _pc_build_type)
  set(_pc_build_type RelWithDebInfo)
endif()

add_test(NAME arm64.setup COMMAND "${_pc_arm64_dir}/sysroot" --boot)
set_tests_properties(arm64.setup PROPERTIES
  FIXTURES_SETUP arm64_fetched LABELS arm64 TIMEOUT 600)

# tools_history_test, tools_history_changes_test and tools_history_scale_test
# run natively only:
# they start a PostgreSQL server, which the machine has not, and check no
# hardware. Nor does
# tools_changepoint_test (statistics on a synthetic corpus, arithmetic only),
# nor tools_compare_memory_test (the command's memory per input byte: the
# same code on every machine, and tens of MB to parse under emulation).
# profile_symbols_test checks the symbolizer against DWARF (inlined frames,
# namespaces), addr2line and objcopy: the machine gets its programs with
# debug sections stripped and has no binutils.
set(_pc_arm64_tests ${PERFCOUNTERS_TEST_BINARIES})
list(REMOVE_ITEM _pc_arm64_tests tools_history_test tools_history_changes_test
  tools_changepoint_test profile_symbols_test tools_compare_memory_test
  tools_history_scale_test)
set(_pc_binaries "")
foreach(bin ${_pc_arm64_tests})
  list(APPEND _pc_binaries "tests/${bin}")
endforeach()
add_test(NAME arm64.build
  COMMAND "${_pc_arm64_dir}/cross-build" --source "${PROJECT_SOURCE_DIR}"
          --build "${_pc_arm64_build}" --build-type "${_pc_build_type}"
          --jobs ${_pc_cores} -- ${_pc_binaries})
# A hang bound, not a speed check: a cross-build with most objects out of
# the compiler cache took over 1200 s on a loaded 2-core machine.
set_tests_properties(arm64.build PROPERTIES
  FIXTURES_SETUP arm64_built FIXTURES_REQUIRED arm64_fetched
  LABELS arm64 TIMEOUT 2700 PROCESSORS ${_pc_cores})

add_test(NAME arm64.build_complete
  COMMAND "${_pc_arm64_dir}/cross-build" --report "${_pc_arm64_build}")
set_tests_properties(arm64.build_complete PROPERTIES
  FIXTURES_REQUIRED arm64_built LABELS arm64 TIMEOUT 10)

add_test(NAME arm64.runner COMMAND "${_pc_arm64_dir}/runner_test")
set_tests_properties(arm64.runner PROPERTIES
  FIXTURES_REQUIRED arm64_fetched LABELS arm64 TIMEOUT 300)

# The runner's own limit is below CTest's, so a hung test is reported by the
# runner (exit 124, with what it printed) rather than killed silently.
# Unoptimized code runs several times slower in the emulator (in Debug a
# tools test ran past the optimized tree's limit on a loaded 2-core
# machine), so a Debug tree gives every test twice the time.
if(_pc_build_type STREQUAL "Debug")
  set(_pc_run_limit 570)
else()
  set(_pc_run_limit 270)
endif()
math(EXPR _pc_ctest_limit "${_pc_run_limit} + 30")
# Test data the tests read by its source path is there in the machine too,
# and docs/ (tests check that the docs list what the code has).
set(_pc_mirror "")
foreach(_pc_dir tests/testdata docs)
  if(EXISTS "${PROJECT_SOURCE_DIR}/${_pc_dir}")
    list(APPEND _pc_mirror --mirror "${PROJECT_SOURCE_DIR}/${_pc_dir}")
  endif()
endforeach()
function(perfcounters_arm64_test name binary)
  add_test(NAME ${name}
    COMMAND "${_pc_runner}" --timeout ${_pc_run_limit} ${_pc_mirror} ${_pc_filter} ${ARGN}
            -- "${_pc_arm64_build}/tests/${binary}")
  set_tests_properties(${name} PROPERTIES
    FIXTURES_REQUIRED "arm64_fetched;arm64_built" LABELS arm64
    TIMEOUT ${_pc_ctest_limit})
endfunction()

# Executables a test depends on (add_dependencies), e.g. the benchmark
# binaries the benchmark_ext tests run or the perfcounters command the tools
# tests run, travel with it: `--with` puts them next to the test binary in
# the machine, `--mirror` at their path in the build tree.
function(_perfcounters_arm64_companions out bin)
  set(args "")
  get_target_property(deps ${bin} MANUALLY_ADDED_DEPENDENCIES)
  foreach(dep IN LISTS deps)
    if(NOT TARGET ${dep})
      continue()
    endif()
    get_target_property(type ${dep} TYPE)
    if(NOT type STREQUAL "EXECUTABLE")
      continue()
    endif()
    get_target_property(dir ${dep} RUNTIME_OUTPUT_DIRECTORY)
    if(NOT dir)
      get_target_property(dir ${dep} BINARY_DIR)
    endif()
    get_target_property(name ${dep} OUTPUT_NAME)
    if(NOT name)
      set(name ${dep})
    endif()
    file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${dir}/${name}")
    # Next to the test, and at its build path (tests that were compiled with
    # $<TARGET_FILE:...> of it).
    list(APPEND args --with "${_pc_arm64_build}/${rel}" --mirror "${_pc_arm64_build}/${rel}")
    # A program whose test reads its DWARF (target property
    # PERFCOUNTERS_ARM64_KEEP_DEBUG) keeps its debug sections.
    get_target_property(keep ${dep} PERFCOUNTERS_ARM64_KEEP_DEBUG)
    if(keep)
      list(APPEND args --keep-debug "${_pc_arm64_build}/${rel}")
    endif()
  endforeach()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

if(PERFCOUNTERS_ARM64_BATCH EQUAL 1)
  foreach(bin ${_pc_arm64_tests})
    _perfcounters_arm64_companions(with ${bin})
    perfcounters_arm64_test(arm64.${bin} ${bin} ${with})
  endforeach()
else()
  # Batches of up to N binaries, one boot each (pmu-vm --then): every binary
  # runs, its output between "pmu-vm: batch: <binary>" lines, and the test
  # fails when any of them does. Batch i takes binaries i, i+B, i+2B, ...
  # (B batches), so the slow ones (tools_*) spread over the batches.
  list(LENGTH _pc_arm64_tests _pc_n)
  math(EXPR _pc_batches "(${_pc_n} + ${PERFCOUNTERS_ARM64_BATCH} - 1) / ${PERFCOUNTERS_ARM64_BATCH}")
  math(EXPR _pc_last "${_pc_batches} - 1")
  foreach(i RANGE ${_pc_last})
    set(members "")
    set(idx ${i})
    while(idx LESS _pc_n)
      list(GET _pc_arm64_tests ${idx} bin)
      list(APPEND members ${bin})
      math(EXPR idx "${idx} + ${_pc_batches}")
    endwhile()
    set(exes "")
    set(keeps "")
    set(thens "")
    foreach(bin IN LISTS members)
      _perfcounters_arm64_companions(with ${bin})
      set(option "")
      foreach(arg IN LISTS with)
        if(arg MATCHES "^--")
          set(option "${arg}")
        elseif(option STREQUAL "--keep-debug")
          list(APPEND keeps "${arg}")
        else()
          list(APPEND exes "${arg}")
        endif()
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES exes)
    list(REMOVE_DUPLICATES keeps)
    set(with "")
    foreach(exe IN LISTS exes)
      list(APPEND with --with "${exe}" --mirror "${exe}")
    endforeach()
    foreach(exe IN LISTS keeps)
      list(APPEND with --keep-debug "${exe}")
    endforeach()
    list(GET members 0 first)
    list(SUBLIST members 1 -1 rest)
    foreach(bin IN LISTS rest)
      list(APPEND thens --then "${_pc_arm64_build}/tests/${bin}")
    endforeach()
    list(LENGTH members k)
    math(EXPR runner_timeout "${_pc_run_limit} * ${k}")
    math(EXPR ctest_timeout "${_pc_run_limit} * ${k} + 30")
    list(JOIN members "+" joined)
    add_test(NAME arm64.batch.${joined}
      COMMAND "${_pc_runner}" --timeout ${runner_timeout} ${_pc_mirror} ${_pc_filter}
              ${with} ${thens} -- "${_pc_arm64_build}/tests/${first}")
    set_tests_properties(arm64.batch.${joined} PROPERTIES
      FIXTURES_REQUIRED "arm64_fetched;arm64_built" LABELS arm64 TIMEOUT ${ctest_timeout})
  endforeach()
endif()
if("hardware_test" IN_LIST PERFCOUNTERS_TEST_BINARIES)
  perfcounters_arm64_test(arm64.hardware_test.shift1 hardware_test
    --icount-shift 1 --env PERFCOUNTERS_ICOUNT_SHIFT=1)
endif()
if("vendor_events_test" IN_LIST PERFCOUNTERS_TEST_BINARIES)
  perfcounters_arm64_test(arm64.vendor_events_test.a57 vendor_events_test
    --cpu cortex-a57)
endif()
if("vendor_events_hardware_test" IN_LIST PERFCOUNTERS_TEST_BINARIES)
  perfcounters_arm64_test(arm64.vendor_events_hardware_test.a57
    vendor_events_hardware_test --cpu cortex-a57)
endif()
# benchmark_ext_unmodified_test again, against Google Benchmark 1.9.5
# cross-built from the snapshots beside the checkout (tests/arm64/gbench-test
# builds it and that binary in <build>/arm64-gbench(-tree); skipped, saying so,
# without the snapshots): unmodified benchmarks counted to the instruction in
# its ProfilerManager's extra run. One boot of its own, in every batching,
# and only that exact case: the others check nothing that needs the PMU,
# run natively against 1.9.5 (scripts/ci-gbench), and cost ~75 s of host
# CPU in the machine.
if("benchmark_ext_unmodified_test" IN_LIST _pc_arm64_tests)
  # Its tree beside <build>/arm64, at the same depth: ccache serves it the
  # core library's objects compiled there.
  set(_pc_gb "${CMAKE_BINARY_DIR}/arm64-gbench")
  set(_pc_gb_tree "${CMAKE_BINARY_DIR}/arm64-gbench-tree")
  _perfcounters_arm64_companions(with benchmark_ext_unmodified_test)
  string(REPLACE "${_pc_arm64_build}/" "${_pc_gb_tree}/" with "${with}")
  add_test(NAME arm64.gbench-v1.9.5.benchmark_ext_unmodified_test
    COMMAND "${_pc_arm64_dir}/gbench-test" --source "${PROJECT_SOURCE_DIR}"
            --build "${_pc_gb}" --tree "${_pc_gb_tree}" --version v1.9.5
            --build-type "${_pc_build_type}"
            --jobs ${_pc_cores} --binary tests/benchmark_ext_unmodified_test
            -- --timeout ${_pc_run_limit} ${_pc_mirror} ${with}
            --env GTEST_FILTER=BenchmarkUnmodified.ExtraRunCountsTheInstructionsMeasureCounts)
  # After arm64.build (whose core objects it then takes from ccache), first
  # of the tests that follow it (COST: CTest starts the costliest first),
  # on one CTest slot: its serial steps (configures, links, the one boot)
  # leave the other cores to the batches.
  set_tests_properties(arm64.gbench-v1.9.5.benchmark_ext_unmodified_test PROPERTIES
    FIXTURES_REQUIRED "arm64_fetched;arm64_built" LABELS arm64 SKIP_RETURN_CODE 77
    TIMEOUT 1200 COST 1000)
endif()
