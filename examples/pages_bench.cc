// pages_bench.cc: the cost of fresh memory is page faults, not bytes.
//
// BM_FreshPages maps new memory every iteration and writes it (one page
// fault per 4 KiB page); BM_ReusedPages writes the same amount into memory
// that is already mapped (no faults). page-faults per iteration shows why
// the first is slower:
//   pages_bench --perf_counters=page-faults,task-clock
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"

namespace {

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

void BM_FreshPages(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) * PageSize();
  for (auto _ : perfcounters::Measure(state)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    // 4 KiB pages only: where transparent huge pages are "always", one
    // fault could otherwise map 2 MiB at once.
    madvise(p, bytes, MADV_NOHUGEPAGE);
    std::memset(p, 1, bytes);
    benchmark::ClobberMemory();
    munmap(p, bytes);
  }
}
BENCHMARK(BM_FreshPages)->ArgName("pages")->Arg(16)->Arg(256);

void BM_ReusedPages(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) * PageSize();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  std::memset(p, 0, bytes);  // fault everything in before timing
  for (auto _ : perfcounters::Measure(state)) {
    std::memset(p, 1, bytes);
    benchmark::ClobberMemory();
  }
  munmap(p, bytes);
}
BENCHMARK(BM_ReusedPages)->ArgName("pages")->Arg(16)->Arg(256);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
