// benchmark_ext.h: perf counters per iteration in Google Benchmark, through
// gbench's public API only (works with gbench 1.7.1 and newer).
//
//   static void BM_X(benchmark::State& state) {
//     for (auto _ : perfcounters::Measure(state)) { ... }
//   }
//
// `Measure` replaces gbench's PerfCountersMeasurement. It drives gbench's
// timed loop itself (one KeepRunningBatch(max_iterations) call), so the
// counters cover exactly the timed loop: they are read after gbench's
// timer starts and before it stops. Per benchmark thread the counter groups
// are opened for the calling thread once (outside the timed region) and
// reused for every later batch on that thread; a snapshot is taken at the
// start and at the end of each batch (per group: user-space reads of its
// members where the kernel allows it, else one read(2); see
// counters.h), the per-batch deltas are scaled for multiplexing
// and the measurement's own counts (calibration) are subtracted. The values go
// into `state.counters` as per-iteration counters; see docs/benchmark_ext.md
// for the exact keys. `PauseTiming()`/`ResumeTiming()` below stop and restart
// the counters together with gbench's timer: inside it where every group is
// read from user space, outside it (gbench's pause and resume then counted
// and calibrated away) where a group is read with read(2).
//
// Which events are counted is process-wide: `SetBenchmarkEvents()`, called
// by perfcounters' main (benchmark_ext_main.h) from --perf_counters, or, when a
// program uses its own main, PERFCOUNTERS_EVENTS read at the first Measure.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_H_
#define PERFCOUNTERS_BENCHMARK_EXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"

namespace perfcounters {

template <typename State>
void PauseTiming(State& state);
template <typename State>
void ResumeTiming(State& state);

// How Measure reads and corrects the counters (the main's
// --perf_counters_read and --perf_counters_calibrate).
struct MeasureOptions {
  // Snapshot path: user space where possible (kAuto), or always read(2).
  ReadMode read_mode = ReadMode::kAuto;
  // Measure the bracket's own counts once per thread (empty intervals) and
  // subtract them once per counting interval; see docs/benchmark_ext.md.
  bool calibrate = true;
};

// Parses `list` (see ParseRequest()), plans its groups by opening them on
// the calling thread, and makes it the set of events every later Measure
// counts. Parse errors (unknown name, with close names) are returned and
// change nothing. Events this machine cannot count are listed in the
// returned Plan's `unavailable` (with reasons); they are then reported as
// `<key>.not_counted` = 1. An empty list counts nothing.
absl::StatusOr<Plan> SetBenchmarkEvents(
    std::string_view list, const MeasureOptions& options = MeasureOptions());

// The range adaptor; see the file comment. One Measure per benchmark
// function call, used for exactly one range-for loop.
class Measure {
 public:
  // The calling thread's counter groups and batch, and the library's own
  // access to Measure (both defined in benchmark_ext's sources).
  struct ThreadCounters;
  class Access;

  explicit Measure(benchmark::State& state);
  ~Measure();
  Measure(const Measure&) = delete;
  Measure& operator=(const Measure&) = delete;

  // The end of the loop.
  struct Sentinel {};

  // Counts down the iterations gbench asked for.
  class Iterator {
   public:
    struct BENCHMARK_UNUSED Value {};
    Value operator*() const { return Value(); }
    BENCHMARK_ALWAYS_INLINE Iterator& operator++() {
      --remaining_;
      return *this;
    }
    // The loop's end calls FinishActive(), which takes no argument: the
    // stop is then one plain call whatever registers the loop keeps this
    // Measure in (a loop with calls in its body keeps it in a callee-saved
    // one, and would move it back into place before a member call: one
    // instruction that calibration's loop, without calls, does not run).
    BENCHMARK_ALWAYS_INLINE bool operator!=(Sentinel) {
      if (BENCHMARK_BUILTIN_EXPECT(remaining_ != 0, true)) return true;
      Measure::FinishActive();
      return false;
    }

   private:
    friend class Measure;
    explicit Iterator(benchmark::IterationCount remaining)
        : remaining_(remaining) {}
    benchmark::IterationCount remaining_;
  };

  // Starts gbench's timer (KeepRunningBatch), then the counters (Begin()).
  // The iteration count is then loaded from this Measure: one load into
  // whichever register the loop uses, in every loop shape.
  BENCHMARK_ALWAYS_INLINE Iterator begin() {
    Begin();
    return Iterator(iterations_);
  }
  Sentinel end() { return Sentinel(); }

  // Used by PauseTiming()/ResumeTiming().
  void Pause();
  void Resume();

 private:
  template <typename State>
  friend void PauseTiming(State& state);
  template <typename State>
  friend void ResumeTiming(State& state);
  // The counters' halves of PauseTiming() and ResumeTiming(): stop and
  // restart the calling thread's running Measure loop, if any. Out of line
  // and calibrated as they are (see docs/benchmark_ext.md). Each pause and
  // resume calls both of its pair, on either side of gbench's timer; the
  // one that acts is chosen by how the loop's counters are read:
  //   PauseActive()/ResumeActive() (inside gbench's timer) where every
  //   group is read from user space: two cheap reads in the timer, and
  //   gbench's pause is not counted;
  //   PauseAfterTimer()/ResumeBeforeTimer() (outside it) where a group is
  //   read with read(2): the timer holds no system call of ours, and the
  //   counts hold gbench's pause and resume, measured with this very code
  //   at each batch's first pause and subtracted per pause.
  static void PauseActive();
  static void PauseAfterTimer();
  static void ResumeBeforeTimer();
  static void ResumeActive();
  // Measures the pause's bracket with gbench's real PauseTiming() and
  // ResumeTiming() (at a batch's first pause, with the counters stopped and
  // gbench's timer paused).
  void CalibrateTimerPause();
  // The end of the calling thread's running Measure loop: Finish() it.
  static void FinishActive();
  // An empty loop over `counters` without gbench (calibration only).
  explicit Measure(ThreadCounters* counters);
  void Begin();
  void Finish();

  // Null in a calibration loop.
  benchmark::State* state_;
  // This thread's groups; null when no events are configured.
  ThreadCounters* counters_ = nullptr;
  bool finished_ = false;
  // This thread's batch (or its SkipWithError) went to the run's record.
  bool published_ = false;
  // The loop's iteration count (0 when skipped), set by Begin().
  benchmark::IterationCount iterations_ = 0;
  // The thread's running Measure loop before this one's (null unless
  // loops nest), given back when this one finishes.
  Measure* outer_ = nullptr;
  // The counters pause outside gbench's timer (some group is read with
  // read(2)); see PauseAfterTimer().
  bool outside_timer_ = false;
};

// Stops the counters of the running Measure loop on this thread and
// gbench's timer (state.PauseTiming()): the counters first where every
// group is read from user space, else the timer first (see PauseActive()).
// Without a running Measure it only pauses the timer. Inline templates
// (State is benchmark::State, deduced), so that calibration runs this very
// code on a stand-in state: what the pause itself runs until the counters
// stop is calibrated away. Straight-line code: whichever half acts, the
// code the counters see around the loop's body is the same.
template <typename State>
inline void PauseTiming(State& state) {
  Measure::PauseActive();
  state.PauseTiming();
  Measure::PauseAfterTimer();
}

// Restarts gbench's timer (state.ResumeTiming()) and the counters, in the
// reverse order of PauseTiming().
template <typename State>
inline void ResumeTiming(State& state) {
  Measure::ResumeBeforeTimer();
  state.ResumeTiming();
  Measure::ResumeActive();
}

}  // namespace perfcounters

#endif  // PERFCOUNTERS_BENCHMARK_EXT_H_
