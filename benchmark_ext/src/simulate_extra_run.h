// simulate_extra_run.h: the simulator's counting client of gbench's extra run
// (extra_run.h, gbench 1.9 and newer): unmodified `for (auto _ :
// state)` benchmarks counted by callgrind under
// --perf_counters_source=simulate, as extra_run_counting.h counts them on the
// PMU — costs zeroed and collection on at the extra run's start, off and dumped
// at its end; of the dump, only the benchmark's own costs
// (BenchmarkCallCosts: gbench's call of the benchmark less gbench's loop
// functions), so no calibration is needed: what is left besides the loop
// is the benchmark function's own code before and after its loop and
// gbench's one-call wrapper, the same in every extra run.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_EXTRA_RUN_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_EXTRA_RUN_H_

#include <memory>

#include "extra_run_counting.h"
#include "registry.h"

namespace perfcounters::benchmark_ext_internal {

// The simulator's client for `config` (a simulated configuration), owned
// by the caller; it must outlive the benchmarks.
ExtraRunCountingClient* NewSimulatedExtraRunCounter(
    const std::shared_ptr<const Config>& config);

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_EXTRA_RUN_H_
