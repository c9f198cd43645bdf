// loops.h: code with an exactly known instruction count, for hardware tests.
//
// TwoInstructionLoop(n) retires exactly 2n instructions in its loop (plus a
// small constant for the call): aarch64 `subs/b.ne`, x86-64 `dec/jnz`. In the
// emulated arm64 machine `instructions:u` over it is exact and deterministic.
// HundredInstructionLoop(n) retires exactly 100n in its loop, HundredNops()
// exactly 100.
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

// Runs a 100-instruction loop body n times (n >= 1): 98 `nop`s, then the
// 2-instruction count-down of TwoInstructionLoop, so exactly 100n
// instructions in the loop (plus a small constant for the call).
inline void HundredInstructionLoop(uint64_t n) {
#if defined(__aarch64__)
  __asm__ volatile(
      "1: .rept 98\n"
      "   nop\n"
      "   .endr\n"
      "   subs %0, %0, #1\n"
      "   b.ne 1b\n"
      : "+r"(n)
      :
      : "cc");
#elif defined(__x86_64__)
  __asm__ volatile(
      "1: .rept 98\n"
      "   nop\n"
      "   .endr\n"
      "   dec %0\n"
      "   jnz 1b\n"
      : "+r"(n)
      :
      : "cc");
#else
  for (volatile uint64_t i = 0; i < 100 * n; ++i) {
  }
#endif
}

// Exactly 100 instructions (`nop`s) and nothing else: no operand, so no
// code of the compiler's around them. A benchmark body whose count does
// not depend on the optimizer.
inline void HundredNops() {
#if defined(__aarch64__) || defined(__x86_64__)
  __asm__ volatile(
      ".rept 100\n"
      "nop\n"
      ".endr\n");
#endif
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_LOOPS_H_
