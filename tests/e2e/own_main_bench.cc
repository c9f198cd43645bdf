// own_main_bench.cc: perfcounters::Measure in a program that keeps Google
// Benchmark's own main (BENCHMARK_MAIN): the events then come from
// PERFCOUNTERS_EVENTS, read at the first Measure. Run by
// tests/benchmark_ext_e2e_test.cc.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"

namespace {

void BM_TouchThreePages(benchmark::State& state) {
  const size_t bytes = 3 * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (auto _ : perfcounters::Measure(state)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    madvise(p, bytes, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
    for (size_t i = 0; i < bytes; i += bytes / 3) {
      static_cast<volatile char*>(p)[i] = 1;
    }
    munmap(p, bytes);
  }
}
BENCHMARK(BM_TouchThreePages);

}  // namespace

BENCHMARK_MAIN();
