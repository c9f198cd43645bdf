# Install.cmake: `cmake --install` rules (PERFCOUNTERS_INSTALL, on by default
# when perfcounters is the top-level project):
#
#   lib/            libperfcounters, libperfcounters_benchmark_ext(_main)
#                   (static or shared after BUILD_SHARED_LIBS)
#   include/        perfcounters/*.h (the library's and benchmark_ext's)
#   bin/            the perfcounters command (PERFCOUNTERS_BUILD_TOOLS)
#   lib/cmake/perfcounters/   perfcountersConfig.cmake, ...ConfigVersion.cmake
#                   and the exported targets perfcounters::perfcounters,
#                   perfcounters::benchmark_ext, perfcounters::benchmark_ext_main
#                   (and their deprecated names perfcounters::benchmark,
#                   perfcounters::benchmark_main: perfcountersConfig.cmake)
#   lib/pkgconfig/  perfcounters.pc, perfcounters_benchmark_ext.pc,
#                   perfcounters_benchmark_ext_main.pc (and the deprecated
#                   perfcounters_benchmark.pc, perfcounters_benchmark_main.pc,
#                   which require them)
#
# The core library and the Google Benchmark integration are two export sets,
# so find_package(perfcounters) needs Google Benchmark only for the latter
# (cmake/perfcountersConfig.cmake.in).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PERFCOUNTERS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/perfcounters)
set(_pc_lib_destinations
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(TARGETS perfcounters EXPORT perfcountersTargets ${_pc_lib_destinations})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/perfcounters/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT perfcountersTargets NAMESPACE perfcounters::
  DESTINATION ${PERFCOUNTERS_CMAKE_DIR})
set(PERFCOUNTERS_PC_FILES perfcounters)

if(TARGET perfcounters_benchmark_ext)
  install(TARGETS perfcounters_benchmark_ext perfcounters_benchmark_ext_main
    EXPORT perfcountersBenchmarkTargets ${_pc_lib_destinations})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/benchmark_ext/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT perfcountersBenchmarkTargets NAMESPACE perfcounters::
    DESTINATION ${PERFCOUNTERS_CMAKE_DIR})
  list(APPEND PERFCOUNTERS_PC_FILES perfcounters_benchmark_ext perfcounters_benchmark_ext_main
    perfcounters_benchmark perfcounters_benchmark_main)
  # The consumer looks first where this build found Google Benchmark (a
  # Release build in its own prefix must not be mixed with the system's).
  set(PERFCOUNTERS_BENCHMARK_HINT "${benchmark_DIR}")
endif()

# A shared build's libraries find the ones they need next to them (a
# consumer's RUNPATH does not apply to its libraries' own dependencies).
if(BUILD_SHARED_LIBS)
  foreach(_pc_lib perfcounters_benchmark_ext perfcounters_benchmark_ext_main)
    if(TARGET ${_pc_lib})
      set_target_properties(${_pc_lib} PROPERTIES INSTALL_RPATH "$ORIGIN")
    endif()
  endforeach()
endif()

if(TARGET perfcounters_tool)
  # A shared build's command finds its libraries next to it in the prefix.
  if(BUILD_SHARED_LIBS)
    file(RELATIVE_PATH _pc_bin_to_lib "/${CMAKE_INSTALL_BINDIR}"
      "/${CMAKE_INSTALL_LIBDIR}")
    set_target_properties(perfcounters_tool PROPERTIES
      INSTALL_RPATH "$ORIGIN/${_pc_bin_to_lib}")
  endif()
  install(TARGETS perfcounters_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# libpfm4 (cmake/Libpfm.cmake) is linked PRIVATE, and no public header
# includes its headers: a consumer never needs libpfm4-dev's headers. A
# static libperfcounters exports it as $<LINK_ONLY:perfcounters::libpfm>, so
# its consumers link libpfm: the config file re-creates that imported
# target (the library this build used, else found again: libpfm.so, from
# libpfm4-dev), and perfcounters.pc adds -lpfm to Libs. A shared
# libperfcounters carries libpfm.so.4 as its own dependency: its consumers
# need only the run-time package libpfm4, so the config file looks for
# nothing and perfcounters.pc names -lpfm in Libs.private only (for
# pkg-config --static).
set(PERFCOUNTERS_CONFIG_LIBPFM "")
set(PERFCOUNTERS_PC_LIBS_LIBPFM "")
set(PERFCOUNTERS_PC_LIBS_PRIVATE "")
if(TARGET perfcounters::libpfm)
  get_target_property(_pc_type perfcounters TYPE)
  if(_pc_type STREQUAL "STATIC_LIBRARY")
    get_target_property(PERFCOUNTERS_CONFIG_LIBPFM perfcounters::libpfm
      IMPORTED_LOCATION)
    set(PERFCOUNTERS_PC_LIBS_LIBPFM " -lpfm")
  else()
    set(PERFCOUNTERS_PC_LIBS_PRIVATE "Libs.private: -lpfm")
  endif()
endif()

# elfutils libdw (cmake/Libdw.cmake) follows the same rules: a static
# libperfcounters exports $<LINK_ONLY:perfcounters::libdw>, which the config
# file re-creates (libdw and libelf, from libdw-dev) and perfcounters.pc
# adds -ldw -lelf to Libs; a shared one carries libdw.so.1 itself
# (Libs.private only). No public header includes elfutils' headers.
set(PERFCOUNTERS_CONFIG_LIBDW "")
set(PERFCOUNTERS_CONFIG_LIBELF "")
if(TARGET perfcounters::libdw)
  get_target_property(_pc_type perfcounters TYPE)
  if(_pc_type STREQUAL "STATIC_LIBRARY")
    get_target_property(PERFCOUNTERS_CONFIG_LIBDW perfcounters::libdw
      IMPORTED_LOCATION)
    set(PERFCOUNTERS_CONFIG_LIBELF "${PERFCOUNTERS_LIBELF_LIBRARY}")
    string(APPEND PERFCOUNTERS_PC_LIBS_LIBPFM " -ldw -lelf")
  elseif(PERFCOUNTERS_PC_LIBS_PRIVATE)
    string(APPEND PERFCOUNTERS_PC_LIBS_PRIVATE " -ldw -lelf")
  else()
    set(PERFCOUNTERS_PC_LIBS_PRIVATE "Libs.private: -ldw -lelf")
  endif()
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/perfcountersConfig.cmake.in
  ${PROJECT_BINARY_DIR}/perfcountersConfig.cmake
  INSTALL_DESTINATION ${PERFCOUNTERS_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/perfcountersConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/perfcountersConfig.cmake
              ${PROJECT_BINARY_DIR}/perfcountersConfigVersion.cmake
  DESTINATION ${PERFCOUNTERS_CMAKE_DIR})

# pkg-config: the prefix relative to the .pc file (${pcfiledir}), so the
# installed tree can move.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PERFCOUNTERS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  string(REGEX REPLACE "[^/]+" ".." _pc_up "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  set(PERFCOUNTERS_PC_PREFIX "\${pcfiledir}/${_pc_up}")
endif()
foreach(pc ${PERFCOUNTERS_PC_FILES})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
