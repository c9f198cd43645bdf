// arm64_smoke_test: checks the emulated arm64 machine itself (tests/arm64/):
// that it really is the machine the runner promises (aarch64, hardware tests
// required, user-space counter access, tracefs) and that its PMU counts
// user-space instructions exactly. Natively these tests skip.
#include <sys/utsname.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "perfcounters/attr.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "support/count_while.h"
#include "support/event_helpers.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::CountWhile;
using ::perfcounters::testing::HardwareRequired;
using ::perfcounters::testing::HardwareUserAttr;
using ::perfcounters::testing::TwoInstructionLoop;

// The first line of a file, or "" when it cannot be read.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(Arm64MachineTest, IsTheMachineTheRunnerPromises) {
  if (!HardwareRequired()) {
    GTEST_SKIP() << "not inside the emulated arm64 machine "
                    "(PERFCOUNTERS_REQUIRE_HW is not 1)";
  }
  EXPECT_STREQ(std::getenv("PERFCOUNTERS_REQUIRE_HW"), "1");
  utsname uts{};
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_STREQ(uts.machine, "aarch64");
  EXPECT_EQ(FirstLine("/proc/sys/kernel/perf_user_access"), "1");
  // tracefs is mounted: the tracepoint id of a syscall tracepoint is a number.
  const std::string id =
      FirstLine("/sys/kernel/tracing/events/syscalls/sys_enter_getpid/id");
  ASSERT_FALSE(id.empty()) << "tracefs is not mounted on /sys/kernel/tracing";
  EXPECT_GT(std::stoll(id), 0);
  // The runner's PMU: QEMU's PMUv3 under the armv8_pmuv3 driver.
  EXPECT_NE(FirstLine("/sys/bus/event_source/devices/armv8_pmuv3/type"), "");
  const char* shift = std::getenv("PERFCOUNTERS_ICOUNT_SHIFT");
  ASSERT_NE(shift, nullptr);
}

// Instructions retired in user space by TwoInstructionLoop(n), measured with
// a freshly opened instructions:u counter.
uint64_t CountLoop(uint64_t n) {
  absl::StatusOr<Event> event = Event::Open(
      HardwareUserAttr(PERF_COUNT_HW_INSTRUCTIONS), "instructions:u");
  EXPECT_TRUE(event.ok()) << event.status();
  if (!event.ok()) return 0;
  EXPECT_THAT(event->Enable(), IsOk());
  TwoInstructionLoop(n);
  EXPECT_THAT(event->Disable(), IsOk());
  absl::StatusOr<Count> count = event->ReadCount();
  EXPECT_TRUE(count.ok()) << count.status();
  if (!count.ok()) return 0;
  EXPECT_GT(count->running, 0u) << "the counter never ran";
  EXPECT_EQ(count->running, count->enabled) << "multiplexed, unexpectedly";
  return count->value;
}

// User-space instructions of a whole Enable()+Disable() pair of another
// event, counted by an event of the test's own (the smallest of 3).
uint64_t EnableDisableInstructions() {
  absl::StatusOr<Event> outer = Event::Open(
      HardwareUserAttr(PERF_COUNT_HW_INSTRUCTIONS), "instructions:u");
  absl::StatusOr<Event> inner = Event::Open(
      HardwareUserAttr(PERF_COUNT_HW_INSTRUCTIONS), "instructions:u");
  EXPECT_THAT(outer, IsOk());
  EXPECT_THAT(inner, IsOk());
  if (!outer.ok() || !inner.ok()) return 0;
  return testing::MinOf(3, [&] {
    return CountWhile(*outer, [&] {
      EXPECT_THAT(inner->Enable(), IsOk());
      EXPECT_THAT(inner->Disable(), IsOk());
    });
  });
}

TEST(Arm64MachineTest, CountsTwoInstructionLoopExactly) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  constexpr uint64_t kN = 1'000'000;
  const uint64_t first = CountLoop(kN);
  const uint64_t second = CountLoop(kN);
  const uint64_t twice = CountLoop(2 * kN);
  if (!HardwareRequired()) {
    // Real hardware (not our CI): interrupts may add a few instructions.
    EXPECT_NEAR(static_cast<double>(twice - first), 2.0 * kN, 64.0);
    return;
  }
  // Emulated PMU with -icount: exact and deterministic.
  EXPECT_EQ(first, second);
  EXPECT_EQ(twice - first, 2 * kN);
  EXPECT_GE(first, 2 * kN);
  // What the counter adds to the loop (the user-space end of Enable(), the
  // loop's call, the start of Disable()) is less than a whole
  // Enable()+Disable() pair, measured in this build (Debug: 385). Counting
  // the kernel's side of the ioctls would add thousands.
  const uint64_t pair = EnableDisableInstructions();
  EXPECT_LT(first - 2 * kN, pair);
  RecordProperty("constant", static_cast<int64_t>(first - 2 * kN));
  std::printf(
      "instructions:u for %llu iterations: %llu (2N + %llu); an "
      "Enable()+Disable() pair: %llu\n",
      static_cast<unsigned long long>(kN),
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first - 2 * kN),
      static_cast<unsigned long long>(pair));
}

}  // namespace
}  // namespace perfcounters
