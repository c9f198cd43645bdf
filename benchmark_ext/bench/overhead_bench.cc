// overhead_bench.cc: what perfcounters::Measure costs per batch boundary.
//
//   BM_StopStart   one Measure Pause() + Resume() per iteration: the
//                  snapshot at the end of a batch (read, delta, accumulate)
//                  plus the snapshot at the start of the next (read)
//   BM_RawReads    the floor: two read(2)s of every group of the same plan,
//                  into a fixed buffer, nothing else
//
// Run with the same list for both, e.g.
//   perfcounters_overhead_bench --perf_counters=task-clock,page-faults
// and compare: BM_StopStart / BM_RawReads should be <= 1.05.
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/benchmark_main.h"
#include "perfcounters/group.h"

namespace {

void BM_StopStart(benchmark::State& state) {
  perfcounters::Measure measure(state);
  for (auto _ : measure) {
    measure.Pause();
    measure.Resume();
  }
}
BENCHMARK(BM_StopStart);

void BM_RawReads(benchmark::State& state) {
  std::vector<perfcounters::Group> groups;
  for (const auto& planned : perfcounters::CurrentBenchmarkPlan().groups) {
    std::vector<perfcounters::EventSpec> specs;
    for (const auto& e : planned.events) specs.push_back(e.spec);
    perfcounters::GroupOptions options;
    options.start_disabled = false;
    auto group = perfcounters::Group::Open(specs, options);
    if (!group.ok()) {
      state.SkipWithError(std::string(group.status().message()).c_str());
      return;
    }
    groups.push_back(*std::move(group));
  }
  if (groups.empty()) {
    state.SkipWithError("no events: run with --perf_counters=LIST");
    return;
  }
  uint64_t buffer[3 + 2 * 64];
  for (auto _ : state) {
    for (const auto& g : groups) {
      benchmark::DoNotOptimize(read(g.leader().fd(), buffer, sizeof buffer));
      benchmark::DoNotOptimize(read(g.leader().fd(), buffer, sizeof buffer));
    }
  }
}
BENCHMARK(BM_RawReads);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
