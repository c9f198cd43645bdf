// threads_bench.cc: counters in threaded benchmarks, and false sharing.
//
// Every thread increments its own counter. In BM_SharedLine the counters
// sit on one cache line, which the cores pass back and forth; in
// BM_PaddedLines each has its own line. The counters are per iteration and
// per thread's work, the same at 1, 2 and 4 threads when nothing is shared
// (Google Benchmark sums counters over threads; perfcounters divides by the
// iterations of all threads):
//   threads_bench --perf_counters=ipc,task-clock,context-switches
#include <atomic>
#include <cstdint>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace {

struct Shared {
  std::atomic<uint64_t> counters[4];
};
struct alignas(64) Padded {
  std::atomic<uint64_t> counter;
};

Shared g_shared;
Padded g_padded[4];

void BM_SharedLine(benchmark::State& state) {
  std::atomic<uint64_t>& mine = g_shared.counters[state.thread_index() % 4];
  for (auto _ : perfcounters::Measure(state)) {
    for (int i = 0; i < 1000; ++i) mine.fetch_add(1, std::memory_order_relaxed);
  }
}
BENCHMARK(BM_SharedLine)->Threads(1)->Threads(2)->Threads(4);

void BM_PaddedLines(benchmark::State& state) {
  std::atomic<uint64_t>& mine = g_padded[state.thread_index() % 4].counter;
  for (auto _ : perfcounters::Measure(state)) {
    for (int i = 0; i < 1000; ++i) mine.fetch_add(1, std::memory_order_relaxed);
  }
}
BENCHMARK(BM_PaddedLines)->Threads(1)->Threads(2)->Threads(4);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
