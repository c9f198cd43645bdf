// ab_bench.cc: the benchmarks `perfcounters ab` is tested and measured on
// (tests/tools_ab_test.cc, bench/ab_experiment.sh): a dependency chain of
// multiply-adds whose length sets the time, so that a body with 3 % more
// steps is 3 % slower on any machine.
//
//   BM_Chain/N   N steps per iteration (N = 2000 and 20000)
//
// Built twice (tests/e2e/CMakeLists.txt), so that an A/B comparison has two
// builds of one source: perfcounters_ab_bench, and
// perfcounters_ab_bench_slower with PERFCOUNTERS_AB_BENCH_SLOWER_PCT=3,
// whose body takes 3 % more steps.
// Environment (set by the tests' wrapper scripts):
//   PERFCOUNTERS_AB_EXTRA=1       registers BM_Extra too (the benchmarks
//                                 then differ from a plain run's)
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "benchmark/benchmark.h"

#ifndef PERFCOUNTERS_AB_BENCH_SLOWER_PCT
#define PERFCOUNTERS_AB_BENCH_SLOWER_PCT 0
#endif

namespace {

// Each body's steps over N.
constexpr double kSlowerFactor = 1.0 + PERFCOUNTERS_AB_BENCH_SLOWER_PCT / 100.0;

void BM_Chain(benchmark::State& state) {
  const int64_t steps =
      std::llround(static_cast<double>(state.range(0)) * kSlowerFactor);
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
