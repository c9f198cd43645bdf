# cmake -DREADME=... -DEXAMPLE=... -P CheckReadmeExample.cmake
# Fails unless the ```cpp block that follows the line
# "<!-- example: examples/readme_example.cc -->" in README.md is exactly the
# example file after its two-line header comment, so the README's library
# example is the one the build compiles and the test runs.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
set(marker "<!-- example: examples/readme_example.cc -->\n```cpp\n")
string(FIND "${readme}" "${marker}" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md has no block marked '<!-- example: examples/readme_example.cc -->'")
endif()
string(LENGTH "${marker}" marker_len)
math(EXPR start "${start} + ${marker_len}")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} block)
# Drop the file's header comment (the lines before the first #include).
string(FIND "${example}" "#include" first_include)
string(SUBSTRING "${example}" ${first_include} -1 body)
if(NOT block STREQUAL body)
  message(FATAL_ERROR "README.md's example differs from examples/readme_example.cc; copy the file (from its first #include) into the README block")
endif()
message(STATUS "README example matches examples/readme_example.cc")
