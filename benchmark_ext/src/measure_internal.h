// measure_internal.h: what the main (main.cc) needs from measure.cc beyond
// the public API: the warnings about the last batch reported (too small
// for the measurement's own noise; multiplexed over too few rotations;
// counters that ran while gbench's timer was paused), printed by the
// main's reporter with the name of the benchmark they belong to, and the
// file descriptor budget. And what Measure's loop (measure_loop.cc) needs
// from the configuration and the run record (measure.cc).
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"

namespace perfcounters::bench_internal {

// The configured events, immutable once published.
struct Config {
  Plan plan;
  // For each planned group, the index of its first event in the flat list.
  std::vector<size_t> first_event;
  // Flat list of keys, group by group.
  std::vector<std::string> keys;
  MeasureOptions options;
};

// One thread's groups (opened and calibrated by the core's Counters) and
// the current batch.
struct ThreadCounters {
  std::shared_ptr<const Config> config;
  // Not OK when no group was opened on this thread because the process
  // would run short of file descriptors (CheckDescriptorBudget); `counters`
  // then holds no group and every event is not counted.
  absl::Status budget;
  Counters counters;
};

// The configuration (read from PERFCOUNTERS_EVENTS on first use when no
// one called SetBenchmarkEvents()); null when no events are configured.
absl::StatusOr<std::shared_ptr<const Config>> CurrentConfig();

// This thread's groups for `config`, opened (and calibrated through
// CalibrateBrackets()) on first use and reopened when it changed.
ThreadCounters* CountersFor(const std::shared_ptr<const Config>& config);

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

// The warnings of the last batch of the last run reported, each
// "<key> counted ...", and forgets them. (A program with its own main does
// not print them: only perfcounters' main knows the benchmark names.)
std::vector<std::string> TakeNoiseWarnings();

// How long the counters of the last reported batch ran.
struct CountedTime {
  // CPU time the counters ran, summed over the benchmark's threads.
  double seconds = 0;
  // The batch's iterations, summed over threads (gbench's Run::iterations).
  benchmark::IterationCount iterations = 0;
};

// The last reported batch's counted time, and forgets it; nullopt when no
// batch was reported since, or some thread had no open group to tell.
std::optional<CountedTime> TakeCountedTime();

// The counters run inside gbench's timer; a batch whose counted CPU time
// exceeds gbench's timed CPU time by more than this ratio plus this slack
// ran them while gbench's timer was paused.
inline constexpr double kPausedTimerRatio = 1.2;
inline constexpr double kPausedTimerSlackS = 50e-6;

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

}  // namespace perfcounters::bench_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
