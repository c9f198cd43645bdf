// unmodified_bench.cc: benchmarks written the usual way, `for (auto _ :
// state)`, without perfcounters::Measure, run with perfcounters' main
// (tests/benchmark_ext_unmodified_test.cc): counted in gbench's extra run
// on gbench 1.9 and newer, warned about and marked not counted before.
//
//   BM_Touch16          writes 16 fresh anonymous pages per iteration
//   BM_Touch16Threads   the same on 2 threads (Threads(2))
//   BM_MeasuredTouch16  the same through Measure (counted in its own run)
//   BM_PausedTouch16    16 pages timed and 112 more with gbench's timer
//                       paused (state.PauseTiming()), which the extra run
//                       counts: 128 page faults per iteration, warned about
//   BM_Touch16Fixed, BM_MeasuredTouch16Fixed  64 iterations each, code
//                       warmed before the loop: the same counts in every
//                       run (compared with and without --perf_profile)
//   BM_HundredNops, BM_MeasuredHundredNops  exactly 100 instructions
//                       (asm) per iteration, 1000 iterations: exact in
//                       the emulated arm64 machine, the same in both runs
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"
#include "support/loops.h"

namespace {

// Maps 16 fresh anonymous pages with transparent huge pages off (one fault
// per 4 KiB page), writes one byte in each and unmaps them.
void Touch16() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = 16 * page;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  madvise(p, bytes, MADV_NOHUGEPAGE);
  auto* bytes_ptr = static_cast<volatile char*>(p);
  for (size_t i = 0; i < 16; ++i) bytes_ptr[i * page] = 1;
  munmap(p, bytes);
}

void BM_Touch16(benchmark::State& state) {
  for (auto _ : state) Touch16();
}
BENCHMARK(BM_Touch16);

void BM_Touch16Threads(benchmark::State& state) {
  for (auto _ : state) Touch16();
}
BENCHMARK(BM_Touch16Threads)->Threads(2);

void BM_PausedTouch16(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < 7; ++i) Touch16();
    state.ResumeTiming();
    Touch16();
  }
}
BENCHMARK(BM_PausedTouch16);

void BM_MeasuredTouch16(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) Touch16();
}
BENCHMARK(BM_MeasuredTouch16);

// Touch16 runs once before the loop, so that the first timed iteration
// does not fault in the code's pages: every run counts the same.
void BM_Touch16Fixed(benchmark::State& state) {
  Touch16();
  for (auto _ : state) Touch16();
}
BENCHMARK(BM_Touch16Fixed)->Iterations(64);

void BM_MeasuredTouch16Fixed(benchmark::State& state) {
  Touch16();
  for (auto _ : perfcounters::Measure(state)) Touch16();
}
BENCHMARK(BM_MeasuredTouch16Fixed)->Iterations(64);

void BM_HundredNops(benchmark::State& state) {
  for (auto _ : state) perfcounters::testing::HundredNops();
}
BENCHMARK(BM_HundredNops)->Iterations(1000);

void BM_MeasuredHundredNops(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    perfcounters::testing::HundredNops();
  }
}
BENCHMARK(BM_MeasuredHundredNops)->Iterations(1000);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
