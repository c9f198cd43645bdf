# CheckToolsLayers.cmake: the test tools_layers (cmake/ToolsLayers.cmake).
# cmake -DDATA=<build>/tools_layers.cmake -DTOOLS_DIR=<src>/tools
#       -DGENERATOR=<generator> -DBUILD_NINJA=<build>/build.ninja -P this
# Fails, naming each offence, when
#   - a layer depends on one declared after it (an upward edge, or a cycle);
#   - a layer other than history links libsqlite3 or libpq;
#   - a file of tools/ is in no layer, or in two;
#   - a file #includes a tools/ header of a layer that is neither its own
#     nor one it depends on (directly or not);
#   - (Ninja) an executable links the history layer, libsqlite3 or libpq
#     without being one of ALLOWED_HISTORY (the command, the history tests);
#   - a file includes or names abseil's Swiss tables (flat_/node_hash_map/set) but
#     those of SWISS_TABLES_ALLOWED: data that grows with the input goes in
#     oom_safe_map.h's OomSafeMap/OomSafeSet (why: that header);
#   - a file of the project other than BOOST_ALLOWED includes Boost (its
#     headers cost a file ~4 s of CPU; Boost.Math is the analysis layer's
#     private dependency, through statistics.h's plain declarations).
# Prints the layers, their edges and the counts it checked.
cmake_minimum_required(VERSION 3.25)
include(${DATA})
set(errors "")
# The files whose Swiss tables never hold input-sized data.
set(SWISS_TABLES_ALLOWED
  list_command.cc  # the system's event names (sysfs), not an input file
)
# The one file that includes Boost (Boost.Math's distributions).
set(BOOST_ALLOWED tools/statistics.cc)
set(edges 0)

# The layer graph: every dependency declared before its user.
set(seen "")
foreach(layer ${LAYERS})
  foreach(dep ${DEPS_${layer}})
    math(EXPR edges "${edges} + 1")
    if(NOT dep IN_LIST seen)
      list(APPEND errors "layer ${layer} depends on ${dep}, which is not below it")
    endif()
  endforeach()
  if(NOT layer STREQUAL "history" AND LIBS_${layer} MATCHES "sqlite3|libpq|(^|;)pq(;|$)")
    list(APPEND errors "layer ${layer} links libsqlite3 or libpq (only history may)")
  endif()
  message(STATUS "layer ${layer} -> ${DEPS_${layer}}")
  list(APPEND seen ${layer})
endforeach()

# Transitive dependencies.
foreach(layer ${LAYERS})
  set(reach ${layer})
  set(todo ${DEPS_${layer}})
  while(todo)
    list(POP_FRONT todo dep)
    if(NOT dep IN_LIST reach)
      list(APPEND reach ${dep})
      list(APPEND todo ${DEPS_${dep}})
    endif()
  endwhile()
  set(REACH_${layer} ${reach})
endforeach()

# Every file in one layer (or left out by this configuration).
set(owner_files "")
foreach(layer ${LAYERS})
  foreach(f ${FILES_${layer}})
    get_filename_component(name ${f} NAME)
    if(DEFINED LAYER_OF_${name})
      list(APPEND errors "tools/${name} is in two layers: ${LAYER_OF_${name}} and ${layer}")
    endif()
    set(LAYER_OF_${name} ${layer})
    list(APPEND owner_files ${f})
  endforeach()
endforeach()
foreach(f ${LEFT_OUT})
  get_filename_component(name ${f} NAME)
  set(LEFT_OUT_${name} 1)
endforeach()
file(GLOB all RELATIVE ${TOOLS_DIR} ${TOOLS_DIR}/*.cc ${TOOLS_DIR}/*.h)
foreach(name ${all})
  if(NOT DEFINED LAYER_OF_${name} AND NOT DEFINED LEFT_OUT_${name})
    list(APPEND errors "tools/${name} is in no layer: add it to one in tools/CMakeLists.txt")
  endif()
endforeach()

# Includes point down.
set(includes 0)
foreach(f ${owner_files})
  get_filename_component(name ${f} NAME)
  set(layer ${LAYER_OF_${name}})
  file(STRINGS ${f} swiss REGEX "absl::(flat|node)_hash_(map|set)|absl/container/(flat|node)_hash_(map|set)\\.h")
  if(swiss AND NOT name IN_LIST SWISS_TABLES_ALLOWED)
    string(REGEX MATCH "absl[:/][a-z_:/]*_hash_(map|set)" what "${swiss}")
    list(APPEND errors "tools/${name} uses a Swiss table (${what}): its failed rehash corrupts it, so data that grows with the input goes in OomSafeMap/OomSafeSet (oom_safe_map.h)")
  endif()
  file(STRINGS ${f} lines REGEX "^#include \"[^\"]+\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    if(NOT EXISTS ${TOOLS_DIR}/${header})
      continue()  # not tools/'s (absl, nlohmann, CLI11, the core)
    endif()
    math(EXPR includes "${includes} + 1")
    if(DEFINED LEFT_OUT_${header})
      list(APPEND errors "tools/${name} (${layer}) includes ${header}, which this configuration leaves out")
    elseif(NOT DEFINED LAYER_OF_${header})
      # Reported above (in no layer).
    elseif(NOT LAYER_OF_${header} IN_LIST REACH_${layer})
      list(APPEND errors "tools/${name} (${layer}) includes ${header} (${LAYER_OF_${header}}), a layer ${layer} does not depend on")
    endif()
  endforeach()
endforeach()

# What the executables link (Ninja's link lines).
set(executables 0)
if(GENERATOR STREQUAL "Ninja" OR GENERATOR STREQUAL "Ninja Multi-Config")
  file(STRINGS ${BUILD_NINJA} link_lines REGEX
    "^build [^:]+: CXX_EXECUTABLE_LINKER__|^  LINK_LIBRARIES = ")
  list(JOIN ALLOWED_HISTORY ", " allowed)
  set(target "")
  foreach(line IN LISTS link_lines)
    if(line MATCHES "^build [^:]+: CXX_EXECUTABLE_LINKER__([A-Za-z0-9_.+-]+)_[A-Za-z]*( |$)")
      set(target ${CMAKE_MATCH_1})
    elseif(target)
      math(EXPR executables "${executables} + 1")
      if(line MATCHES "libperfcounters_tools_history\\.a|libsqlite3|libpq\\."
         AND NOT target IN_LIST ALLOWED_HISTORY)
        list(APPEND errors "${target} links the history layer (libsqlite3, libpq), which only ${allowed} may: link the layer it needs (tests/CMakeLists.txt)")
      endif()
      set(target "")
    endif()
  endforeach()
else()
  message(STATUS "the link lines are checked with Ninja only (this is ${GENERATOR})")
endif()

list(LENGTH LAYERS n_layers)
list(LENGTH owner_files n_files)
message(STATUS "${n_layers} layers, ${edges} edges between them, ${n_files} files, "
               "${includes} includes of tools/ headers, ${executables} link lines")
# Boost in one file: every C++ file of the project's source folders.
get_filename_component(root ${TOOLS_DIR} DIRECTORY)
set(globs "")
foreach(dir perfcounters benchmark_ext tools tests bench examples fuzz)
  list(APPEND globs ${root}/${dir}/*.cc ${root}/${dir}/*.h ${root}/${dir}/*.hpp)
endforeach()
file(GLOB_RECURSE cxx_files RELATIVE ${root} ${globs})
foreach(f ${cxx_files})
  file(STRINGS ${root}/${f} boost REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]boost/")
  if(boost AND NOT f IN_LIST BOOST_ALLOWED)
    list(APPEND errors "${f} includes Boost: only ${BOOST_ALLOWED} may (declare what it needs in tools/statistics.h)")
  endif()
endforeach()

if(errors)
  list(JOIN errors "\n  " text)
  message(FATAL_ERROR "tools/ layering broken:\n  ${text}")
endif()
