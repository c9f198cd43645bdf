// simulate_bench.cc: benchmarks with exactly known simulated counts, run by
// tests/benchmark_ext_simulate_test.cc with --perf_counters_source=simulate
// (and under plain callgrind, as the oracle). Built at -O2 in every build
// type: the test reads the loops' own instructions from this binary's
// disassembly.
//
//   BM_Nops37/iterations:N        37 nops per iteration (asm), N = 10, 1000,
//                                 100000 (one batch each; every
//                                 registration is the same function), and
//                                 N = 10, 1000 at Threads(2)
//   BM_PausedNops37/iterations:N  the same with an empty PauseTiming()/
//                                 ResumeTiming() pair per iteration
//   BM_PlainNops37/iterations:N   the same in an unmodified loop, N = 10,
//                                 1000, 100000
//   BM_CallWork/iterations:N      one call of Work() (a leaf, the same
//                                 instructions every call) per iteration
//   BM_Sequential                 one pass over kElements 8-byte elements
//                                 per iteration (64-byte aligned)
//   BM_Exit3 / BM_Abort           exit(3) / abort() when
//                                 SIMULATE_BENCH_FAIL=1 (else nothing)
//   BM_UntilKilled                with SIMULATE_BENCH_READY=FILE: creates
//                                 FILE inside its timed loop, then waits
//                                 (at most 10 minutes) to be killed
//   BM_Branch/sorted:0|1          one pass over kBranchElements random
//                                 bytes (sorted or not) per iteration, a
//                                 conditional jump (asm) on each; no
//                                 iteration count (the simulator fixes it)
//   BM_Chase/iterations:4         kChaseSteps steps of a random cycle
//                                 through 64 MiB, one 64-byte line per node,
//                                 the simulated LL flushed before the loop
//   BM_ProfileSplit/iterations:20 ThreeParts() and OnePart() per iteration
//                                 (straight-line asm, 3:1 instructions),
//                                 SetupOnly() before and after the loop,
//                                 PausedOnly() between PauseTiming() and
//                                 ResumeTiming(): the simulated profile's
//                                 (benchmark_ext_simulate_profile_test)
//   BM_PlainProfileSplit/iterations:20  the same without Measure or pause
//   BM_ProfileMisses/iterations:2 StreamBig(): one pass over kStreamBytes
//                                 (misses every line of the simulated D1);
//                                 HotSmall(): 64 loads of one warm line
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace {

#define PERFCOUNTERS_NOPS37 __asm__ volatile(".rept 37\n nop\n .endr\n")

void BM_Nops37(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    PERFCOUNTERS_NOPS37;
  }
}
BENCHMARK(BM_Nops37)->Iterations(10);
BENCHMARK(BM_Nops37)->Iterations(1000);
BENCHMARK(BM_Nops37)->Iterations(100000);
BENCHMARK(BM_Nops37)->Iterations(10)->Threads(2);
BENCHMARK(BM_Nops37)->Iterations(1000)->Threads(2);

void BM_PausedNops37(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    perfcounters::PauseTiming(state);
    perfcounters::ResumeTiming(state);
    PERFCOUNTERS_NOPS37;
  }
}
BENCHMARK(BM_PausedNops37)->Iterations(10);
BENCHMARK(BM_PausedNops37)->Iterations(1000);

// An unmodified loop: counted in gbench's extra run (1.9 and newer), not
// counted with a warning before.
void BM_PlainNops37(benchmark::State& state) {
  for (auto _ : state) {
    PERFCOUNTERS_NOPS37;
  }
}
BENCHMARK(BM_PlainNops37)->Iterations(10);
BENCHMARK(BM_PlainNops37)->Iterations(1000);
BENCHMARK(BM_PlainNops37)->Iterations(100000);

// A leaf of the same instructions every call (no data-dependent branch;
// the test compares its callgrind cost with ours).
__attribute__((noinline)) uint64_t Work(uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 257; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    x ^= x >> 13;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

void BM_CallWork(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : perfcounters::Measure(state)) {
    seed = Work(seed);
    benchmark::DoNotOptimize(seed);
  }
}
BENCHMARK(BM_CallWork)->Iterations(100);
BENCHMARK(BM_CallWork)->Iterations(300);

constexpr size_t kElements = 1 << 18;  // 2 MiB: more than L1, less than LL

void BM_Sequential(benchmark::State& state) {
  auto* data = static_cast<uint64_t*>(
      std::aligned_alloc(64, kElements * sizeof(uint64_t)));
  for (size_t i = 0; i < kElements; ++i) data[i] = i;
  for (auto _ : perfcounters::Measure(state)) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kElements; ++i) {
      sum += data[i];
      benchmark::DoNotOptimize(sum);
    }
  }
  std::free(data);
}
BENCHMARK(BM_Sequential)->Iterations(4);

constexpr size_t kBranchElements = 1 << 14;

// The elements below 128, with one conditional jump per element that the
// compiler cannot turn into a conditional move (asm).
__attribute__((noinline)) uint64_t CountBelow128(const uint8_t* data,
                                                 size_t n) {
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = data[i];
#if defined(__x86_64__)
    __asm__ volatile("cmpl $128, %k1\n\tjae 1f\n\tinc %0\n1:"
                     : "+r"(count)
                     : "r"(v)
                     : "cc");
#elif defined(__aarch64__)
    __asm__ volatile("cmp %w1, #128\n\tb.hs 1f\n\tadd %0, %0, #1\n1:"
                     : "+r"(count)
                     : "r"(v)
                     : "cc");
#else
    count += v < 128;
#endif
  }
  return count;
}

void BM_Branch(benchmark::State& state) {
  std::vector<uint8_t> data(kBranchElements);
  std::mt19937 random(37);  // the same bytes every run
  for (uint8_t& d : data) d = static_cast<uint8_t>(random() & 0xff);
  if (state.range(0) != 0) std::sort(data.begin(), data.end());
  for (auto _ : perfcounters::Measure(state)) {
    benchmark::DoNotOptimize(CountBelow128(data.data(), data.size()));
  }
}
BENCHMARK(BM_Branch)->ArgName("sorted")->Arg(0)->Arg(1);

constexpr size_t kLine = 64;
constexpr size_t kChaseBytes = size_t{64} << 20;  // 8 x the simulated LL
constexpr size_t kChaseSteps = 1 << 16;

// A random cycle through every 64-byte line of 64 MiB (Sattolo's
// shuffle), walked kChaseSteps steps per iteration; the four iterations
// visit 2^18 of its 2^20 lines, each once. Before the loop 16 MiB of other
// lines are written, which evicts the cycle from the simulated 8 MiB LL:
// every step misses L1 and LL.
void BM_Chase(benchmark::State& state) {
  const size_t nodes = kChaseBytes / kLine;
  auto* memory = static_cast<char*>(std::aligned_alloc(kLine, kChaseBytes));
  std::vector<uint32_t> order(nodes);
  for (size_t i = 0; i < nodes; ++i) order[i] = static_cast<uint32_t>(i);
  std::mt19937 random(37);
  for (size_t i = nodes - 1; i > 0; --i) {
    std::swap(order[i], order[random() % i]);  // j < i: one cycle
  }
  for (size_t i = 0; i < nodes; ++i) {
    *reinterpret_cast<char**>(memory + order[i] * kLine) =
        memory + order[(i + 1) % nodes] * kLine;
  }
  std::vector<char> flush(2 * (size_t{8} << 20));
  for (size_t i = 0; i < flush.size(); i += kLine) flush[i] = 1;
  benchmark::DoNotOptimize(flush.data());
  char* p = memory + order[0] * kLine;
  for (auto _ : perfcounters::Measure(state)) {
    for (size_t i = 0; i < kChaseSteps; ++i) {
      p = *reinterpret_cast<char**>(p);
    }
    benchmark::DoNotOptimize(p);
  }
  std::free(memory);
}
BENCHMARK(BM_Chase)->Iterations(4);

bool Fail() {
  const char* env = std::getenv("SIMULATE_BENCH_FAIL");
  return env != nullptr && env[0] == '1';
}

void BM_Exit3(benchmark::State& state) {
  if (Fail()) std::exit(3);
  for (auto _ : perfcounters::Measure(state)) {
  }
}
BENCHMARK(BM_Exit3)->Iterations(1);

void BM_Abort(benchmark::State& state) {
  if (Fail()) std::abort();
  for (auto _ : perfcounters::Measure(state)) {
  }
}
BENCHMARK(BM_Abort)->Iterations(1);

// The signal test's target: it says when the child runs its timed loop
// (the file), so the test sends its signal then, whatever the machine's
// speed.
void BM_UntilKilled(benchmark::State& state) {
  const char* ready = std::getenv("SIMULATE_BENCH_READY");
  for (auto _ : perfcounters::Measure(state)) {
    if (ready == nullptr) continue;
    if (FILE* f = std::fopen(ready, "w")) std::fclose(f);
    const timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 60 * 1000; ++i) nanosleep(&tick, nullptr);
  }
}
BENCHMARK(BM_UntilKilled)->Iterations(1);

// The simulated profile's functions: naked, so that each is exactly its
// asm (the test counts them from the disassembly). GCC 12 has no naked
// functions on aarch64, where no simulator runs (the emulated machine has
// no valgrind): there they are plain functions around the same nops.
#if defined(__x86_64__)
#define PC_NOP_FUNCTION(name, nops)                            \
  __attribute__((naked, noinline)) void name() {               \
    __asm__ volatile(".rept " #nops "\n nop\n .endr\n ret\n"); \
  }
#else
#define PC_NOP_FUNCTION(name, nops)                      \
  __attribute__((noinline)) void name() {                \
    __asm__ volatile(".rept " #nops "\n nop\n .endr\n"); \
  }
#endif
PC_NOP_FUNCTION(ThreeParts, 2999)
PC_NOP_FUNCTION(OnePart, 999)
PC_NOP_FUNCTION(SetupOnly, 500)
PC_NOP_FUNCTION(PausedOnly, 500)

void BM_ProfileSplit(benchmark::State& state) {
  SetupOnly();
  for (auto _ : perfcounters::Measure(state)) {
    ThreeParts();
    OnePart();
    perfcounters::PauseTiming(state);
    PausedOnly();
    perfcounters::ResumeTiming(state);
  }
  SetupOnly();
}
BENCHMARK(BM_ProfileSplit)->Iterations(20);

void BM_PlainProfileSplit(benchmark::State& state) {
  SetupOnly();
  for (auto _ : state) {
    ThreeParts();
    OnePart();
  }
  SetupOnly();
}
BENCHMARK(BM_PlainProfileSplit)->Iterations(20);

// The same plain loop on two threads: gbench's extra run (1.9 and newer)
// runs it on one, and the profile says so.
void BM_PlainThreadsProfileSplit(benchmark::State& state) {
  for (auto _ : state) {
    ThreeParts();
    OnePart();
  }
}
BENCHMARK(BM_PlainThreadsProfileSplit)->Iterations(20)->Threads(2);

constexpr size_t kStreamBytes = 256 * 1024;

__attribute__((noinline)) uint64_t StreamBig(const uint64_t* p) {
  uint64_t sum = 0;
  for (size_t i = 0; i < kStreamBytes / sizeof(uint64_t); ++i) sum += p[i];
  return sum;
}

__attribute__((noinline)) uint64_t HotSmall(const uint64_t* p) {
  uint64_t sum = 0;
  for (int round = 0; round < 8; ++round) {
    for (int i = 0; i < 8; ++i) {
      sum += p[i];
      benchmark::DoNotOptimize(sum);
    }
  }
  return sum;
}

void BM_ProfileMisses(benchmark::State& state) {
  std::vector<uint64_t> big(kStreamBytes / sizeof(uint64_t), 1);
  alignas(64) uint64_t small[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (auto _ : perfcounters::Measure(state)) {
    benchmark::DoNotOptimize(StreamBig(big.data()));
    benchmark::DoNotOptimize(HotSmall(small));
  }
}
BENCHMARK(BM_ProfileMisses)->Iterations(2);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
