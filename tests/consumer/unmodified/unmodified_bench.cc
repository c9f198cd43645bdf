// unmodified_bench.cc: benchmarks as an existing suite has them (only
// Google Benchmark's header, `for (auto _ : state)`), for tests/consumer/run:
//
//   BM_Touch16          writes 16 fresh anonymous pages per iteration
//   BM_Touch16Threads   the same on 2 threads (Threads(2))
//
// Linked with perfcounters::benchmark_ext_main and run with --perf_counters:
// counted in gbench's extra run (its ProfilerManager, 1.9 and newer), 16
// page faults per iteration; before 1.9 named in a warning, not counted.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

#include "benchmark/benchmark.h"

namespace {

// One fault per 4 KiB page: transparent huge pages off for the mapping.
void TouchSixteenPages() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, 16 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  madvise(p, 16 * page, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < 16; ++i) static_cast<volatile char*>(p)[i * page] = 1;
  munmap(p, 16 * page);
}

void BM_Touch16(benchmark::State& state) {
  for (auto _ : state) TouchSixteenPages();
}
BENCHMARK(BM_Touch16);

void BM_Touch16Threads(benchmark::State& state) {
  for (auto _ : state) TouchSixteenPages();
}
BENCHMARK(BM_Touch16Threads)->Threads(2);

}  // namespace
