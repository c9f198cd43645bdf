// program_main.cc: main() of the perfcounters_benchmark_ext_main library, and
// the start-up check that the program's main() is that one.
//
// The library's main() is weak, and the library's link interface pulls this
// file in (-Wl,--undefined=perfcounters_benchmark_main_entry) whether or
// not the program defines main() itself. A program that kept gbench's
// BENCHMARK_MAIN() would otherwise build without a word and run gbench's
// main, which refuses --perf_counters as an unknown flag; the check stops it
// at start with one line that says what to change.
#include <unistd.h>

#include <cstdio>

#include "perfcounters/benchmark_ext_main.h"

extern "C" int perfcounters_benchmark_main_entry(int argc, char** argv) {
  return perfcounters::BenchmarkMain(argc, argv);
}

// The program's main(): this one unless the program defines its own.
extern "C" int perfcounters_program_main(int, char**) __asm__("main")
    __attribute__((weak, alias("perfcounters_benchmark_main_entry")));

// Defined by PERFCOUNTERS_BENCHMARK_MAIN(), whose main() is perfcounters'.
extern "C" __attribute__((weak)) void perfcounters_main_runs_benchmark_main();

namespace {

__attribute__((constructor)) void CheckTheProgramsMain() {
  if (&perfcounters_program_main == &perfcounters_benchmark_main_entry ||
      perfcounters_main_runs_benchmark_main != nullptr) {
    return;
  }
  std::fputs(
      "perfcounters: error: this program defines its own main() (gbench's "
      "BENCHMARK_MAIN()?) and links perfcounters::benchmark_ext_main, whose "
      "main() runs the benchmarks with --perf_counters: delete "
      "BENCHMARK_MAIN(), or link perfcounters::benchmark_ext instead to keep "
      "your main() (events from PERFCOUNTERS_EVENTS)\n",
      stderr);
  _exit(1);
}

}  // namespace
