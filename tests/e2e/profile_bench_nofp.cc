// profile_bench_nofp.cc: a worker of profile_bench built as code without
// frame pointers is (-fomit-frame-pointer, tests/e2e/CMakeLists.txt), for
// BM_NoFramePointers: its loop uses the frame-pointer register as an
// ordinary one, as optimized code without frame pointers does, so that a
// sample's walk through frame pointers ends at the sampled frame and never
// reaches the benchmark that called it.
#include <cstdint>

namespace profiled {

thread_local volatile uint64_t nofp_sink = 0;

__attribute__((noinline)) void NoFramePointerWork(uint64_t trips) {
  for (uint64_t i = 0; i < trips; ++i) {
#if defined(__x86_64__)
    asm volatile("xor %%ebp, %%ebp" ::: "rbp");
#elif defined(__aarch64__)
    asm volatile("mov x29, xzr" ::: "x29");
#endif
    nofp_sink = nofp_sink + i;
  }
}

}  // namespace profiled
