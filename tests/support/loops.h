// loops.h: code with an exactly known instruction count, for hardware tests.
//
// TwoInstructionLoop(n) retires exactly 2n instructions in its loop (plus a
// small constant for the call): aarch64 `subs/b.ne`, x86-64 `dec/jnz`. In the
// emulated arm64 machine `instructions:u` over it is exact and deterministic.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_LOOPS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_LOOPS_H_

#include <cstdint>

namespace perfcounters::testing {

// Runs a 2-instruction loop n times (n >= 1).
inline void TwoInstructionLoop(uint64_t n) {
#if defined(__aarch64__)
  __asm__ volatile(
      "1: subs %0, %0, #1\n"
      "   b.ne 1b\n"
      : "+r"(n)
      :
      : "cc");
#elif defined(__x86_64__)
  __asm__ volatile(
      "1: dec %0\n"
      "   jnz 1b\n"
      : "+r"(n)
      :
      : "cc");
#else
  for (volatile uint64_t i = 0; i < n; ++i) {
  }
#endif
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_LOOPS_H_
