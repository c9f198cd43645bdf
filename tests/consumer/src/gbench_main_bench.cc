// gbench_main_bench.cc: a suite moved over half-way — its loop uses
// perfcounters::Measure, but it kept gbench's BENCHMARK_MAIN() while its
// build links perfcounters::benchmark_ext_main (tests/consumer/run): the
// program must stop at start with one line that says what to change,
// never run gbench's main, which refuses --perf_counters.
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"

static void BM_Empty(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Empty);

BENCHMARK_MAIN();
