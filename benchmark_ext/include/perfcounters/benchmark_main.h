// benchmark_main.h: a main() for Google Benchmark programs with perf
// counters: PERFCOUNTERS_BENCHMARK_MAIN(), or link the library
// `perfcounters_benchmark_main` (as gbench's `benchmark_main`).
//
// It takes the flags of benchmark_flags.h out of argv before
// benchmark::Initialize(), prints their help before gbench's on --help,
// rejects a bad event list (unknown name, with close names) before any
// benchmark runs, warns once about every event this machine cannot count
// (with the reason), records the list in the JSON context, runs the
// benchmarks, and with --perf_counters_strict exits 1 if any requested
// counter was not counted.
#ifndef PERFCOUNTERS_BENCHMARK_MAIN_H_
#define PERFCOUNTERS_BENCHMARK_MAIN_H_

namespace perfcounters {

// The whole main; returns the process exit status (0 success, 1 bad flags,
// bad event list or a strict-mode failure).
int BenchmarkMain(int argc, char** argv);

}  // namespace perfcounters

// Defines main() as perfcounters::BenchmarkMain (use instead of
// BENCHMARK_MAIN()).
#define PERFCOUNTERS_BENCHMARK_MAIN()                 \
  int main(int argc, char** argv) {                   \
    return ::perfcounters::BenchmarkMain(argc, argv); \
  }                                                   \
  int main(int, char**)

#endif  // PERFCOUNTERS_BENCHMARK_MAIN_H_
