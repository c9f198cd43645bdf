// grammar_kernel_test.cc: events parsed by the grammar (grammar.h) open on
// the real kernel and count what they say: a write breakpoint every write,
// software events their faults and time, and every form that names
// instructions (generic, raw, sysfs term, sysfs alias, the core PMU's
// generic name) the same loop, exactly in the emulated arm64 machine.
#include <linux/perf_event.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/pmu.h"
#include "support/event_helpers.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/paranoid.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::FreshPages;

absl::StatusOr<Event> OpenForCounting(EventSpec spec) {
  spec.attr.disabled = true;
  spec.attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return Event::Open(spec);
}

uint64_t g_watched = 0;

TEST(GrammarOnRealKernelTest, ParsedWriteBreakpointCountsEveryWrite) {
  char text[64];
  snprintf(text, sizeof(text), "mem:%p/8:w", static_cast<void*>(&g_watched));
  absl::StatusOr<EventSpec> spec = ParseEvent(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.config1, reinterpret_cast<uintptr_t>(&g_watched));
  PERFCOUNTERS_REQUIRE_BREAKPOINTS();
  absl::StatusOr<Event> event = OpenForCounting(*spec);
  ASSERT_TRUE(event.ok()) << event.status();
  constexpr int kWrites = 1000;
  absl::StatusOr<Count> count = event->CountCall([] {
    for (int i = 0; i < kWrites; ++i) {
      *static_cast<volatile uint64_t*>(&g_watched) = i;
    }
  });
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->value, uint64_t{kWrites});
}

TEST(GrammarOnRealKernelTest, ParsedSoftwareEventsOpenAndCount) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("task-clock,faults:u,cs");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 3u);
  absl::StatusOr<Event> clock = OpenForCounting((*list)[0].events[0]);
  ASSERT_TRUE(clock.ok()) << clock.status();
  absl::StatusOr<Event> faults = OpenForCounting((*list)[1].events[0]);
  ASSERT_TRUE(faults.ok()) << faults.status();
  constexpr size_t kPages = 64;
  absl::StatusOr<Count> fault_count = faults->CountCall([&] {
    // Fresh pages from mmap: a heap block of this size may be carved from
    // pages that earlier tests already touched (glibc raises its mmap
    // threshold after large frees), which fault no more; transparent huge
    // pages off, or one fault may map them all.
    FreshPages memory(kPages);
    if (memory.ok()) memory.Touch();
  });
  ASSERT_TRUE(fault_count.ok()) << fault_count.status();
  EXPECT_GE(fault_count->value, kPages);
  absl::StatusOr<Count> clock_count = clock->CountCall([] {
    volatile uint64_t x = 0;
    for (int i = 0; i < 1000000; ++i) x = x + i;
  });
  ASSERT_TRUE(clock_count.ok()) << clock_count.status();
  EXPECT_GT(clock_count->value, 0u);
}

// Instructions counted by every grammar form that names them: the generic
// event, a raw event, a sysfs format term, a sysfs alias and the generic
// name on the core PMU. A wrong bit placement counts something else (or
// nothing). In the emulated arm64 machine instructions:u is exact.
TEST(GrammarOnRealKernelTest, EveryFormOfInstructionsCountsTheSameLoop) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  absl::StatusOr<std::vector<std::string>> pmus = ListPmus();
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  std::string core;
  for (const std::string& name : *pmus) {
    if (name == "cpu" || name.rfind("armv8_pmuv3", 0) == 0) core = name;
  }
  if (core.empty()) GTEST_SKIP() << "no cpu or armv8_pmuv3 PMU in sysfs";
#if defined(__aarch64__)
  // Armv8 INST_RETIRED is event 0x08.
  const std::vector<std::string> forms = {
      "instructions:u", "r08:u", core + "/event=0x08/u",
      core + "/inst_retired/u", core + "/instructions/u"};
#elif defined(__x86_64__)
  // INST_RETIRED.ANY_P is event 0xc0 (Intel and AMD).
  const std::vector<std::string> forms = {"instructions:u", "r00c0:u",
                                          core + "/event=0xc0/u",
                                          core + "/instructions/u"};
#else
  GTEST_SKIP() << "no known raw encoding for instructions here";
#endif
  constexpr uint64_t kLoops = 100000;
  for (const std::string& form : forms) {
    absl::StatusOr<EventSpec> spec = ParseEvent(form);
    ASSERT_TRUE(spec.ok()) << form << ": " << spec.status();
    absl::StatusOr<Event> event = OpenForCounting(*spec);
    ASSERT_TRUE(event.ok()) << form << ": " << event.status();
    absl::StatusOr<Count> once =
        event->CountCall([] { testing::TwoInstructionLoop(kLoops); });
    absl::StatusOr<Count> twice =
        event->CountCall([] { testing::TwoInstructionLoop(2 * kLoops); });
    ASSERT_TRUE(once.ok() && twice.ok()) << form;
    ASSERT_GT(once->running, 0u) << form << " was not counted";
    ASSERT_GT(twice->running, 0u) << form << " was not counted";
    // The extra kLoops iterations retire exactly 2 * kLoops instructions.
    const double extra = static_cast<double>(twice->value) - once->value;
    if (testing::HardwareRequired()) {
      EXPECT_EQ(extra, 2.0 * kLoops) << form;  // exact under emulation
    } else {
      EXPECT_NEAR(extra, 2.0 * kLoops, 2.0 * kLoops / 1000) << form;
    }
    std::printf("%s: %.0f extra instructions for %llu extra iterations\n",
                form.c_str(), extra, static_cast<unsigned long long>(kLoops));
  }
}

}  // namespace
}  // namespace perfcounters
