// profile_bench: the benchmarks benchmark_ext_profile_test and
// benchmark_ext_profile_exact_test run with --perf_profile (built with -g,
// so that every build type has the line tables and inlined frames). Each loop
// calls two noinline functions whose work is in a 3:1 ratio (the same loop
// body, 3x and 1x the trips: the same ratio of instructions) and reports the
// ratio of CPU time they really took, which the code's placement moves
// (counter three_cpu_share, below);
// a setup function runs before the loop and a third one only between
// PauseTiming and ResumeTiming, so neither may get a sample; an always-inline
// helper must appear as an inlined frame.
#include <time.h>

#include <cstdint>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace profiled {

// One per thread: the Threads(2) benchmark's threads must not share it
// (a data race, and TSan says so).
thread_local volatile uint64_t sink = 0;

// Called once at the end of each worker, so that none is a leaf function:
// GCC sets up no frame in a leaf even with -fno-omit-frame-pointer, and a
// frame-pointer walk from inside a leaf skips its caller.
__attribute__((noinline)) void Done() { asm volatile("" ::: "memory"); }
// (Built with -fno-optimize-sibling-calls, so that the call stays a call.)

// One trip: a few instructions the optimizer cannot fold.
#define PROFILED_WORK(trips)                 \
  do {                                       \
    for (uint64_t i = 0; i < (trips); ++i) { \
      uint64_t v = sink;                     \
      asm volatile("" : "+r"(v));            \
      sink = v + i;                          \
    }                                        \
    Done();                                  \
  } while (0)

// 1.3 ms of work per part: a cpu-clock sample is taken when its timer
// interrupt arrives, which on a VM may be tens of microseconds late, so
// parts much shorter than that would lend their samples to what follows.
constexpr uint64_t kTrips = 2000000;

__attribute__((noinline)) void ThreeParts() { PROFILED_WORK(3 * kTrips); }
__attribute__((noinline)) void OnePart() { PROFILED_WORK(kTrips); }
__attribute__((noinline)) void SetupOnly() { PROFILED_WORK(4 * kTrips); }
__attribute__((noinline)) void PausedOnly() { PROFILED_WORK(4 * kTrips); }

__attribute__((always_inline)) inline void InlinedHelper() {
  PROFILED_WORK(kTrips);
}
__attribute__((noinline)) void CallsInlinedHelper() { InlinedHelper(); }

// This thread's CPU time: what a cpu-clock sampler's clock counts.
__attribute__((noinline)) uint64_t CpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u +
         static_cast<uint64_t>(t.tv_nsec);
}

// The CPU time ThreeParts and OnePart took in all runs of one benchmark.
struct PartTimes {
  uint64_t three_ns = 0;
  uint64_t one_ns = 0;
};

// Sets counter three_cpu_share: ThreeParts' share of the two parts' CPU
// time, the share its samples must have. Not 0.75 on every machine: the same
// loop at another address ran 3.8 times as long as OnePart's, not 3 times
// (an AMD EPYC VM, this file built against Google Benchmark main).
void ReportShare(benchmark::State& state, const PartTimes& t) {
  const uint64_t both = t.three_ns + t.one_ns;
  if (both == 0) return;
  state.counters["three_cpu_share"] =
      static_cast<double>(t.three_ns) / static_cast<double>(both);
}

}  // namespace profiled

// ThreeParts then OnePart, each one's CPU time added to `times`. A macro,
// not a function: a sample's stack stays benchmark -> part in every build
// type (a helper left out of line at -O0 would sit between them).
#define PROFILED_THREE_AND_ONE(times)          \
  do {                                         \
    const uint64_t t0_ = profiled::CpuNs();    \
    profiled::ThreeParts();                    \
    const uint64_t t1_ = profiled::CpuNs();    \
    profiled::OnePart();                       \
    (times).three_ns += t1_ - t0_;             \
    (times).one_ns += profiled::CpuNs() - t1_; \
  } while (0)

static void BM_ThreeToOne(benchmark::State& state) {
  profiled::SetupOnly();
  static profiled::PartTimes times;
  for (auto _ : perfcounters::Measure(state)) {
    PROFILED_THREE_AND_ONE(times);
    perfcounters::PauseTiming(state);
    profiled::PausedOnly();
    perfcounters::ResumeTiming(state);
  }
  profiled::SetupOnly();
  profiled::ReportShare(state, times);
}
BENCHMARK(BM_ThreeToOne);

static void BM_Inlined(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) profiled::CallsInlinedHelper();
}
BENCHMARK(BM_Inlined);
BENCHMARK(BM_Inlined)->Name("BM odd/<name> with spaces")->Threads(2);

// BM_ThreeToOne written the usual way, without Measure: sampled in gbench's
// extra run (its ProfilerManager, gbench 1.9 and newer); older versions
// cannot sample it and say so.
static void BM_PlainThreeToOne(benchmark::State& state) {
  profiled::SetupOnly();
  static profiled::PartTimes times;
  for (auto _ : state) {
    PROFILED_THREE_AND_ONE(times);
    perfcounters::PauseTiming(state);
    profiled::PausedOnly();
    perfcounters::ResumeTiming(state);
  }
  profiled::SetupOnly();
  profiled::ReportShare(state, times);
}
BENCHMARK(BM_PlainThreeToOne);

// Threads(2), thread 0 running ThreeParts and the other OnePart: a plain
// loop is sampled in gbench's one-thread extra run (1.9 and newer), so its
// profile has no OnePart and must say that it is one thread's; the same
// with Measure samples both threads.
static void BM_PlainThreads(benchmark::State& state) {
  for (auto _ : state) {
    if (state.thread_index() == 0) {
      profiled::ThreeParts();
    } else {
      profiled::OnePart();
    }
  }
}
BENCHMARK(BM_PlainThreads)->Threads(2);

static void BM_MeasuredThreads(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    if (state.thread_index() == 0) {
      profiled::ThreeParts();
    } else {
      profiled::OnePart();
    }
  }
}
BENCHMARK(BM_MeasuredThreads)->Threads(2);

namespace profiled {
// profile_bench_nofp.cc: built without frame pointers.
void NoFramePointerWork(uint64_t trips);
}  // namespace profiled

// Its samples' call chains break at the sampled frame: the profile must
// say so, not claim call chains.
static void BM_NoFramePointers(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    profiled::NoFramePointerWork(profiled::kTrips);
  }
}
BENCHMARK(BM_NoFramePointers);

// For the emulated arm64 machine, where instructions are counted exactly:
// the same shape with bodies of a fixed number of instructions, 300,000 and
// 100,000 per call: inline asm written into each function itself (not a
// shared inline helper, which would be the innermost, inlined frame of
// every sample), independent of the optimizer.
//
// PROFILED_HUNDREDS(n): n trips of 98 nops and a 2-instruction count-down.
#if defined(__aarch64__)
#define PROFILED_HUNDREDS(n)                            \
  do {                                                  \
    uint64_t trips_ = (n);                              \
    __asm__ volatile(                                   \
        "1: .rept 98\n nop\n .endr\n subs %0, %0, #1\n" \
        " b.ne 1b\n"                                    \
        : "+r"(trips_)                                  \
        :                                               \
        : "cc");                                        \
  } while (0)
#elif defined(__x86_64__)
#define PROFILED_HUNDREDS(n)                                         \
  do {                                                               \
    uint64_t trips_ = (n);                                           \
    __asm__ volatile("1: .rept 98\n nop\n .endr\n dec %0\n jnz 1b\n" \
                     : "+r"(trips_)                                  \
                     :                                               \
                     : "cc");                                        \
  } while (0)
#else
#define PROFILED_HUNDREDS(n) PROFILED_WORK(100 * (n))
#endif

namespace profiled {

constexpr uint64_t kHundreds = 1000;  // 100,000 instructions

__attribute__((noinline)) void ExactThree() {
  PROFILED_HUNDREDS(3 * kHundreds);
  Done();
}
__attribute__((noinline)) void ExactOne() {
  PROFILED_HUNDREDS(kHundreds);
  Done();
}
__attribute__((noinline)) void ExactSetup() {
  PROFILED_HUNDREDS(4 * kHundreds);
  Done();
}
__attribute__((noinline)) void ExactPaused() {
  PROFILED_HUNDREDS(4 * kHundreds);
  Done();
}
__attribute__((always_inline)) inline void ExactInlinedHelper() {
  PROFILED_HUNDREDS(kHundreds);
}
__attribute__((noinline)) void ExactCallsInlined() {
  ExactInlinedHelper();
  Done();
}

}  // namespace profiled

// A fixed iteration count: the counters per iteration are compared
// between runs with and without --perf_profile.
static void BM_ExactThreeToOne(benchmark::State& state) {
  profiled::ExactSetup();
  for (auto _ : perfcounters::Measure(state)) {
    profiled::ExactThree();
    profiled::ExactOne();
    perfcounters::PauseTiming(state);
    profiled::ExactPaused();
    perfcounters::ResumeTiming(state);
  }
  profiled::ExactSetup();
}
BENCHMARK(BM_ExactThreeToOne)->Iterations(200);

static void BM_ExactInlined(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) profiled::ExactCallsInlined();
}
BENCHMARK(BM_ExactInlined)->Iterations(200);

PERFCOUNTERS_BENCHMARK_MAIN();
