// cache_bench.cc: the same number of loads, cache-friendly or not.
//
// BM_Sequential walks an array in order; BM_RandomChase follows a random
// cyclic permutation, so every load depends on the previous one and, once
// the array is larger than the caches, misses. Same instructions per
// element, very different cycles (IPC) and cache misses:
//   cache_bench --perf_counters=ipc,cache-misses,L1-dcache-load-misses
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace {

// A random single cycle through 0..n-1 (Sattolo's algorithm).
std::vector<uint32_t> RandomCycle(size_t n) {
  std::vector<uint32_t> next(n);
  std::iota(next.begin(), next.end(), 0u);
  std::mt19937 rng(42);
  for (size_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(next[i], next[pick(rng)]);
  }
  return next;
}

void BM_Sequential(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<uint32_t> next(n);
  for (size_t i = 0; i < n; ++i) next[i] = static_cast<uint32_t>((i + 1) % n);
  for (auto _ : perfcounters::Measure(state)) {
    uint32_t i = 0;
    for (size_t k = 0; k < n; ++k) i = next[i];
    benchmark::DoNotOptimize(i);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_Sequential)->Arg(1 << 12)->Arg(1 << 21);

void BM_RandomChase(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<uint32_t> next = RandomCycle(n);
  for (auto _ : perfcounters::Measure(state)) {
    uint32_t i = 0;
    for (size_t k = 0; k < n; ++k) i = next[i];
    benchmark::DoNotOptimize(i);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_RandomChase)->Arg(1 << 12)->Arg(1 << 21);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
