// measure_loop.cc: Measure's loop — the counters started after gbench's
// timer and stopped before it, PauseTiming()/ResumeTiming(), and the
// calibration of exactly that code (the batch's bracket and the pause's).
//
// Calibration. The counters count the code between their start snapshot
// and their stop snapshot. In a batch that is the end of Measure::Begin(),
// begin()'s load of the count, the loop's first and last checks,
// FinishActive() and the start of Finish(); for a pause,
// the end of Measure::ResumeActive() and the start of the next
// Measure::PauseActive().
// CalibrateBrackets() runs those very functions on empty loops (a Measure
// over no iterations, without gbench; ResumeTiming() right before
// PauseTiming() on a stand-in state) and subtracts what they count: the batch's
// bracket once per batch (the first interval) and the pause's once per pause
// (every further interval).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "extra_run.h"
#include "measure_internal.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/counter_set.h"
#include "sampling_run.h"
#include "simulate.h"

namespace perfcounters {
namespace benchmark_ext_internal {
namespace {

// What PauseTiming()/ResumeTiming() call on gbench's state, doing nothing:
// the stand-in for calibrating them. The calls stay calls (an empty
// function would be dropped, and the calibrated PauseActive() would become
// a tail call after a frame restore: one instruction more than a
// benchmark's plain call of it).
struct NoTimer {
  ABSL_ATTRIBUTE_NOINLINE void PauseTiming() { benchmark::ClobberMemory(); }
  ABSL_ATTRIBUTE_NOINLINE void ResumeTiming() { benchmark::ClobberMemory(); }
};

// The calling thread's running Measure loop (from Begin() to Finish()), for
// PauseTiming()/ResumeTiming() and the loop's end (FinishActive()).
thread_local Measure* t_active = nullptr;

}  // namespace

}  // namespace benchmark_ext_internal

// The library's access to Measure's calibration loop.
class Measure::Access {
 public:
  static void Calibrate(ThreadCounters* c);
};

void benchmark_ext_internal::CalibrateBrackets(ThreadCounters* c) {
  Measure::Access::Calibrate(c);
}

void Measure::Access::Calibrate(ThreadCounters* c) {
  using benchmark_ext_internal::NoTimer;
  using benchmark_ext_internal::t_active;
  if (c->sim != nullptr) {
    // The simulator's brackets, through the same code (simulate.h). An
    // empty loop, which the compiler drops with its test before the loop:
    // the least a benchmark's loop can run, so that what remains of a
    // batch is never below 0 (the benchmark function's own instructions
    // around its loop, a few per batch, stay in).
    benchmark_ext_internal::SimCalibrate(
        c->sim.get(),
        [c] {
          Measure m(c);
          for (auto _ : m) {
          }
        },
        [c] {
          Measure paused(c);
          t_active = &paused;
          NoTimer timer;
          ResumeTiming(timer);
          PauseTiming(timer);
          t_active = nullptr;
        });
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
  NoTimer timer;
  std::vector<BracketCost> pause = counters.MeasureBracket([&timer] {
    ResumeTiming(timer);
    PauseTiming(timer);
  });
  t_active = nullptr;
  counters.SetCalibration(std::move(batch), std::move(pause));
}

// The profile's hooks stay outside the counters' bracket: the counters
// stop before the sampler stops and start after it starts. Of each pair
// below one acts, the other returns (see benchmark_ext.h).
ABSL_ATTRIBUTE_NOINLINE void Measure::PauseActive() {
  Measure* m = benchmark_ext_internal::t_active;
  if (m != nullptr) {
    if (m->outside_timer_) return;
    m->Pause();
  }
  benchmark_ext_internal::ProfilePause();
}

ABSL_ATTRIBUTE_NOINLINE void Measure::PauseAfterTimer() {
  Measure* m = benchmark_ext_internal::t_active;
  if (m == nullptr || !m->outside_timer_) return;
  m->Pause();
  benchmark_ext_internal::ProfilePause();
  if (m->state_ != nullptr && !m->counters_->timer_calibrated) {
    m->CalibrateTimerPause();
  }
}

ABSL_ATTRIBUTE_NOINLINE void Measure::ResumeBeforeTimer() {
  Measure* m = benchmark_ext_internal::t_active;
  if (m == nullptr || !m->outside_timer_) return;
  benchmark_ext_internal::ProfileResume();
  m->Resume();
}

ABSL_ATTRIBUTE_NOINLINE void Measure::ResumeActive() {
  Measure* m = benchmark_ext_internal::t_active;
  if (m != nullptr && m->outside_timer_) return;
  benchmark_ext_internal::ProfileResume();
  if (m != nullptr) m->Resume();
}

// The counters are stopped and gbench's timer paused (the first pause of a
// batch on this thread): the pause's bracket, which now
// holds gbench's ResumeTiming() and PauseTiming(), measured through this
// very code with the real state. It replaces the calibration by the
// stand-in state for every later pause (when calibrating at all; its time
// enabled serves the paused-timer check either way); the batch so far is
// kept (MeasureBracket gives it back). gbench's timer runs only inside
// each sample's ResumeTiming()/PauseTiming() pair, as in a pause of its own.
void Measure::CalibrateTimerPause() {
  ThreadCounters* c = counters_;
  c->timer_calibrated = true;  // before: the samples pause too
  if (c->sim != nullptr) return;
  benchmark::State& state = *state_;
  const CounterSet& set = internal::CounterSetOf(c->counters);
  uint64_t least_enabled = UINT64_MAX;
  std::vector<BracketCost> pause =
      c->counters.MeasureBracket([&state, &set, &least_enabled] {
        ResumeTiming(state);
        PauseTiming(state);
        uint64_t enabled = 0;
        for (size_t g = 0; g < set.group_count(); ++g) {
          enabled = std::max(enabled, set.enabled(g));
        }
        least_enabled = std::min(least_enabled, enabled);
      });
  c->pause_enabled_ns = least_enabled == UINT64_MAX ? 0 : least_enabled;
  if (!c->config->options.calibrate) return;
  std::vector<BracketCost> batch = c->counters.first_calibration();
  c->counters.SetCalibration(std::move(batch), std::move(pause));
}

Measure::Measure(ThreadCounters* counters)
    : state_(nullptr),
      counters_(counters),
      outside_timer_(counters->outside_timer) {}

Measure::Measure(benchmark::State& state) : state_(&state) {
  absl::StatusOr<std::shared_ptr<const benchmark_ext_internal::Config>> config =
      benchmark_ext_internal::CurrentConfig();
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
  counters_ = benchmark_ext_internal::CountersFor(*config);
  outside_timer_ = counters_->outside_timer;
  // gbench's pause is measured again in every batch (at its first pause):
  // on a loaded VM its cost drifts over seconds.
  counters_->timer_calibrated = false;
  counters_->counters.Reset();
  if (state.thread_index() == 0) benchmark_ext_internal::ResetRun(*(*config));
}

Measure::~Measure() {
  // A loop left early (after SkipWithError): stop without reporting.
  if (state_ != nullptr) benchmark_ext_internal::ProfileEnd();
  if (benchmark_ext_internal::t_active == this) {
    if (counters_ != nullptr) {
      if (counters_->sim != nullptr)
        benchmark_ext_internal::SimStop(counters_->sim.get());
      counters_->counters.Stop();
    }
    benchmark_ext_internal::t_active = outer_;
  }
  if (state_ != nullptr && counters_ != nullptr && !published_ &&
      state_->error_occurred()) {
    benchmark_ext_internal::PublishSkipped(*counters_);
  }
}

void Measure::Begin() {
  outer_ = benchmark_ext_internal::t_active;
  benchmark_ext_internal::t_active = this;
  iterations_ = 0;
  benchmark::IterationCount n = 0;
  if (state_ != nullptr) {
    n = state_->max_iterations > 0 ? state_->max_iterations : 1;
    // Starts gbench's timer (after its start barrier) and takes all n
    // iterations at once; false when the benchmark was skipped.
    if (!state_->KeepRunningBatch(n)) {
      finished_ = true;
      return;
    }
  }
  if (state_ != nullptr && benchmark_ext_internal::InExtraRun()) {
    // gbench's extra run (its ProfilerManager): this benchmark's counters
    // come from its own run and the extra run's row is not reported, so
    // the body is skipped: gbench's loop is finished right away.
    benchmark_ext_internal::MarkExtraRunSelfCounted();
    // Its profile (if any) comes from its own run too.
    benchmark_ext_internal::ProfileDiscard();
    while (state_->KeepRunningBatch(1)) {
    }
    finished_ = true;
    return;
  }
  // The sampler of the sampling run (a no-op otherwise), then the
  // counters, last: from here on to their stop in Finish() the code is the
  // calibrated bracket's.
  benchmark_ext_internal::ProfileBegin();
  iterations_ = n;
  if (counters_ != nullptr) {
    counters_->counters.Start();
    if (counters_->sim != nullptr) {
      benchmark_ext_internal::SimStart(counters_->sim.get());
    }
  }
}

ABSL_ATTRIBUTE_NOINLINE void Measure::FinishActive() {
  if (Measure* m = benchmark_ext_internal::t_active; m != nullptr) m->Finish();
}

void Measure::Finish() {
  // The counters stop first (a no-op when they are not running).
  if (counters_ != nullptr) {
    if (counters_->sim != nullptr)
      benchmark_ext_internal::SimStop(counters_->sim.get());
    counters_->counters.Stop();
  }
  benchmark_ext_internal::t_active = outer_;
  if (state_ != nullptr) benchmark_ext_internal::ProfileEnd();
  if (finished_) return;
  finished_ = true;
  if (state_ == nullptr) return;  // a calibration loop
  benchmark::State& state = *state_;
  if (counters_ != nullptr) {
    if (state.error_occurred()) {
      benchmark_ext_internal::PublishSkipped(*counters_);
    } else if (counters_->sim != nullptr) {
      benchmark_ext_internal::PublishSimulated(
          counters_->sim.get(), *counters_->config,
          state.max_iterations > 0 ? state.max_iterations : 1);
    } else {
      benchmark_ext_internal::PublishBatch(
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
    benchmark_ext_internal::Report(*counters_->config, state);
    if (counters_->sim != nullptr) {
      benchmark_ext_internal::ReportSimulatedEstimates(*counters_->config,
                                                       state);
    }
  }
}

void Measure::Pause() {
  if (counters_ == nullptr) return;
  if (counters_->sim != nullptr)
    benchmark_ext_internal::SimPause(counters_->sim.get());
  counters_->counters.Stop();
}

void Measure::Resume() {
  if (counters_ == nullptr) return;
  counters_->counters.Start();
  if (counters_->sim != nullptr)
    benchmark_ext_internal::SimResume(counters_->sim.get());
}

}  // namespace perfcounters
