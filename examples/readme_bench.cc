// The Google Benchmark example from README.md (examples/CMakeLists.txt
// checks that the two stay identical, and runs it).
#include <numeric>
#include <vector>

#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

static void BM_Sum(benchmark::State& state) {
  std::vector<int> v(state.range(0), 1);
  for (auto _ : perfcounters::Measure(state)) {  // instead of `: state`
    benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0));
  }
}
BENCHMARK(BM_Sum)->Arg(1 << 16);
PERFCOUNTERS_BENCHMARK_MAIN();  // or link perfcounters_benchmark_ext_main
