// run_record.cc: the record of one benchmark run — every thread publishes
// its batch into the registry's RunRecord, thread 0 writes the run's
// counters into gbench's state — and the warnings about the reported batch.
//
// Threads: gbench runs a benchmark's threads with the same max_iterations
// and puts a barrier in StartKeepRunning() and in FinishKeepRunning(). Each
// thread publishes its scaled deltas into the process-wide RunRecord before
// its final KeepRunningBatch() call (the finish barrier); thread 0, after
// that call returns, knows every thread's numbers and alone writes the
// counters (gbench sums user counters over threads, so the other threads
// write none). That makes "not counted on any thread" a decision for the
// whole run, and coverage and derived metrics ratios of sums.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "measure_internal.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/counter_set.h"
#include "perfcounters/plan.h"
#include "registry.h"
#include "rows.h"

namespace perfcounters::benchmark_ext_internal {

// The warning for a batch that was multiplexed over too few rotations.
std::string ShortMuxWarning(const CounterValue& v) {
  const double interval_ms =
      1e-6 * static_cast<double>(v.enabled) / std::max(v.mux_intervals, 1e-9);
  // A batch of twice the threshold's CPU time (gbench's last batch takes
  // about --benchmark_min_time).
  const double min_time_s = 2 * kFewMuxIntervals * interval_ms * 1e-3;
  return absl::StrCat(
      v.label, " was multiplexed (on the PMU ",
      absl::SixDigits(100 * v.coverage), "% of the batch) over only ",
      absl::SixDigits(v.mux_intervals), " multiplexing intervals of ",
      absl::SixDigits(interval_ms), " ms (fewer than ", kFewMuxIntervals,
      "), so its scaled value can be off by several %; give the benchmark "
      "a longer batch: ",
      MinTimeFlag(min_time_s), " or more");
}

// Adds this thread's batch of `iterations` to the run record.
void PublishBatch(const ThreadCounters& c,
                  benchmark::IterationCount iterations) {
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != c.config.get()) return;  // not reset for this config
  ++run.publishers;
  run.iterations += iterations;
  if (!c.budget.ok()) {
    run.not_counted.assign(run.not_counted.size(), true);
    run.time_known = false;
    run.short_of_descriptors = true;
    return;
  }
  const CounterSet& set = internal::CounterSetOf(c.counters);
  uint64_t enabled = 0;
  bool timed = false;
  for (size_t g = 0; g < set.group_count(); ++g) {
    if (!set.group_status(g).ok() || set.failed(g)) continue;
    enabled = std::max(enabled, set.enabled(g));
    timed = true;
  }
  // Where the counters pause outside gbench's timer, each pause's interval
  // holds gbench's own pause and resume, which its timer leaves out: their
  // least time (calibrated) is not the benchmark's.
  if (c.outside_timer && set.intervals() > 1) {
    enabled -= std::min(enabled, (set.intervals() - 1) * c.pause_enabled_ns);
  }
  run.counted_ns += enabled;
  run.time_known = run.time_known && timed;
  for (size_t i = 0; i < set.event_count(); ++i) {
    const CounterValue v = c.counters.PlannedValue(i);
    if (!v.counted) {
      run.not_counted[i] = true;
      continue;
    }
    if (v.below_noise()) {
      run.noise.push_back(absl::StrCat(
          v.label, " counted ", ReadableCount(v.value), " in a batch of ",
          c.counters.intervals(), " interval(s), less than ",
          ReadableCount(v.noise_limit), ", the measurement's own count (",
          c.counters.first_calibration()[i].floor, " per batch, ",
          c.counters.calibration()[i].floor,
          " per pause) or 10x its noise; the value is dominated by the "
          "measurement: give the benchmark more work per batch"));
    }
    if (v.short_multiplexed()) {
      run.noise.push_back(ShortMuxWarning(v));
      double& fewest = run.mux_intervals[i];
      fewest =
          fewest == 0 ? v.mux_intervals : std::min(fewest, v.mux_intervals);
    }
    run.scaled[i] += v.value;
    run.enabled[i] += v.enabled;
    run.running[i] += v.running;
  }
}

// A thread whose run was skipped with SkipWithError.
void PublishSkipped(const ThreadCounters& c) {
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != c.config.get()) return;
  ++run.publishers;
  run.skipped = true;
}

void ResetRun(const Config& config) {
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  const size_t n = config.keys.size();
  run.config = &config;
  run.publishers = 0;
  run.scaled.assign(n, 0);
  run.enabled.assign(n, 0);
  run.running.assign(n, 0);
  run.not_counted.assign(n, false);
  run.mux_intervals.assign(n, 0);
  run.counted_ns = 0;
  run.time_known = true;
  run.iterations = 0;
  run.short_of_descriptors = false;
  run.skipped = false;
  run.noise.clear();
  run.simulated.clear();
}

// Thread 0: writes the run's counters.
void Report(const Config& config, benchmark::State& state) {
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != &config || run.skipped) return;
  if (run.publishers != state.threads()) {
    WarnOnce("publishers",
             absl::StrCat("only ", run.publishers, " of ", state.threads(),
                          " benchmark threads reported counters (use "
                          "perfcounters::Measure on every thread); the run's "
                          "counters are marked not counted"));
    run.not_counted.assign(run.not_counted.size(), true);
  }
  std::vector<std::string> not_counted;
  for (size_t i = 0; i < config.keys.size(); ++i) {
    const std::string& key = config.keys[i];
    if (run.not_counted[i]) {
      state.counters[key + ".not_counted"] = benchmark::Counter(1);
      Registry::Get().MarkNotCounted();
      not_counted.push_back(key);
      continue;
    }
    // Counts: gbench shows them with k/M/G (powers of 1000).
    state.counters[key] =
        benchmark::Counter(run.scaled[i], benchmark::Counter::kAvgIterations,
                           benchmark::Counter::kIs1000);
    // A multiplexed value too rough to trust, marked for compare/report.
    if (run.mux_intervals[i] > 0) {
      state.counters[key + ".mux_intervals"] =
          benchmark::Counter(run.mux_intervals[i]);
    }
    if (run.running[i] < run.enabled[i]) {
      state.counters[key + ".coverage"] =
          benchmark::Counter(static_cast<double>(run.running[i]) /
                             static_cast<double>(run.enabled[i]));
    }
  }
  if (!not_counted.empty()) {
    WarnNotCounted(not_counted,
                   absl::StrCat("not counted in a run (",
                                run.short_of_descriptors
                                    ? "a benchmark thread had too few free "
                                      "file descriptors to open it, see above"
                                    : "the group never ran on the PMU, or "
                                      "could not be read",
                                "); never reported as 0 (JSON/CSV: "
                                "<name>.not_counted=1)"));
  }
  for (const Unavailable& u : config.plan.unavailable) {
    state.counters[u.key + ".not_counted"] = benchmark::Counter(1);
  }
  // Every run's notes are kept until the reporter takes them: gbench
  // reports a benchmark's repetitions together, after its first, tiny
  // batches that only size the next one (the reporter keeps the last
  // notes, one per reported repetition).
  std::optional<CountedTime> time;
  if (run.time_known) {
    time =
        CountedTime{static_cast<double>(run.counted_ns) * 1e-9, run.iterations};
  }
  Registry::Get().AddNotes(RunNotes{run.noise, time});
  // Derived metrics: ratios of the run's sums over its threads.
  std::vector<CounterValue> sums(config.keys.size());
  for (size_t i = 0; i < sums.size(); ++i) {
    sums[i].label = config.keys[i];
    sums[i].counted = !run.not_counted[i];
    sums[i].value = run.scaled[i];
  }
  for (const MetricValue& m : ComputeMetrics(config.plan.derived, sums)) {
    if (m.counted) state.counters[m.name] = benchmark::Counter(m.value);
  }
}

bool TimerWasPaused(double counted_s, double timed_s, double ratio) {
  // The counters run inside gbench's timer, so they can only exceed it
  // when the timer was paused while they ran (clock granularity aside).
  return counted_s > ratio * timed_s + kPausedTimerSlackS;
}

std::string PausedTimerWarning(double counted_s, double timed_s) {
  if (!TimerWasPaused(counted_s, timed_s)) return "";
  return absl::StrCat(
      "the counters ran for ", absl::SixDigits(counted_s * 1e3),
      " ms of CPU time in the last batch but gbench timed only ",
      absl::SixDigits(timed_s * 1e3),
      " ms: the benchmark probably pauses gbench's timer with "
      "state.PauseTiming(), which does not stop the counters, so the paused "
      "work is counted; use perfcounters::PauseTiming(state) and "
      "perfcounters::ResumeTiming(state) instead");
}

}  // namespace perfcounters::benchmark_ext_internal
