// bench.cc: a Google Benchmark program with perf counters, as a project
// that uses perfcounters builds it (tests/consumer/run): each iteration
// touches four fresh pages, so page-faults per iteration is 4.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"

static void BM_TouchFourPages(benchmark::State& state) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (auto _ : perfcounters::Measure(state)) {
    void* p = mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    madvise(p, 4 * page, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
    for (size_t i = 0; i < 4; ++i) static_cast<volatile char*>(p)[i * page] = 1;
    munmap(p, 4 * page);
  }
}
BENCHMARK(BM_TouchFourPages);
