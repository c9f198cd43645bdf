// cxx17.cc: built by a target that asks for CXX_STANDARD 17 and links
// perfcounters: CMake must compile it as C++20, the standard perfcounters'
// headers need (cxx_std_20 is a PUBLIC compile feature).
#include "perfcounters/perfcounters.h"

static_assert(__cplusplus >= 202002L,
              "perfcounters' C++20 requirement did not propagate");

int main() {
  perfcounters::ParseOptions options;
  return perfcounters::ParseEventList("task-clock", options).ok() ? 0 : 1;
}
