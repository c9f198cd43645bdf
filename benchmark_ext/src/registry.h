// registry.h: benchmark_ext's process-wide state in one object — the
// configured events, the warnings already printed (one warn-once for every
// warning), the notes waiting for the main's reporter (the last reported
// batch's warnings and counted time), and the record of the run being
// measured, and the state of each run (process_state.h) — behind one
// accessor, Registry::Get(). process_state.h lists the few per-thread and
// signal-handler objects that live elsewhere, and why.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_REGISTRY_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/plan.h"
#include "process_state.h"

namespace perfcounters::benchmark_ext_internal {

// The configured events, immutable once published.
struct Config {
  Plan plan;
  // For each planned group, the index of its first event in the flat list.
  std::vector<size_t> first_event;
  // Flat list of keys, group by group.
  std::vector<std::string> keys;
  MeasureOptions options;
  // Counted by the simulator (simulate.h), not the PMU.
  bool simulated = false;
};

// How long the counters of the last reported batch ran.
struct CountedTime {
  // CPU time the counters ran, summed over the benchmark's threads.
  double seconds = 0;
  // The batch's iterations, summed over threads (gbench's Run::iterations).
  benchmark::IterationCount iterations = 0;
};

// The run being measured: every thread of it publishes here (run_record.cc).
struct RunRecord {
  std::mutex mu;
  const Config* config = nullptr;
  int publishers = 0;
  std::vector<double> scaled;
  std::vector<uint64_t> enabled;
  std::vector<uint64_t> running;
  std::vector<bool> not_counted;
  // Per event: the fewest multiplexing rotations of a thread's batch that
  // had too few (CounterValue::short_multiplexed); 0 when none had.
  std::vector<double> mux_intervals;
  // CPU time the counters ran (the groups' time enabled, which for a
  // thread's events advances while the thread runs), summed over threads;
  // time_known is false when some thread had no group to tell.
  uint64_t counted_ns = 0;
  bool time_known = true;
  benchmark::IterationCount iterations = 0;
  // Some thread opened nothing: too few free file descriptors.
  bool short_of_descriptors = false;
  // Some thread skipped the run with SkipWithError: gbench reports the run
  // as an error without counters, so none are written or judged.
  bool skipped = false;
  // Warnings: batches too small for the bracket's noise.
  std::vector<std::string> noise;
  // The simulator's costs of the run, summed over threads (simulate.h's
  // SimEvent order; empty when not simulated).
  std::vector<uint64_t> simulated;
};

// What one reported run left for the main's reporter: its warnings (batches
// too small for the bracket's noise, multiplexed over too few rotations)
// and the CPU time its counters ran (nullopt when some thread had no open
// group to tell).
struct RunNotes {
  std::vector<std::string> noise;
  std::optional<CountedTime> time;
};

class Registry {
 public:
  // The one registry of the process (never destroyed: benchmark threads
  // may still use it while the process exits).
  static Registry& Get();

  // The configuration; null when no events are configured. `configured()`
  // is true once SetBenchmarkEvents() (or the environment) published one.
  void SetConfig(std::shared_ptr<const Config> config);
  std::shared_ptr<const Config> config() const;
  bool configured() const;

  // The error of a bad PERFCOUNTERS_EVENTS, read once per process
  // (config.cc).
  std::once_flag env_once;
  void SetEnvError(absl::Status status);
  absl::Status env_error() const;

  // True the first time `key` is asked for in this process: the one
  // warn-once of every warning.
  bool FirstTime(absl::string_view key);

  // Some requested counter was not counted (--perf_counters_strict).
  void MarkNotCounted();
  bool any_not_counted() const;

  // The notes of every run since the reporter last took them, in order;
  // TakeNotes() returns them and forgets them.
  void AddNotes(RunNotes notes);
  std::vector<RunNotes> TakeNotes();

  // The run being measured (its own mutex).
  RunRecord& run() { return run_; }

  // The state of each run: gbench's extra run, the sampling run, the
  // simulator's (process_state.h; each part guards itself).
  ProcessState& state() { return state_; }

 private:
  Registry() = default;

  mutable std::mutex mu_;
  std::shared_ptr<const Config> config_;     // guarded by mu_
  bool configured_ = false;                  // guarded by mu_
  absl::Status env_error_;                   // guarded by mu_
  absl::flat_hash_set<std::string> warned_;  // guarded by mu_
  bool any_not_counted_ = false;             // guarded by mu_
  std::vector<RunNotes> notes_;              // guarded by mu_
  RunRecord run_;
  ProcessState state_;
};

// Prints "perfcounters: warning: <message>" to stderr once per `key` per
// process.
void WarnOnce(absl::string_view key, absl::string_view message);

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_REGISTRY_H_
