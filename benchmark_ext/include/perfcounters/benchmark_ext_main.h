// benchmark_ext_main.h: a main() for Google Benchmark programs with perf
// counters: PERFCOUNTERS_BENCHMARK_MAIN(), or link the library
// `perfcounters_benchmark_ext_main` (as gbench's `benchmark_main`).
//
// It takes the flags of benchmark_ext_flags.h out of argv before
// benchmark::Initialize(), prints their help before gbench's on --help,
// rejects a bad event list (unknown name, with close names) before any
// benchmark runs, warns once about every event this machine cannot count
// (with the reason), records the list in the JSON context, runs the
// benchmarks, and with --perf_counters_strict exits 1 if any requested
// counter was not counted.
//
// A program that links `perfcounters_benchmark_ext_main` must not define main()
// itself (gbench's BENCHMARK_MAIN()): it stops at start saying so.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_MAIN_H_
#define PERFCOUNTERS_BENCHMARK_EXT_MAIN_H_

namespace perfcounters {

// The whole main; returns the process exit status (0 success, 1 bad flags,
// bad event list or a strict-mode failure).
int BenchmarkMain(int argc, char** argv);

}  // namespace perfcounters

// Defined by PERFCOUNTERS_BENCHMARK_MAIN() (see there).
extern "C" void perfcounters_main_runs_benchmark_main();

// Defines main() as perfcounters::BenchmarkMain (use instead of
// BENCHMARK_MAIN()). The marker function tells perfcounters_benchmark_ext_main,
// when linked too, that this main() is perfcounters' (its start-up check
// stops a program whose own main() would run instead).
#define PERFCOUNTERS_BENCHMARK_MAIN()                        \
  extern "C" void perfcounters_main_runs_benchmark_main() {} \
  int main(int argc, char** argv) {                          \
    return ::perfcounters::BenchmarkMain(argc, argv);        \
  }                                                          \
  int main(int, char**)

#endif  // PERFCOUNTERS_BENCHMARK_EXT_MAIN_H_
