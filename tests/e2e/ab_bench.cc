// ab_bench.cc: the benchmarks `perfcounters ab` is tested and measured on
// (tests/tools_ab_test.cc, bench/ab_experiment.sh): a dependency chain of
// multiply-adds whose length sets the time, so that a body with 3 % more
// steps is 3 % slower on any machine.
//
//   BM_Chain/N   N steps per iteration (N = 2000 and 20000)
//
// Environment (set by the tests' wrapper scripts, so that one binary plays
// both builds of an A/B comparison):
//   PERFCOUNTERS_AB_SLOWER_PCT=P  every body takes P % more steps
//   PERFCOUNTERS_AB_EXTRA=1       registers BM_Extra too (the benchmarks
//                                 then differ from a plain run's)
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "benchmark/benchmark.h"

namespace {

double SlowerFactor() {
  const char* pct = std::getenv("PERFCOUNTERS_AB_SLOWER_PCT");
  return pct == nullptr ? 1.0 : 1.0 + std::atof(pct) / 100.0;
}

void BM_Chain(benchmark::State& state) {
  const int64_t steps =
      std::llround(static_cast<double>(state.range(0)) * SlowerFactor());
  uint64_t x = 1;
  for (auto _ : state) {
    for (int64_t i = 0; i < steps; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      benchmark::DoNotOptimize(x);
    }
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_Chain)->Arg(2000)->Arg(20000);

void BM_Extra(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}

[[maybe_unused]] const bool kExtraRegistered = [] {
  const char* extra = std::getenv("PERFCOUNTERS_AB_EXTRA");
  if (extra != nullptr && std::atoi(extra) == 1) {
    benchmark::RegisterBenchmark("BM_Extra", BM_Extra);
  }
  return true;
}();

}  // namespace
