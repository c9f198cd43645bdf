# Library.cmake: what every installed perfcounters library shares.
#
#   perfcounters_library_properties(<target> <export name>)
#
# C++20 as a PUBLIC compile feature (a consumer's target is compiled as C++20
# even when it asks for C++17), position-independent code (a static archive
# links into a consumer's shared library), the shared-library version, the
# exported name (perfcounters::<export name>) and the installed include
# directory.
function(perfcounters_library_properties target export_name)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    EXPORT_NAME ${export_name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:include>)
endfunction()

# perfcounters_test_target(<out var> <test binary name>): the target of the
# test binary tests/<name>: <name> when perfcounters is the top-level
# project, perfcounters_<name> in a parent's build, where a generic name
# (event_test) may be taken.
function(perfcounters_test_target out name)
  if(PROJECT_IS_TOP_LEVEL)
    set(${out} ${name} PARENT_SCOPE)
  else()
    set(${out} perfcounters_${name} PARENT_SCOPE)
  endif()
endfunction()

# perfcounters_has_debug_info(<out var>): whether CMAKE_CXX_FLAGS and the
# build type's flags ask for debug information (a -g option other than -g0).
function(perfcounters_has_debug_info out)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" type)
  set(flags " ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${type}} ")
  string(REGEX REPLACE " -g0 " " " flags "${flags}")
  if(flags MATCHES " -g")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()
