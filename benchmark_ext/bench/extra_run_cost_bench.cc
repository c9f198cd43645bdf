// extra_run_cost_bench.cc: what gbench's extra run of every benchmark (its
// ProfilerManager, gbench 1.9 and newer), through which perfcounters' main
// counts unmodified `for (auto _ : state)` benchmarks, costs a benchmark
// that uses perfcounters::Measure (counted in its own run; in the extra run
// Measure skips its body).
//
// One program, phases run one after the other through gbench (rows
// discarded), each the same Measure benchmark, --perf_counters=task-clock:
//
//   none     no ProfilerManager registered: no extra run
//   other    a ProfilerManager of this program's, empty: what an extra run
//            costs when Measure does not know it is one (the body runs
//            again, counted, its row dropped by gbench)
//   pass     perfcounters' pass with its counting client (the main's):
//            Measure finishes gbench's loop at once; what is left is
//            gbench's (Setup, the benchmark function called once more, its
//            thread timer and barrier, Teardown) and the client's start and
//            stop of its counters
//
// Printed: process CPU time per repetition of each phase and the extra
// run's cost (a phase minus "none"), in microseconds and relative to the
// repetition without one. CPU time, so that a loaded machine does not blur
// it; the phases are run kRounds times, interleaved, and the median kept.
// Without a ProfilerManager (gbench before 1.9) it says so and exits 0.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "extra_run.h"
#include "extra_run_counting.h"
#include "measure_internal.h"
#include "perfcounters/benchmark_ext.h"

#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
namespace {

constexpr int kRepetitions = 100;
constexpr int kIterations = 100000;
constexpr int kRounds = 31;

void BM_Measured(benchmark::State& state) {
  int x = 0;
  for (auto _ : perfcounters::Measure(state)) benchmark::DoNotOptimize(++x);
}

class EmptyManager : public benchmark::ProfilerManager {
  void AfterSetupStart() override {}
  void BeforeTeardownStop() override {}
};

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Process CPU seconds per repetition of one run of the benchmark.
double Phase() {
  perfcounters::benchmark_ext_internal::NullReporter null;
  const double start = CpuSeconds();
  benchmark::RunSpecifiedBenchmarks(&null, "^BM_Measured(/|$)");
  return (CpuSeconds() - start) / kRepetitions;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace
#endif

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
#ifndef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  std::printf(
      "extra_run_cost_bench: this Google Benchmark (older than 1.9) has no "
      "ProfilerManager: no extra run, nothing to measure\n");
#else
  namespace bi = perfcounters::benchmark_ext_internal;
  const absl::StatusOr<perfcounters::Plan> plan =
      perfcounters::SetBenchmarkEvents("task-clock", {});
  if (!plan.ok()) {
    std::fprintf(stderr, "extra_run_cost_bench: %s\n",
                 std::string(plan.status().message()).c_str());
    return 1;
  }
  benchmark::RegisterBenchmark("BM_Measured", BM_Measured)
      ->Iterations(kIterations)
      ->Repetitions(kRepetitions);
  // gbench takes one manager: the phases register theirs in turn.
  absl::StatusOr<std::shared_ptr<const bi::Config> > config =
      bi::CurrentConfig();
  if (!config.ok() || !bi::StartExtraRunCounting(*config)) {
    std::fprintf(stderr, "extra_run_cost_bench: the pass did not start\n");
    return 1;
  }
  EmptyManager empty;
  std::vector<double> none, other, counted;
  Phase();  // warm-up: the groups opened, the code paged in
  for (int round = 0; round < kRounds; ++round) {
    bi::SetExtraRunRegistered(false);
    none.push_back(Phase());
    benchmark::RegisterProfilerManager(&empty);
    other.push_back(Phase());
    bi::SetExtraRunRegistered(true);
    counted.push_back(Phase());
  }
  bi::SetExtraRunRegistered(false);
  const double base = Median(none);
  const double e = Median(other) - base;
  const double p = Median(counted) - base;
  std::printf(
      "extra_run_cost_bench: a Measure benchmark (%d iterations, task-clock), "
      "process CPU time per repetition, median of %d rounds:\n"
      "  no extra run                 %8.2f us\n"
      "  another manager (body again) %8.2f us  (%+.2f us, %+.1f %%)\n"
      "  perfcounters' pass           %8.2f us  (%+.2f us, %+.1f %%)\n",
      kIterations, kRounds, base * 1e6, (base + e) * 1e6, e * 1e6,
      100 * e / base, (base + p) * 1e6, p * 1e6, 100 * p / base);
#endif
  return 0;
}
