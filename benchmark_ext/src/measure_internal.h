// measure_internal.h: what benchmark_ext's sources share beyond the public
// API (benchmark_ext.h): the per-thread groups (thread_setup.cc), the run
// record that combines a run's threads and writes its counters
// (run_record.cc), the configuration (config.cc), the setup and warnings
// the main (benchmark_main.cc) and its reporter (console.cc) print, and the
// file descriptor budget. The state behind them is the registry (registry.h).
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"
#include "registry.h"

namespace perfcounters {
namespace benchmark_ext_internal {
struct SimThread;
}  // namespace benchmark_ext_internal

// One thread's groups (opened and calibrated by the core's Counters) and
// the current batch.
struct Measure::ThreadCounters {
  std::shared_ptr<const benchmark_ext_internal::Config> config;
  // Not OK when no group was opened on this thread because the process
  // would run short of file descriptors (CheckDescriptorBudget); `counters`
  // then holds no group and every event is not counted.
  absl::Status budget;
  Counters counters;
  // The simulator's brackets (simulate.h) when the configuration is
  // simulated (`counters` then holds no group); null otherwise.
  std::shared_ptr<benchmark_ext_internal::SimThread> sim = nullptr;
  // Some open group is read with read(2): the counters pause outside
  // gbench's timer (Measure::PauseAfterTimer()).
  bool outside_timer = false;
  // Then: whether the pause's bracket was measured with gbench's real
  // PauseTiming()/ResumeTiming() (at the batch's first pause), and
  // the least time enabled of that bracket (ns), which the paused-timer
  // check takes off per pause.
  bool timer_calibrated = false;
  uint64_t pause_enabled_ns = 0;
};

namespace benchmark_ext_internal {

using ThreadCounters = Measure::ThreadCounters;

// Parses `list`, plans it with `try_open` and makes it the configured
// events (SetBenchmarkEvents() with OpenAndVerify; the simulator's with
// its own test and `simulated`, simulate.h).
absl::StatusOr<Plan> ConfigureEvents(std::string_view list,
                                     const MeasureOptions& options,
                                     const TryOpenFn& try_open, bool simulated);

// The configuration (read from PERFCOUNTERS_EVENTS on first use when no
// one called SetBenchmarkEvents()); null when no events are configured.
absl::StatusOr<std::shared_ptr<const Config>> CurrentConfig();

// The plan of the events currently configured (empty when none).
Plan CurrentBenchmarkPlan();

// True once some requested counter was not counted (unavailable, or its
// group never ran in some run). --perf_counters_strict uses this.
bool AnyCounterNotCounted();

// This thread's groups for `config`, opened (and calibrated through
// CalibrateBrackets()) on first use and reopened when it changed.
ThreadCounters* CountersFor(const std::shared_ptr<const Config>& config);

// What the calling thread's Measure will do, for the main's report.
struct MeasurementSetup {
  // Per planned group, leader first: "user-space" or "syscall (why)".
  std::vector<std::string> group_paths;
  // "user-space", "syscall" or "mixed" over the groups that opened;
  // empty when no events are configured.
  std::string read_path;
  // Groups that cannot be read from user space, with the reason.
  std::vector<std::string> syscall_reasons;
  // "{group}: why" for each group whose user-space reads disagreed with
  // read(2) when opened (CounterSet::user_space_disagreement).
  std::vector<std::string> read_path_check;
  // Per event key: the bracket's own count per batch and its spread, and
  // per pause (PauseTiming/ResumeTiming) (empty when calibration is off or
  // the event was not counted).
  std::vector<std::pair<std::string, BracketCost>> calibration;
  std::vector<std::pair<std::string, BracketCost>> pause_calibration;
  // Some group is read with read(2): the counters pause outside gbench's
  // timer, and a pause's calibration is measured with gbench's own pause
  // at each batch's first pause (pause_calibration is then empty).
  bool outside_timer = false;
  // Keys of events that could not be calibrated (their group was never on
  // the PMU for a whole empty interval): nothing is subtracted from them.
  std::vector<std::string> uncalibrated;
  // Why some planned counters cannot be counted on the calling thread: a
  // group that did not open ("{keys}: reason"), or too few free file
  // descriptors (then nothing is opened). Empty when every group opened.
  std::vector<std::string> not_open;
};

// Opens (and calibrates) the configured groups on the calling thread —
// gbench's thread 0 when called from main, so the benchmarks reuse them —
// and says which read path and calibration they got.
MeasurementSetup PrepareCallingThread();

// The run record (the threads of one benchmark run): thread 0 resets it
// before its loop, every thread publishes its batch (or that it skipped),
// and thread 0 writes the run's counters into `state`.
void ResetRun(const Config& config);
void PublishBatch(const ThreadCounters& c,
                  benchmark::IterationCount iterations);
void PublishSkipped(const ThreadCounters& c);
void Report(const Config& config, benchmark::State& state);

// Measures the two brackets of Measure's loop on `c` and makes them its
// calibration (measure_loop.cc): a batch's (from the counters' start in
// Measure::begin() to their stop in the loop's end, through the same code)
// and a pause's (from the counters' restart in ResumeTiming() to their
// stop in the next PauseTiming()).
void CalibrateBrackets(ThreadCounters* c);

// The warning for a batch that was multiplexed over too few rotations
// (with the --benchmark_min_time that would give it enough).
std::string ShortMuxWarning(const CounterValue& v);

// The counters run inside gbench's timer; a batch whose counted time
// exceeds gbench's timed time (the larger of its CPU and wall time) by
// more than this ratio plus this slack ran them while gbench's timer was
// paused.
inline constexpr double kPausedTimerRatio = 1.2;
inline constexpr double kPausedTimerSlackS = 50e-6;

// The same for gbench's extra run, whose counted CPU time is compared with
// another run's timed one: on a loaded VM the same work's CPU time differed
// by up to 2.8x between the two runs (time the host took from the vCPU is
// the task's), so only more than 3x (plus the slack), in every repetition
// reported together, counts as paused.
inline constexpr double kExtraRunPausedTimerRatio = 3.0;

// True when counters that ran `counted_s` seconds of CPU time where gbench
// timed `timed_s` must have run while gbench's timer was paused: more than
// `ratio` times plus kPausedTimerSlackS.
bool TimerWasPaused(double counted_s, double timed_s,
                    double ratio = kPausedTimerRatio);

// The warning (without the benchmark's name) for a batch whose counters ran
// `counted_s` seconds of CPU time where gbench timed `timed_s`; empty when
// they agree (see kPausedTimerRatio).
std::string PausedTimerWarning(double counted_s, double timed_s);

// File descriptors kept free when a benchmark thread opens its counters:
// for the benchmark's own files and gbench's (its --benchmark_out file,
// the sysfs and /proc files it reads).
inline constexpr long kReservedDescriptors = 8;

// OK when opening `needed` more file descriptors leaves
// kReservedDescriptors free under the soft RLIMIT_NOFILE (or when the
// limit or the open count cannot be read); otherwise ResourceExhausted
// saying how many are needed, free and open, and what to do.
absl::Status CheckDescriptorBudget(size_t needed);

}  // namespace benchmark_ext_internal

// Human-readable warnings for a plan: one line per distinct reason why
// events cannot be counted, naming every event it applies to ("cycles,
// instructions: not counted — no hardware PMU here ..."). Empty when
// everything opened.
std::string DescribeUnavailable(const Plan& plan);

}  // namespace perfcounters

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
