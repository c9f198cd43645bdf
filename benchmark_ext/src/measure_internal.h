// measure_internal.h: what the main (main.cc) needs from measure.cc beyond
// the public API: the warnings about the last batch reported (too small
// for the measurement's own noise; counters that ran while gbench's timer
// was paused), printed by the main's reporter with the name of the
// benchmark they belong to, and the file descriptor budget.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"

namespace perfcounters::bench_internal {

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
