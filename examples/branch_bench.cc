// branch_bench.cc: branchy vs branchless code on sorted and unsorted data.
//
// Summing the elements >= 128 with an `if` is fast on sorted data (the
// branch is predictable) and slow on random data (half the branches
// mispredict); the branchless version does not care:
//   branch_bench --perf_counters=ipc,branch-miss-rate
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace {

std::vector<uint8_t> Data(bool sorted) {
  std::vector<uint8_t> v(1 << 16);
  std::mt19937 rng(7);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  if (sorted) std::sort(v.begin(), v.end());
  return v;
}

void BM_Branchy(benchmark::State& state) {
  const std::vector<uint8_t> v = Data(state.range(0) != 0);
  for (auto _ : perfcounters::Measure(state)) {
    uint64_t sum = 0;
    for (uint8_t x : v) {
      // DoNotOptimize (an asm statement) inside the `if` runs only when
      // x >= 128, so the compiler cannot turn the `if` into a conditional
      // move (gcc 12 -O2 does for a plain `if (x >= 128) sum += x;`, on
      // x86-64 and arm64): a real branch on the data.
      if (x >= 128) benchmark::DoNotOptimize(sum += x);
    }
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Branchy)->ArgName("sorted")->Arg(0)->Arg(1);

void BM_Branchless(benchmark::State& state) {
  const std::vector<uint8_t> v = Data(state.range(0) != 0);
  for (auto _ : perfcounters::Measure(state)) {
    uint64_t sum = 0;
    for (uint8_t x : v) {
      const uint64_t mask = -static_cast<uint64_t>(x >= 128);
      sum += x & mask;
      benchmark::DoNotOptimize(sum);
    }
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Branchless)->ArgName("sorted")->Arg(0)->Arg(1);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
