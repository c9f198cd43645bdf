// extra_run_counting.h: --perf_counters for unmodified `for (auto _ : state)`
// benchmarks, counted in gbench's extra run (extra_run.h, gbench 1.9
// and newer) on the main thread, one interval per extra run.
//
// Under the simulator (--perf_counters_source=simulate, simulate_extra_run.h)
// the extra run is counted by callgrind instead, with the same calibration and
// results.
//
// Calibration: before the benchmarks, an empty benchmark of one iteration
// (kExtraRunCalibrationName, 33 repetitions) runs through gbench with the extra
// run; the smallest count per event over its extra runs in which the event's
// group was on the PMU the whole time is the bracket's cost — the hooks',
// gbench's own code between them (its barrier, timer start and stop) and one
// loop iteration — and is subtracted from every extra run (never below 0).
// gbench's loop over the benchmark's iterations stays in the value, as it does
// in Measure's.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_COUNTING_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_COUNTING_H_

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "extra_run.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/counter_set.h"
#include "registry.h"

namespace perfcounters::benchmark_ext_internal {

// The calibration benchmark's name; its rows are never reported.
inline constexpr char kExtraRunCalibrationName[] =
    "perfcounters_extra_run_calibration";

// One extra run, in the order gbench ran them.
struct ExtraRunResult {
  // The benchmark counts itself (Measure): its row already has the values.
  bool self_counted = false;
  // Per planned event (calibrated, scaled for multiplexing); empty when
  // nothing could be opened for the extra run (`not_counted` says why).
  std::vector<CounterValue> values;
  std::string not_counted;
  // The CPU time the extra run's counters ran (their groups' time enabled,
  // which for a thread's events advances while the thread runs), when
  // known: compared with gbench's timed CPU time of the reported run, it
  // shows regions paused with state.PauseTiming(), which the extra run counts.
  std::optional<double> counted_cpu_s;
  // The simulator's cost-model estimates of the extra run (est_cycles, and
  // est_ipc), when asked for (docs/simulate.md).
  std::optional<double> est_cycles;
  std::optional<double> est_ipc;
};

// A counting client of the extra run: the PMU's (extra_run_counting.cc) or the
// simulator's (simulate_extra_run.cc).
class ExtraRunCountingClient : public ExtraRunClient {
 public:
  // Around the calibration benchmark's passes (InExtraRunCalibration()).
  virtual void BeginCalibration() = 0;
  virtual void EndCalibration() = 0;
  // The extra runs since the last call.
  virtual std::vector<ExtraRunResult> Take() = 0;
  // What is subtracted from each pass, per event key.
  virtual std::vector<std::pair<std::string, BracketCost>> calibration() = 0;
};

// True while the calibration benchmark's body runs.
bool InExtraRunCalibration();

// Swallows a run's output (the calibration run's).
class NullReporter : public benchmark::BenchmarkReporter {
 public:
  NullReporter() {
    SetOutputStream(&sink_);
    SetErrorStream(&sink_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}

 private:
  std::ostringstream sink_;
};

// Opens the configuration's groups for the extra run on the calling (main)
// thread, adds the counting client to the extra run and calibrates it through
// gbench (runs the calibration benchmark). False when the linked gbench has
// no ProfilerManager. Call once, after benchmark::Initialize().
bool StartExtraRunCounting(const std::shared_ptr<const Config>& config);

// True once StartExtraRunCounting() succeeded.
bool ExtraRunCountingActive();

// The extra runs since the last call.
std::vector<ExtraRunResult> TakeExtraRunResults();

// The extra run's calibration per event key (for the JSON context).
std::vector<std::pair<std::string, BracketCost>> ExtraRunCalibration();

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_EXTRA_RUN_COUNTING_H_
