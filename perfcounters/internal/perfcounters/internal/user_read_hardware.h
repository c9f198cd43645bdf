// user_read_hardware.h (internal): the hardware reads behind a user-space
// read of a perf_event_mmap_page — the counter (rdpmc / mrs) and the clock
// the page's time fields convert (rdtsc / cntvct) — inline, so that the
// snapshot code (user_read.cc, counter_set.cc) and the overhead bench's
// reference read them through the same instructions.
#ifndef PERFCOUNTERS_INTERNAL_USER_READ_HARDWARE_H_
#define PERFCOUNTERS_INTERNAL_USER_READ_HARDWARE_H_

#include <atomic>
#include <cstdint>

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters::internal {

// Incremented in every child after fork() (user_read.cc registers the
// atfork handler with the first reader): a page mapped in an older
// generation is not mapped in this process (the kernel maps it
// VM_DONTCOPY).
// Hidden: one load, no GOT entry (only the library reads it).
[[gnu::visibility("hidden")]] extern std::atomic<uint64_t> g_fork_generation;
inline uint64_t ForkGeneration() {
  return g_fork_generation.load(std::memory_order_relaxed);
}

// The calling thread's identity, cheaply: its thread pointer (tpidr_el0,
// %fs:0; one instruction), unique among live threads. After fork() the
// child's thread has its parent's: the fork generation tells them apart.
inline const void* ThreadIdentity() {
#if __has_builtin(__builtin_thread_pointer)
  return __builtin_thread_pointer();
#else
  static thread_local const char identity = 0;
  return &identity;
#endif
}

// The calling thread's key: unique among the threads this process has
// had, 0 until ClaimThreadKey() gives the thread one, and 0 again in a
// child after fork() (the atfork handler that advances the fork
// generation clears it). So one thread-local load and compare tells the
// thread that claimed a key in this process apart from every other thread
// and from its own copy in a child: CounterSet's short way checks that
// instead of the thread pointer and the fork generation. Initial-exec: a
// load from the thread pointer, no __tls_get_addr call in a shared build.
extern __thread uint64_t t_thread_key
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
inline uint64_t ThreadKey() { return t_thread_key; }
// The calling thread's key, claimed on first use (user_read.cc).
uint64_t ClaimThreadKey();

#if defined(__x86_64__)
// rdpmc of the page's `index - 1` (Intel fixed counters: 1<<30 | n, as the
// kernel's index has it).
[[gnu::always_inline]] inline uint64_t ReadHardwareCounter(uint32_t counter) {
  uint32_t lo, hi;
  __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
[[gnu::always_inline]] inline uint64_t ReadTimeCycles() {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
inline constexpr bool kHaveUserRead = true;
#elif defined(__aarch64__)
// The kernel numbers the cycle counter 31; event counters 0..30. A jump
// table and the mrs: a call per member would cost more.
#define PC_PMEVCNTR(n)                                        \
  case n:                                                     \
    __asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
    break;
[[gnu::always_inline]] inline uint64_t ReadHardwareCounter(uint32_t counter) {
  uint64_t v = 0;
  // clang-format off
  switch (counter) {
    PC_PMEVCNTR(0) PC_PMEVCNTR(1) PC_PMEVCNTR(2) PC_PMEVCNTR(3)
    PC_PMEVCNTR(4) PC_PMEVCNTR(5) PC_PMEVCNTR(6) PC_PMEVCNTR(7)
    PC_PMEVCNTR(8) PC_PMEVCNTR(9) PC_PMEVCNTR(10) PC_PMEVCNTR(11)
    PC_PMEVCNTR(12) PC_PMEVCNTR(13) PC_PMEVCNTR(14) PC_PMEVCNTR(15)
    PC_PMEVCNTR(16) PC_PMEVCNTR(17) PC_PMEVCNTR(18) PC_PMEVCNTR(19)
    PC_PMEVCNTR(20) PC_PMEVCNTR(21) PC_PMEVCNTR(22) PC_PMEVCNTR(23)
    PC_PMEVCNTR(24) PC_PMEVCNTR(25) PC_PMEVCNTR(26) PC_PMEVCNTR(27)
    PC_PMEVCNTR(28) PC_PMEVCNTR(29) PC_PMEVCNTR(30)
    case 31:
      __asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
      break;
    default:
      break;
  }
  // clang-format on
  return v;
}
#undef PC_PMEVCNTR
[[gnu::always_inline]] inline uint64_t ReadTimeCycles() {
  uint64_t v;
  __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
inline constexpr bool kHaveUserRead = true;
#else
inline uint64_t ReadHardwareCounter(uint32_t) { return 0; }
inline uint64_t ReadTimeCycles() { return 0; }
inline constexpr bool kHaveUserRead = false;
#endif

}  // namespace perfcounters::internal
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_USER_READ_HARDWARE_H_
