# ReadmeBlock.cmake: included by the README checks (CheckReadmeExample.cmake,
# CheckReadmeSnippet.cmake).
#
#   perfcounters_readme_block(<out var> <README text> <marker> <language>)
#
# The fenced block (```<language>) that follows the line "<!-- <marker> -->";
# a fatal error when README has no such block.
function(perfcounters_readme_block out readme marker lang)
  set(head "<!-- ${marker} -->\n```${lang}\n")
  string(FIND "${readme}" "${head}" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "README.md has no block marked '<!-- ${marker} -->'")
  endif()
  string(LENGTH "${head}" head_len)
  math(EXPR start "${start} + ${head_len}")
  string(SUBSTRING "${readme}" ${start} -1 rest)
  string(FIND "${rest}" "```" end)
  string(SUBSTRING "${rest}" 0 ${end} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()
