# Libpfm.cmake: finds libpfm4 (Debian libpfm4-dev: perfmon/pfmlib.h and
# libpfm) and defines the imported target perfcounters::libpfm when it is
# found and PERFCOUNTERS_WITH_LIBPFM is ON (the default when found).
#
# libpfm4 resolves vendor event names (INST_RETIRED:ANY_P,
# mem_load_retired.l3_miss, RETIRED_INSTRUCTIONS) for the core library,
# which links it PRIVATE. All find logic lives here, so an installed
# package's config file can include this file (or repeat its find_library)
# to give a static perfcounters its link dependency.
#
# Sets PERFCOUNTERS_HAVE_LIBPFM (TRUE/FALSE) for the caller.
include_guard(GLOBAL)

find_path(PERFCOUNTERS_LIBPFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
# libpfm.so: Debian's libpfm.a is not position independent (x86_64:
# "relocation R_X86_64_PC32 against stderr"), so neither a shared
# perfcounters nor a consumer's shared library over a static perfcounters
# (add_subdirectory, FetchContent) could link it. Only a cross build for the
# emulated arm64 machine prefers the archive: its test programs then need
# no libpfm there.
if(CMAKE_CROSSCOMPILING AND NOT BUILD_SHARED_LIBS)
  find_library(PERFCOUNTERS_LIBPFM_LIBRARY NAMES libpfm.a pfm)
else()
  find_library(PERFCOUNTERS_LIBPFM_LIBRARY NAMES pfm)
endif()
if(PERFCOUNTERS_LIBPFM_INCLUDE_DIR AND PERFCOUNTERS_LIBPFM_LIBRARY)
  set(_perfcounters_libpfm_found TRUE)
else()
  set(_perfcounters_libpfm_found FALSE)
endif()
option(PERFCOUNTERS_WITH_LIBPFM
  "Resolve vendor event names through libpfm4 (apt-get install libpfm4-dev)"
  ${_perfcounters_libpfm_found})

set(PERFCOUNTERS_HAVE_LIBPFM FALSE)
if(PERFCOUNTERS_WITH_LIBPFM)
  if(NOT _perfcounters_libpfm_found)
    message(FATAL_ERROR "PERFCOUNTERS_WITH_LIBPFM is ON but libpfm4 was not "
      "found (perfmon/pfmlib_perf_event.h and libpfm): apt-get install "
      "libpfm4-dev (scripts/deps.sh does), or -DPERFCOUNTERS_WITH_LIBPFM=OFF")
  endif()
  if(NOT TARGET perfcounters::libpfm)
    add_library(perfcounters::libpfm UNKNOWN IMPORTED GLOBAL)
    set_target_properties(perfcounters::libpfm PROPERTIES
      IMPORTED_LOCATION "${PERFCOUNTERS_LIBPFM_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${PERFCOUNTERS_LIBPFM_INCLUDE_DIR}")
  endif()
  set(PERFCOUNTERS_HAVE_LIBPFM TRUE)
  message(STATUS "perfcounters: libpfm4 vendor events ON (${PERFCOUNTERS_LIBPFM_LIBRARY})")
else()
  message(STATUS "perfcounters: libpfm4 vendor events OFF")
endif()
