// main_entry.cc: main() of the perfcounters_benchmark_main library.
#include "perfcounters/benchmark_main.h"

int main(int argc, char** argv) {
  return perfcounters::BenchmarkMain(argc, argv);
}
