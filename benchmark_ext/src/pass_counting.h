// pass_counting.h: --perf_counters for unmodified `for (auto _ : state)`
// benchmarks, counted in gbench's extra run (profiler_pass.h, gbench 1.9
// and newer) on the main thread, one interval per pass.
//
// Under the simulator (--perf_counters_source=simulate, simulate_pass.h)
// the pass is counted by callgrind instead, with the same calibration and
// results.
//
// Calibration: before the benchmarks, an empty benchmark of one iteration
// (kPassCalibrationName, 33 repetitions) runs through gbench with the pass;
// the smallest count per event over its passes in which the event's group
// was on the PMU the whole time is the bracket's cost — the hooks', gbench's
// own code between them (its barrier, timer start and stop) and one loop
// iteration — and is subtracted from every pass (never below 0). gbench's
// loop over the benchmark's iterations stays in the value, as it does in
// Measure's.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_PASS_COUNTING_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_PASS_COUNTING_H_

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/counter_set.h"
#include "profiler_pass.h"
#include "registry.h"

namespace perfcounters::bench_internal {

// The calibration benchmark's name; its rows are never reported.
inline constexpr char kPassCalibrationName[] = "perfcounters_pass_calibration";

// One pass, in the order gbench ran them.
struct PassResult {
  // The benchmark counts itself (Measure): its row already has the values.
  bool self_counted = false;
  // Per planned event (calibrated, scaled for multiplexing); empty when
  // nothing could be opened for the pass (`not_counted` says why).
  std::vector<CounterValue> values;
  std::string not_counted;
  // The CPU time the pass's counters ran (their groups' time enabled,
  // which for a thread's events advances while the thread runs), when
  // known: compared with gbench's timed CPU time of the reported run, it
  // shows regions paused with state.PauseTiming(), which the pass counts.
  std::optional<double> counted_cpu_s;
  // The simulator's cost-model estimates of the pass (est_cycles, and
  // est_ipc), when asked for (docs/simulate.md).
  std::optional<double> est_cycles;
  std::optional<double> est_ipc;
};

// A counting client of the pass: the PMU's (pass_counting.cc) or the
// simulator's (simulate_pass.cc).
class PassCountingClient : public PassClient {
 public:
  // Around the calibration benchmark's passes (InPassCalibration()).
  virtual void BeginCalibration() = 0;
  virtual void EndCalibration() = 0;
  // The passes since the last call.
  virtual std::vector<PassResult> Take() = 0;
  // What is subtracted from each pass, per event key.
  virtual std::vector<std::pair<std::string, BracketCost>> calibration() = 0;
};

// True while the calibration benchmark's body runs.
bool InPassCalibration();

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

// Opens the configuration's groups for the pass on the calling (main)
// thread, adds the counting client to the pass and calibrates it through
// gbench (runs the calibration benchmark). False when the linked gbench has
// no ProfilerManager. Call once, after benchmark::Initialize().
bool StartPassCounting(const std::shared_ptr<const Config>& config);

// True once StartPassCounting() succeeded.
bool PassCountingActive();

// The passes since the last call.
std::vector<PassResult> TakePassResults();

// The pass's calibration per event key (for the JSON context).
std::vector<std::pair<std::string, BracketCost>> PassCalibration();

}  // namespace perfcounters::bench_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_PASS_COUNTING_H_
