// extra_run.h: gbench's extra run of every benchmark (its
// ProfilerManager, gbench 1.9 and newer), shared by every client that
// wants to observe unmodified `for (auto _ : state)` benchmarks — the
// counting of --perf_counters (extra_run_counting.h), a sampling profiler.
//
// gbench runs each benchmark once more after each repetition, on one thread
// (the main thread), with the repetition's iteration count, and calls
// Start() of every client (in the order they were added) right before the
// timed loop and Stop() (in reverse order) right after it. The row of that
// run is not reported; what the clients measured is theirs to report.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_H_

namespace perfcounters::benchmark_ext_internal {

// True when the linked gbench has a ProfilerManager (1.9 and newer; known
// at compile time).
bool ExtraRunAvailable();

class ExtraRunClient {
 public:
  virtual ~ExtraRunClient() = default;
  // Right before the extra run's timed loop (gbench's timer not yet started).
  virtual void Start() = 0;
  // Right after it (gbench's timer stopped).
  virtual void Stop() = 0;
};

// Adds `client` (not owned; it must outlive the benchmarks) to the extra run
// and registers the extra run with gbench on the first call. False (and nothing
// added) when ExtraRunAvailable() is false. Call before
// benchmark::RunSpecifiedBenchmarks().
bool AddExtraRunClient(ExtraRunClient* client);

// Takes the extra run off gbench (false) and puts it back (true), after
// AddExtraRunClient(); gbench then holds no other manager. For measuring what
// the extra run costs (benchmark_ext/bench/extra_run_cost_bench.cc).
void SetExtraRunRegistered(bool registered);

// True between the extra run's Start() and Stop() (on the main thread). A
// Measure loop that finds itself in the extra run skips its body: its counters
// come from the benchmark's own run, and the extra run's row is not reported.
bool InExtraRun();

// Tells the extra run that the running benchmark counts itself (Measure); the
// counting client reads it at Stop() and forgets it.
void MarkExtraRunSelfCounted();
bool TakeExtraRunSelfCounted();

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_H_
