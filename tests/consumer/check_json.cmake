# cmake -DJSON=out.json -DNAME=<benchmark> -P check_json.cmake
# tests/consumer/run: prints the page-faults and task-clock counters of the
# benchmark NAME in Google Benchmark's JSON output ("<faults> <clock>"), and
# fails when the benchmark or either counter is missing.
file(READ "${JSON}" json)
string(JSON n LENGTH "${json}" benchmarks)
set(found OFF)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" benchmarks ${i} name)
  if(NOT "${name}" STREQUAL "${NAME}")
    continue()
  endif()
  set(found ON)
  string(JSON faults ERROR_VARIABLE err GET "${json}" benchmarks ${i} page-faults)
  if(err)
    message(FATAL_ERROR "${NAME}: no page-faults counter in ${JSON}")
  endif()
  string(JSON clock ERROR_VARIABLE err GET "${json}" benchmarks ${i} task-clock)
  if(err)
    message(FATAL_ERROR "${NAME}: no task-clock counter in ${JSON}")
  endif()
  # CMake has no floating point: the caller compares the numbers.
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${faults} ${clock}")
endforeach()
if(NOT found)
  message(FATAL_ERROR "no benchmark ${NAME} in ${JSON}")
endif()
