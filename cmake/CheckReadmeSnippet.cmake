# cmake -DREADME=... -DFILE=<dir>/tests/consumer/NAME/CMakeLists.txt -DREL=tests/consumer/NAME/CMakeLists.txt
#       -P CheckReadmeSnippet.cmake
# Fails unless the ```cmake block that follows the line
# "<!-- snippet: REL -->" in README.md is exactly the lines of FILE between
# "# readme: <title>" and "# readme: end", so README's "Use it in your
# project" snippets are the ones tests/consumer/run builds.
file(READ "${README}" readme)
file(READ "${FILE}" text)
include(${CMAKE_CURRENT_LIST_DIR}/ReadmeBlock.cmake)
perfcounters_readme_block(block "${readme}" "snippet: ${REL}" cmake)

string(REGEX MATCH "# readme: [^\n]*\n" open "${text}")
if(NOT open)
  message(FATAL_ERROR "${REL} has no '# readme: <title>' line")
endif()
string(FIND "${text}" "${open}" begin)
string(LENGTH "${open}" open_len)
math(EXPR begin "${begin} + ${open_len}")
string(SUBSTRING "${text}" ${begin} -1 after)
string(FIND "${after}" "# readme: end\n" stop)
if(stop EQUAL -1)
  message(FATAL_ERROR "${REL} has no '# readme: end' line")
endif()
string(SUBSTRING "${after}" 0 ${stop} body)
if(NOT block STREQUAL body)
  message(FATAL_ERROR "README.md's snippet differs from ${REL}; copy the lines between "
                      "'${open}' and '# readme: end' into the README block:\n${body}")
endif()
message(STATUS "README snippet matches ${REL}")
