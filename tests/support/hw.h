// hw.h: test helpers for tests that need a hardware PMU.
//
// Natively (no hardware PMU in our VMs and CI) such tests skip with the
// reason. Inside the emulated arm64 machine the runner sets
// PERFCOUNTERS_REQUIRE_HW=1, and then a hardware test that cannot run FAILS,
// unless its event is one the emulated PMU is documented not to count
// (emulation_gaps.cc, the one list of those).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_HW_H_
#define PERFCOUNTERS_TESTS_SUPPORT_HW_H_

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
