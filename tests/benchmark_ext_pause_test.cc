// benchmark_ext_pause_test.cc: perfcounters::PauseTiming/ResumeTiming and
// gbench's timer. gbench's timed span never holds a read of the counters
// (they stop after gbench's timer stops and start before it starts), and
// the pause's calibration, measured through gbench's real timer by the
// main's CalibrateGbenchTimer(), covers it. In-process: a benchmark run
// through gbench whose pause calls go through a spy of its state.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "counter_set.h"
#include "gtest/gtest.h"
#include "measure_internal.h"
#include "pass_counting.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/counters.h"
#include "registry.h"

namespace {

namespace bi = perfcounters::bench_internal;

// The calling thread's read(2) snapshots so far (task-clock is read with
// read(2)).
uint64_t Reads() {
  absl::StatusOr<std::shared_ptr<const bi::Config>> config =
      bi::CurrentConfig();
  if (!config.ok() || *config == nullptr) return 0;
  return perfcounters::internal::CounterSetOf(
             bi::CountersFor(*config)->counters)
      .syscall_snapshots();
}

// gbench's state as PauseTiming()/ResumeTiming() see it: the reads taken
// while gbench's timer still ran (before it stops) and once it runs again.
struct Spy {
  benchmark::State* state;
  uint64_t at_stop = 0;
  uint64_t at_start = 0;
  void PauseTiming() {
    at_stop = Reads();
    state->PauseTiming();
  }
  void ResumeTiming() {
    state->ResumeTiming();
    at_start = Reads();
  }
};

struct Seen {
  int iterations = 0;
  int read_in_timed_span = 0;  // a read between the body and gbench's stop
  int stop_not_read = 0;       // no read after gbench's stop
  int start_not_read = 0;      // no read before gbench's start
};
Seen seen;

void BM_Spied(benchmark::State& state) {
  Spy spy{&state};
  for (auto _ : perfcounters::Measure(state)) {
    ++seen.iterations;
    const uint64_t body = Reads();
    perfcounters::PauseTiming(spy);
    if (spy.at_stop != body) ++seen.read_in_timed_span;
    const uint64_t paused = Reads();
    if (paused != spy.at_stop + 1) ++seen.stop_not_read;
    perfcounters::ResumeTiming(spy);
    if (spy.at_start != paused + 1) ++seen.start_not_read;
  }
}

void Initialize() {
  static bool done = [] {
    static char name[] = "benchmark_ext_pause_test";
    static char* argv[] = {name, nullptr};
    int argc = 1;
    benchmark::Initialize(&argc, argv);
    benchmark::RegisterBenchmark("BM_Spied", BM_Spied)->Iterations(50);
    return true;
  }();
  (void)done;
}

TEST(BenchmarkExtPause, GbenchTimedSpanHoldsNoCounterRead) {
  Initialize();
  absl::StatusOr<perfcounters::Plan> plan =
      perfcounters::SetBenchmarkEvents("task-clock");
  ASSERT_TRUE(plan.ok()) << plan.status();
  if (!plan->unavailable.empty()) GTEST_SKIP() << "task-clock cannot be opened";
  bi::PrepareCallingThread();
  seen = Seen();
  bi::NullReporter null;
  ASSERT_EQ(benchmark::RunSpecifiedBenchmarks(&null, "^BM_Spied"), 1u);
  EXPECT_EQ(seen.iterations, 50);
  EXPECT_EQ(seen.read_in_timed_span, 0)
      << "the counters were read before gbench's timer stopped";
  EXPECT_EQ(seen.stop_not_read, 0)
      << "the counters were not read once after gbench's timer stopped";
  EXPECT_EQ(seen.start_not_read, 0)
      << "the counters were not read once before gbench's timer started";
}

// The main's calibration through gbench's real timer: measured once per
// list of events, on the calling thread, and kept for that list only.
TEST(BenchmarkExtPause, MainCalibratesThePauseThroughGbenchsTimer) {
  Initialize();
  absl::StatusOr<perfcounters::Plan> plan =
      perfcounters::SetBenchmarkEvents("task-clock");
  ASSERT_TRUE(plan.ok()) << plan.status();
  if (!plan->unavailable.empty()) GTEST_SKIP() << "task-clock cannot be opened";
  const bi::MeasurementSetup before = bi::PrepareCallingThread();
  absl::StatusOr<std::shared_ptr<const bi::Config>> config =
      bi::CurrentConfig();
  ASSERT_TRUE(config.ok() && *config != nullptr);
  EXPECT_TRUE(bi::Registry::Get().timer_correction(config->get()).empty());
  bi::CalibrateGbenchTimer();
  const std::vector<int64_t> delta =
      bi::Registry::Get().timer_correction(config->get());
  ASSERT_EQ(delta.size(), 1u) << "no correction was measured";
  const bi::MeasurementSetup after = bi::PrepareCallingThread();
  ASSERT_EQ(after.pause_calibration.size(), 1u);
  ASSERT_EQ(before.pause_calibration.size(), 1u);
  // A second call for the same events measures nothing again.
  bi::CalibrateGbenchTimer();
  EXPECT_EQ(bi::PrepareCallingThread().pause_calibration[0].second.floor,
            after.pause_calibration[0].second.floor);
  // New events: no correction until the main measures one for them.
  ASSERT_TRUE(perfcounters::SetBenchmarkEvents("task-clock,page-faults").ok());
  config = bi::CurrentConfig();
  ASSERT_TRUE(config.ok() && *config != nullptr);
  EXPECT_TRUE(bi::Registry::Get().timer_correction(config->get()).empty());
}

}  // namespace
