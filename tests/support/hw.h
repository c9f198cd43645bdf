// hw.h: test helpers for tests that need a hardware PMU.
//
// Natively (no hardware PMU in our VMs and CI) such tests skip with the
// reason. Inside the emulated arm64 machine the runner sets
// PERFCOUNTERS_REQUIRE_HW=1, and then a hardware test that cannot run FAILS,
// unless its event is one the emulated PMU is documented not to count
// (emulation_gaps.cc, the one list of those).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_HW_H_
#define PERFCOUNTERS_TESTS_SUPPORT_HW_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace perfcounters::testing {

// True when this run must not skip hardware tests (PERFCOUNTERS_REQUIRE_HW=1).
bool HardwareRequired();

// Tries to open `event` (our grammar, e.g. "cycles:u") for the calling
// thread. Returns an empty string when it opens, else the reason it cannot.
std::string WhyEventUnavailable(std::string_view event);

// Opens a user-space write breakpoint on a variable of its own, writes the
// variable once and reads the count. Returns an empty string when the write
// was counted, else why breakpoints cannot be tested here: the kernel refuses
// them, or (seen in a Firecracker VM on 6.18) they open but the hypervisor
// never delivers the debug exception, so every count stays 0.
std::string WhyBreakpointsDoNotCount();

// True when `event` is on the list of events the emulated arm64 PMU cannot
// count (cache and branch events; see emulation_gaps.cc).
bool IsEmulationGap(std::string_view event);

// How many `instructions:u` events this thread's PMU counts at once, as the
// kernel schedules them: pinned single events, opened until one lands in
// error state (never scheduled), so counters that the NMI watchdog or other
// pinned users hold are not counted. Emulated arm64: 6 general counters
// (the cycle counter counts cycles only); Intel: the general counters plus
// fixed counter 0; AMD: 6 or 4 (minus the watchdog's). 0 when
// instructions:u does not open.
int InstructionsCapacity();

// The pmc_width the kernel reports in an event's perf_event_mmap_page for a
// hardware counter opened with RequestUserAccess(attr, wide): arm64 64 for a
// wide (chained or long) counter, else 32; x86-64 the general counters'
// width, one value for every counter (Intel: CPUID leaf 0xA, 48 on every
// current part; AMD: 48).
uint16_t ExpectedPmcWidth(bool wide);

// Whether instructions:u is exact and deterministic here: in the emulated
// arm64 machine (PERFCOUNTERS_ICOUNT_SHIFT is set), which counts retired
// user instructions exactly. Real PMUs (x86 at least) add to instructions:u for
// interrupts and faults taken in the measured code (Weaver et al.,
// "Non-determinism and overcount on modern hardware performance counter
// implementations", ISPASS 2013): compare the smallest of several samples there
// (see MinOf).
bool ExactUserInstructions();

// The smallest of `samples` results of `f`: what remains once the counts
// that interrupts add (never subtract) are left out.
template <typename F>
uint64_t MinOf(int samples, F&& f) {
  uint64_t best = f();
  for (int i = 1; i < samples; ++i) {
    const uint64_t v = f();
    if (v < best) best = v;
  }
  return best;
}

}  // namespace perfcounters::testing

// Skips (natively) or fails (PERFCOUNTERS_REQUIRE_HW=1) unless `event` opens.
// In a required run an event listed in emulation_gaps.cc still skips.
#define PERFCOUNTERS_REQUIRE_EVENT(event)                                    \
  do {                                                                       \
    const std::string pc_why_ =                                              \
        ::perfcounters::testing::WhyEventUnavailable(event);                 \
    if (!pc_why_.empty()) {                                                  \
      if (::perfcounters::testing::HardwareRequired() &&                     \
          !::perfcounters::testing::IsEmulationGap(event)) {                 \
        FAIL() << "this run requires hardware counters, but " << (event)     \
               << " cannot be opened: " << pc_why_;                          \
      }                                                                      \
      GTEST_SKIP() << "needs " << (event) << " (hardware PMU): " << pc_why_; \
    }                                                                        \
  } while (0)

// Skips (natively) or fails (PERFCOUNTERS_REQUIRE_HW=1) unless a hardware
// write breakpoint counts a write here.
#define PERFCOUNTERS_REQUIRE_BREAKPOINTS()                                   \
  do {                                                                       \
    const std::string pc_why_ =                                              \
        ::perfcounters::testing::WhyBreakpointsDoNotCount();                 \
    if (!pc_why_.empty()) {                                                  \
      if (::perfcounters::testing::HardwareRequired()) {                     \
        FAIL() << "this run requires hardware breakpoints, but " << pc_why_; \
      }                                                                      \
      GTEST_SKIP() << "needs hardware breakpoints: " << pc_why_;             \
    }                                                                        \
  } while (0)

// The common case: cycles and instructions must open.
#define PERFCOUNTERS_REQUIRE_HW_PMU()             \
  do {                                            \
    PERFCOUNTERS_REQUIRE_EVENT("instructions:u"); \
    PERFCOUNTERS_REQUIRE_EVENT("cycles:u");       \
  } while (0)

#endif  // PERFCOUNTERS_TESTS_SUPPORT_HW_H_
