// faults_main.cc: prints "page-faults <n>" for touching 3 fresh pages,
// counted inside the consumer's shared library (faults.h).
#include <cstdio>

#include "faults.h"

int main() {
  const double faults = PageFaultsOfTouching(3);
  if (faults < 0) return 1;
  std::printf("page-faults %.0f\n", faults);
  return 0;
}
