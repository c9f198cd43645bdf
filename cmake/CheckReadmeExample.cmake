# cmake -DREADME=... -DEXAMPLE=<dir>/examples/NAME.cc -P CheckReadmeExample.cmake
# Fails unless the ```cpp block that follows the line
# "<!-- example: examples/NAME.cc -->" in README.md is exactly the example
# file from its first #include on, so the README's examples are the ones the
# build compiles and the tests run.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
get_filename_component(name "${EXAMPLE}" NAME)
include(${CMAKE_CURRENT_LIST_DIR}/ReadmeBlock.cmake)
perfcounters_readme_block(block "${readme}" "example: examples/${name}" cpp)
# Drop the file's header comment (the lines before the first #include).
string(FIND "${example}" "#include" first_include)
string(SUBSTRING "${example}" ${first_include} -1 body)
if(NOT block STREQUAL body)
  message(FATAL_ERROR "README.md's example differs from examples/${name}; copy the file (from its first #include) into the README block")
endif()
message(STATUS "README example matches examples/${name}")
