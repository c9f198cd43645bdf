# ToolsLayers.cmake: tools/ as layered static libraries, and the test that
# holds them to their layering.
#
# perfcounters_tools_layer(<name> SOURCES <file>... [PUBLIC <lib>...]
#                          [PRIVATE <lib>...])
#   Adds the static library perfcounters_tools_<name> of tools/'s <file>s
#   (sources and the headers that belong to it). Its PUBLIC/PRIVATE
#   libraries say what it may use: the layers below it, by target name.
#   Layers are declared bottom-up; the order is the layering.
# perfcounters_tools_left_out(<file>...)
#   Files of tools/ this configuration does not build (the history store
#   without SQLite/libpq), so that the check knows they are not forgotten.
# perfcounters_tools_layers_test(ALLOWED_HISTORY <target>...)
#   Writes what the check needs (each layer's files and direct
#   dependencies) and adds the test tools_layers (cmake/CheckToolsLayers.cmake):
#   every edge between layers points down; every file of tools/ is in one
#   layer and includes headers of its own layer or of those below it; only
#   the history layer links libsqlite3 or libpq, and of the executables
#   only the <target>s link the history layer (read from build.ninja's link
#   lines).

function(perfcounters_tools_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;PUBLIC;PRIVATE")
  set(target perfcounters_tools_${name})
  add_library(${target} STATIC ${arg_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  set_property(GLOBAL APPEND PROPERTY PERFCOUNTERS_TOOLS_LAYERS ${name})
  list(TRANSFORM arg_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  set_property(GLOBAL PROPERTY PERFCOUNTERS_TOOLS_LAYER_${name} ${arg_SOURCES})
endfunction()

function(perfcounters_tools_left_out)
  set(files ${ARGN})
  list(TRANSFORM files PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  set_property(GLOBAL APPEND PROPERTY PERFCOUNTERS_TOOLS_LEFT_OUT ${files})
endfunction()

function(perfcounters_tools_layers_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "ALLOWED_HISTORY;EXTRA")
  get_property(layers GLOBAL PROPERTY PERFCOUNTERS_TOOLS_LAYERS)
  get_property(left_out GLOBAL PROPERTY PERFCOUNTERS_TOOLS_LEFT_OUT)
  set(data "set(LAYERS \"${layers}\")\nset(LEFT_OUT \"${left_out}\")\n")
  string(APPEND data "set(ALLOWED_HISTORY \"${arg_ALLOWED_HISTORY}\")\n")
  foreach(layer ${layers})
    get_property(files GLOBAL PROPERTY PERFCOUNTERS_TOOLS_LAYER_${layer})
    # Files outside the layers' libraries that belong to one (main.cc).
    foreach(extra ${arg_EXTRA})
      if(extra MATCHES "^${layer}=(.*)$")
        list(APPEND files ${CMAKE_CURRENT_SOURCE_DIR}/${CMAKE_MATCH_1})
      endif()
    endforeach()
    get_target_property(libs perfcounters_tools_${layer} LINK_LIBRARIES)
    set(deps "")
    foreach(lib ${libs})
      if(lib MATCHES "^perfcounters_tools_(.*)$")
        list(APPEND deps ${CMAKE_MATCH_1})
      endif()
    endforeach()
    string(APPEND data "set(FILES_${layer} \"${files}\")\n"
                       "set(DEPS_${layer} \"${deps}\")\n"
                       "set(LIBS_${layer} \"${libs}\")\n")
  endforeach()
  set(file ${CMAKE_BINARY_DIR}/tools_layers.cmake)
  file(WRITE ${file} "${data}")
  if(PERFCOUNTERS_BUILD_TESTS)
    add_test(NAME tools_layers COMMAND ${CMAKE_COMMAND} -DDATA=${file}
      -DTOOLS_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DGENERATOR=${CMAKE_GENERATOR}
      -DBUILD_NINJA=${CMAKE_BINARY_DIR}/build.ninja
      -P ${PROJECT_SOURCE_DIR}/cmake/CheckToolsLayers.cmake)
    set_tests_properties(tools_layers PROPERTIES LABELS native)
  endif()
endfunction()
