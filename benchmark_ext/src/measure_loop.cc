// measure_loop.cc: Measure's loop — the batch's counters started after
// gbench's timer and stopped before it; PauseTiming()/ResumeTiming(), whose
// counters stop after gbench's timer stops and start before it starts (so
// gbench never times the counters' reads); and the calibration of exactly
// that code (the batch's bracket and the pause's).
//
// Calibration. The counters count the code between their start snapshot
// and their stop snapshot. In a batch that is the end of Measure::begin(),
// the loop's first and last checks and the start of Finish(); for a pause,
// the end of Measure::ResumeActive(), gbench's ResumeTiming(), the body's
// code, gbench's PauseTiming() and the start of the next
// Measure::PauseActive().
// CalibrateBrackets() runs those very functions on empty loops (a Measure
// over no iterations, without gbench; ResumeTiming() right before
// PauseTiming() on a stand-in state that reads gbench's clocks) and
// subtracts what they count: the batch's bracket once per batch (the first
// interval) and the pause's once per pause (every further interval).
// perfcounters' main measures the pause once more through gbench's real
// timer (CalibrateGbenchTimer) and every thread adds the difference.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "counter_set.h"
#include "measure_internal.h"
#include "pass_counting.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/counters.h"
#include "profile_pass.h"
#include "profiler_pass.h"
#include "registry.h"
#include "simulate.h"

namespace perfcounters {
namespace bench_internal {
namespace {

// What PauseTiming()/ResumeTiming() call on gbench's state, in calibration:
// the clocks gbench's timer reads when it stops and starts (steady_clock,
// the thread's CPU clock: a system call), since the pause's bracket holds
// gbench's timer calls. The calls stay calls (an inlined stand-in would be
// shaped unlike a benchmark's call of gbench). What gbench's PauseTiming()
// and ResumeTiming() run beyond these reads is measured once on a real
// state by perfcounters' main (CalibrateGbenchTimer).
struct ClockTimer {
  ABSL_ATTRIBUTE_NOINLINE void PauseTiming() { Read(); }
  ABSL_ATTRIBUTE_NOINLINE void ResumeTiming() { Read(); }
  void Read() {
    real = std::chrono::steady_clock::now().time_since_epoch().count();
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    cpu = t.tv_nsec;
    benchmark::ClobberMemory();
  }
  int64_t real = 0;
  long cpu = 0;
};

// The least time enabled of a few runs of `bracket` (an empty pause) on
// `counters` (ns), over the groups that counted.
template <typename Bracket>
uint64_t BracketTime(Counters& counters, Bracket bracket) {
  const CounterSet& set = internal::CounterSetOf(counters);
  uint64_t least = UINT64_MAX;
  for (int i = 0; i < 9; ++i) {
    counters.Reset();
    bracket();
    uint64_t enabled = 0;
    for (size_t g = 0; g < set.group_count(); ++g) {
      if (set.group_status(g).ok() && !set.failed(g)) {
        enabled = std::max(enabled, set.enabled(g));
      }
    }
    least = std::min(least, enabled);
  }
  counters.Reset();
  return least == UINT64_MAX ? 0 : least;
}

// The calling thread's running Measure loop (between the counters' start
// in begin() and Finish()), for PauseTiming()/ResumeTiming().
thread_local Measure* t_active = nullptr;

}  // namespace

}  // namespace bench_internal

// The library's access to Measure's calibration loop.
class Measure::Access {
 public:
  static void Calibrate(ThreadCounters* c);
  static void CalibrateTimer(benchmark::State& state, ThreadCounters* c);

 private:
  // The simulator's brackets, through the same code (simulate.h), the
  // pause's on `timer`. The batch's is an empty loop, which the compiler
  // drops with its test before the loop: the least a benchmark's loop can
  // run, so that what remains of a batch is never below 0 (the benchmark
  // function's own instructions around its loop, a few per batch, stay in).
  template <typename Timer>
  static void SimBrackets(ThreadCounters* c, Timer& timer) {
    bench_internal::SimCalibrate(
        c->sim.get(),
        [c] {
          Measure m(c);
          for (auto _ : m) {
          }
        },
        [c, &timer] {
          Measure paused(c);
          bench_internal::t_active = &paused;
          ResumeTiming(timer);
          PauseTiming(timer);
          bench_internal::t_active = nullptr;
        });
  }
};

void bench_internal::CalibrateBrackets(ThreadCounters* c) {
  Measure::Access::Calibrate(c);
}

void Measure::Access::Calibrate(ThreadCounters* c) {
  using bench_internal::ClockTimer;
  using bench_internal::t_active;
  if (c->sim != nullptr) {
    ClockTimer timer;
    SimBrackets(c, timer);
    return;
  }
  Counters& counters = c->counters;
  std::vector<BracketCost> batch = counters.MeasureBracket([c] {
    Measure m(c);
    // A body the compiler must keep: an empty loop is dropped, and with it
    // the iteration count's test before the loop, which a benchmark's loop
    // runs (2 instructions on arm64: keeping the count, cbz).
    for (auto _ : m) {
      benchmark::ClobberMemory();
    }
  });
  Measure paused(c);
  t_active = &paused;
  ClockTimer timer;
  std::vector<BracketCost> pause = counters.MeasureBracket([&timer] {
    ResumeTiming(timer);
    PauseTiming(timer);
  });
  c->pause_time_ns = bench_internal::BracketTime(counters, [&timer] {
    ResumeTiming(timer);
    PauseTiming(timer);
  });
  t_active = nullptr;
  // gbench's own code in its PauseTiming()/ResumeTiming(), where the main
  // measured it (CalibrateGbenchTimer).
  const std::vector<int64_t> delta =
      bench_internal::Registry::Get().timer_correction(c->config.get());
  for (size_t i = 0; i < pause.size() && i < delta.size(); ++i) {
    if (!pause[i].valid) continue;
    const int64_t floor = static_cast<int64_t>(pause[i].floor) + delta[i];
    pause[i].floor = static_cast<uint64_t>(std::max<int64_t>(floor, 0));
  }
  counters.SetCalibration(std::move(batch), std::move(pause));
}

// On gbench's thread 0 with its timer paused: the pause's bracket through
// the real state's PauseTiming()/ResumeTiming() becomes this thread's pause
// calibration, and its difference from the stand-in's, per event, the
// correction every other thread adds to its own.
void Measure::Access::CalibrateTimer(benchmark::State& state,
                                     ThreadCounters* c) {
  using bench_internal::ClockTimer;
  using bench_internal::t_active;
  if (c->sim != nullptr) {
    // The simulator counts gbench's thread 0 only: its brackets measured
    // again, the pause's through the real timer.
    SimBrackets(c, state);
    bench_internal::Registry::Get().SetTimerCorrection(
        c->config, std::vector<int64_t>(c->config->keys.size(), 0));
    return;
  }
  Counters& counters = c->counters;
  Measure paused(c);
  t_active = &paused;
  std::vector<BracketCost> real = counters.MeasureBracket([&state] {
    ResumeTiming(state);
    PauseTiming(state);
  });
  c->pause_time_ns = bench_internal::BracketTime(counters, [&state] {
    ResumeTiming(state);
    PauseTiming(state);
  });
  ClockTimer timer;
  const std::vector<BracketCost> stand_in = counters.MeasureBracket([&timer] {
    ResumeTiming(timer);
    PauseTiming(timer);
  });
  t_active = nullptr;
  std::vector<int64_t> delta(real.size(), 0);
  std::vector<BracketCost> pause = counters.calibration();
  for (size_t i = 0; i < real.size() && i < pause.size(); ++i) {
    if (!real[i].valid || !stand_in[i].valid) continue;
    delta[i] = static_cast<int64_t>(real[i].floor) -
               static_cast<int64_t>(stand_in[i].floor);
    pause[i] = real[i];
  }
  bench_internal::Registry::Get().SetTimerCorrection(c->config,
                                                     std::move(delta));
  counters.SetCalibration(counters.first_calibration(), std::move(pause));
}

namespace bench_internal {
namespace {

// Set by CalibrateGbenchTimer() for one run of its benchmark.
std::atomic<bool> timer_calibration_wanted{false};

// Calibrates in its first iteration when wanted; skips its run at once
// otherwise (the main's run, which runs every registered benchmark; its
// rows are dropped): SkipWithError ends gbench's loop without more
// iterations and without an iteration count in the name.
void TimerCalibrationBody(benchmark::State& state) {
  SetCalibrationBody(true);
  if (!timer_calibration_wanted.exchange(false)) {
    state.SkipWithError("perfcounters' calibration: not a benchmark");
  }
  for (auto _ : state) {
    state.PauseTiming();
    absl::StatusOr<std::shared_ptr<const Config>> config = CurrentConfig();
    if (config.ok() && *config != nullptr) {
      ThreadCounters* c = CountersFor(*config);
      if (c->budget.ok()) Measure::Access::CalibrateTimer(state, c);
    }
    state.ResumeTiming();
    state.SkipWithError("perfcounters' calibration: done");
  }
  SetCalibrationBody(false);
}

}  // namespace

void CalibrateGbenchTimer() {
  absl::StatusOr<std::shared_ptr<const Config>> config = CurrentConfig();
  if (!config.ok() || *config == nullptr || !(*config)->options.calibrate ||
      !Registry::Get().timer_correction(config->get()).empty()) {
    return;
  }
  static const bool registered = [] {
    benchmark::RegisterBenchmark(kTimerCalibrationName, TimerCalibrationBody);
    return true;
  }();
  (void)registered;
  timer_calibration_wanted = true;
  NullReporter null;
  benchmark::RunSpecifiedBenchmarks(
      &null, absl::StrCat("^", kTimerCalibrationName, "$"));
  timer_calibration_wanted = false;
}

}  // namespace bench_internal

// The profile's sampler stays inside the counters' bracket: it stops
// before the counters' read and starts after it, so that a profile never
// samples the counters' reads (outside the profile pass both hooks do
// nothing, calibrated).
ABSL_ATTRIBUTE_NOINLINE void Measure::PauseActive() {
  bench_internal::ProfilePause();
  if (Measure* m = bench_internal::t_active; m != nullptr) m->Pause();
}

ABSL_ATTRIBUTE_NOINLINE void Measure::ResumeActive() {
  if (Measure* m = bench_internal::t_active; m != nullptr) m->Resume();
  bench_internal::ProfileResume();
}

Measure::Measure(ThreadCounters* counters)
    : state_(nullptr), counters_(counters) {}

Measure::Measure(benchmark::State& state) : state_(&state) {
  absl::StatusOr<std::shared_ptr<const bench_internal::Config>> config =
      bench_internal::CurrentConfig();
  if (!config.ok()) {
    // Only a bad PERFCOUNTERS_EVENTS in a program with its own main (e.g.
    // gbench's BENCHMARK_MAIN()) gets here: perfcounters' main rejects it
    // before running anything. Stop at the first Measure, before its loop,
    // rather than turn every benchmark into an error row and exit 0.
    std::fprintf(stderr,
                 "perfcounters: error: %s; stopped before the first measured "
                 "benchmark\n",
                 std::string(config.status().message()).c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  if (*config == nullptr) return;
  counters_ = bench_internal::CountersFor(*config);
  counters_->counters.Reset();
  if (state.thread_index() == 0) bench_internal::ResetRun(*(*config));
}

Measure::~Measure() {
  // A loop left early (after SkipWithError): stop without reporting.
  if (state_ != nullptr) bench_internal::ProfileEnd();
  if (bench_internal::t_active == this) {
    if (counters_->sim != nullptr)
      bench_internal::SimStop(counters_->sim.get());
    counters_->counters.Stop();
    bench_internal::t_active = nullptr;
  }
  if (state_ != nullptr && counters_ != nullptr && !published_ &&
      state_->error_occurred()) {
    bench_internal::PublishSkipped(*counters_);
  }
}

Measure::Iterator Measure::begin() {
  benchmark::IterationCount n = 0;
  if (state_ != nullptr) {
    n = state_->max_iterations > 0 ? state_->max_iterations : 1;
    // Starts gbench's timer (after its start barrier) and takes all n
    // iterations at once; false when the benchmark was skipped.
    if (!state_->KeepRunningBatch(n)) {
      finished_ = true;
      return Iterator(this, 0);
    }
  }
  if (state_ != nullptr && bench_internal::InProfilerPass()) {
    // gbench's extra run (its ProfilerManager): this benchmark's counters
    // come from its own run and the extra run's row is not reported, so
    // the body is skipped: gbench's loop is finished right away.
    bench_internal::MarkPassSelfCounted();
    // Its profile (if any) comes from its own run too.
    bench_internal::ProfileDiscard();
    while (state_->KeepRunningBatch(1)) {
    }
    finished_ = true;
    return Iterator(this, 0);
  }
  // The sampler of the profile pass (a no-op otherwise), then the
  // counters, last: from here on to their stop in Finish() the code is the
  // calibrated bracket's.
  bench_internal::ProfileBegin();
  if (counters_ != nullptr) {
    bench_internal::t_active = this;
    counters_->counters.Start();
    if (counters_->sim != nullptr) {
      bench_internal::SimStart(counters_->sim.get());
    }
  }
  return Iterator(this, n);
}

void Measure::Finish() {
  // The counters stop first (a no-op when they are not running).
  if (counters_ != nullptr) {
    if (counters_->sim != nullptr)
      bench_internal::SimStop(counters_->sim.get());
    counters_->counters.Stop();
  }
  if (state_ != nullptr) bench_internal::ProfileEnd();
  if (finished_) return;
  finished_ = true;
  if (counters_ != nullptr) bench_internal::t_active = nullptr;
  if (state_ == nullptr) return;  // a calibration loop
  benchmark::State& state = *state_;
  if (counters_ != nullptr) {
    if (state.error_occurred()) {
      bench_internal::PublishSkipped(*counters_);
    } else if (counters_->sim != nullptr) {
      bench_internal::PublishSimulated(
          counters_->sim.get(), *counters_->config,
          state.max_iterations > 0 ? state.max_iterations : 1);
    } else {
      bench_internal::PublishBatch(
          *counters_, state.max_iterations > 0 ? state.max_iterations : 1);
    }
    published_ = true;
  }
  // No iterations are left: this stops gbench's timer and waits at its
  // finish barrier for the other threads of the benchmark.
  while (state.KeepRunningBatch(1)) {
  }
  if (counters_ != nullptr && state.thread_index() == 0 &&
      !state.error_occurred()) {
    bench_internal::Report(*counters_->config, state);
    if (counters_->sim != nullptr) {
      bench_internal::ReportSimulatedEstimates(*counters_->config, state);
    }
  }
}

void Measure::Pause() {
  if (counters_ == nullptr) return;
  if (counters_->sim != nullptr) bench_internal::SimPause(counters_->sim.get());
  counters_->counters.Stop();
}

void Measure::Resume() {
  if (counters_ == nullptr) return;
  counters_->counters.Start();
  if (counters_->sim != nullptr)
    bench_internal::SimResume(counters_->sim.get());
}

}  // namespace perfcounters
