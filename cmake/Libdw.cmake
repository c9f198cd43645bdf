# Libdw.cmake: finds elfutils' libdw (Debian libdw-dev: elfutils/libdwfl.h,
# libdw and libelf; pkg-config module `libdw`) and defines the imported
# target perfcounters::libdw when it is found and PERFCOUNTERS_WITH_LIBDW is
# ON (the default when found).
#
# libdw symbolizes profiles in-process (symbols.h: function names, inlined
# frames, files and lines). The core library links it PRIVATE and no public
# header includes it; as for libpfm4 (cmake/Libpfm.cmake) all find logic
# lives here so that the installed config file can repeat it for a static
# perfcounters.
#
# Sets PERFCOUNTERS_HAVE_LIBDW (TRUE/FALSE) for the caller.
include_guard(GLOBAL)

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_PERFCOUNTERS_LIBDW QUIET libdw)
endif()
find_path(PERFCOUNTERS_LIBDW_INCLUDE_DIR elfutils/libdwfl.h
  HINTS ${PC_PERFCOUNTERS_LIBDW_INCLUDE_DIRS})
find_library(PERFCOUNTERS_LIBDW_LIBRARY NAMES dw
  HINTS ${PC_PERFCOUNTERS_LIBDW_LIBRARY_DIRS})
find_library(PERFCOUNTERS_LIBELF_LIBRARY NAMES elf
  HINTS ${PC_PERFCOUNTERS_LIBDW_LIBRARY_DIRS})
if(PERFCOUNTERS_LIBDW_INCLUDE_DIR AND PERFCOUNTERS_LIBDW_LIBRARY AND
   PERFCOUNTERS_LIBELF_LIBRARY)
  set(_perfcounters_libdw_found TRUE)
else()
  set(_perfcounters_libdw_found FALSE)
endif()
option(PERFCOUNTERS_WITH_LIBDW
  "Symbolize profiles with elfutils libdw (apt-get install libdw-dev)"
  ${_perfcounters_libdw_found})

set(PERFCOUNTERS_HAVE_LIBDW FALSE)
if(PERFCOUNTERS_WITH_LIBDW)
  if(NOT _perfcounters_libdw_found)
    message(FATAL_ERROR "PERFCOUNTERS_WITH_LIBDW is ON but elfutils libdw was "
      "not found (elfutils/libdwfl.h, libdw, libelf): apt-get install "
      "libdw-dev (scripts/deps.sh does), or -DPERFCOUNTERS_WITH_LIBDW=OFF")
  endif()
  if(NOT TARGET perfcounters::libdw)
    add_library(perfcounters::libdw UNKNOWN IMPORTED GLOBAL)
    set_target_properties(perfcounters::libdw PROPERTIES
      IMPORTED_LOCATION "${PERFCOUNTERS_LIBDW_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${PERFCOUNTERS_LIBDW_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${PERFCOUNTERS_LIBELF_LIBRARY}")
  endif()
  set(PERFCOUNTERS_HAVE_LIBDW TRUE)
  message(STATUS "perfcounters: libdw symbolization ON (${PERFCOUNTERS_LIBDW_LIBRARY})")
else()
  message(STATUS "perfcounters: libdw symbolization OFF")
endif()
