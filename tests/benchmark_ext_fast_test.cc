// benchmark_ext_fast_test.cc: CounterSet, the snapshots behind
// perfcounters::Counters and Measure — the read(2) path with real software
// events here, the user-space path and the cost of Counters' Start/Stop in
// guest instructions in the emulated arm64 machine (hardware tests skip
// natively).
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/counter_set.h"
#include "perfcounters/counters.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/sanitizers.h"

namespace {

using perfcounters::Counters;
using perfcounters::CounterSet;
using perfcounters::EventSpec;
using perfcounters::ReadMode;
using ::testing::HasSubstr;

EventSpec Spec(const char* text) {
  perfcounters::ParseOptions options;
  options.default_user_only = true;
  absl::StatusOr<EventSpec> spec = perfcounters::ParseEvent(text, options);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : EventSpec();
}

// Writes one byte in each of `pages` fresh anonymous pages.
void TouchFreshPages(int pages) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, page * pages, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* bytes = static_cast<volatile char*>(p);
  for (int i = 0; i < pages; ++i) bytes[i * page] = 1;
  munmap(p, page * pages);
}

TEST(ReadMode, ParsesItsThreeNamesAndNamesThemInErrors) {
  EXPECT_EQ(*perfcounters::ParseReadMode("auto"), ReadMode::kAuto);
  EXPECT_EQ(*perfcounters::ParseReadMode("syscall"), ReadMode::kSyscall);
  EXPECT_EQ(*perfcounters::ParseReadMode("user"), ReadMode::kUser);
  absl::StatusOr<ReadMode> bad = perfcounters::ParseReadMode("rdpmc");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--perf_counters_read=rdpmc"));
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--perf_counters_read=syscall"));
}

TEST(CounterSet, SoftwareEventsUseReadAndCountExactly) {
  CounterSet set = CounterSet::Open(
      {{Spec("page-faults"), Spec("context-switches")}}, ReadMode::kAuto);
  ASSERT_TRUE(set.group_status(0).ok()) << set.group_status(0);
  EXPECT_FALSE(set.user_space(0));
  EXPECT_THAT(set.user_space_reason(0), HasSubstr("software event"));
  TouchFreshPages(1);  // warm up the code paths
  set.ResetBatch();
  set.Start();
  TouchFreshPages(7);
  set.Stop();
  set.Start();  // a second interval in the same batch
  TouchFreshPages(5);
  set.Stop();
  ASSERT_FALSE(set.failed(0));
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(0), 12, 0);
  EXPECT_EQ(set.intervals(), 2u);
  EXPECT_EQ(set.syscall_snapshots(), 4u);
  EXPECT_EQ(set.user_snapshots(), 0u);
  EXPECT_GT(set.enabled(0), 0u);
  EXPECT_EQ(set.running(0), set.enabled(0));
}

TEST(CounterSet, StartAndStopAreIdempotentWithinAnInterval) {
  CounterSet set = CounterSet::Open({{Spec("page-faults")}}, ReadMode::kAuto);
  ASSERT_TRUE(set.group_status(0).ok());
  set.Start();
  TouchFreshPages(3);
  set.Start();  // ignored: an interval is open
  TouchFreshPages(2);
  set.Stop();
  set.Stop();  // ignored: no interval is open
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(0), 5, 0);
  EXPECT_EQ(set.intervals(), 1u);
}

TEST(CounterSet, CalibrationOfPageFaultsIsZeroAndOfTaskClockPositive) {
  CounterSet set = CounterSet::Open(
      {{Spec("page-faults")}, {Spec("task-clock")}}, ReadMode::kAuto);
  ASSERT_TRUE(set.group_status(0).ok());
  ASSERT_TRUE(set.group_status(1).ok());
  const std::vector<perfcounters::BracketCost> cost = set.Calibrate(33);
  ASSERT_EQ(cost.size(), 2u);
  ASSERT_TRUE(cost[0].valid);
  // An empty bracket touches no new page (the buffers are preallocated).
  EXPECT_EQ(cost[0].floor, 0u);
  ASSERT_TRUE(cost[1].valid);
  // A read(2) takes time: the bracket's task-clock is above 0 ns.
  EXPECT_GT(cost[1].floor, 0u);
  // Calibration leaves an empty batch behind.
  EXPECT_EQ(set.intervals(), 0u);
  EXPECT_EQ(set.raw(1), 0u);
}

TEST(CounterSet, SyscallModeNeverMapsPages) {
  CounterSet set =
      CounterSet::Open({{Spec("page-faults")}}, ReadMode::kSyscall);
  ASSERT_TRUE(set.group_status(0).ok());
  EXPECT_FALSE(set.user_space(0));
  EXPECT_THAT(set.user_space_reason(0),
              HasSubstr("--perf_counters_read=syscall"));
}

TEST(CounterSet, AGroupThatCannotOpenIsReportedNotFatal) {
  // A tracepoint that does not exist fails to open; the other group opens.
  EventSpec bad = Spec("page-faults");
  bad.attr.type = PERF_TYPE_MAX + 1000;  // no such PMU
  CounterSet set =
      CounterSet::Open({{bad}, {Spec("page-faults")}}, ReadMode::kAuto);
  EXPECT_FALSE(set.group_status(0).ok());
  ASSERT_TRUE(set.group_status(1).ok());
  set.Start();
  TouchFreshPages(2);
  set.Stop();
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(1), 2, 0);
}

// --- Hardware: run in the emulated arm64 machine (skip natively).

// The core type the hardware tests below time: a Counters of `events`
// (one group) read on `mode`'s path, without calibration (the tests
// measure the raw bracket).
Counters OpenCounters(const char* events, ReadMode mode) {
  perfcounters::CountersOptions options;
  options.read_mode = mode;
  options.calibrate = false;
  absl::StatusOr<Counters> counters = Counters::Open(events, options);
  EXPECT_TRUE(counters.ok()) << counters.status();
  return *std::move(counters);
}

// Whether `set`'s one group opened, and reads on the path `mode` asked for.
::testing::AssertionResult OpenOnItsPath(const CounterSet& set, ReadMode mode) {
  if (!set.group_status(0).ok()) {
    return ::testing::AssertionFailure() << set.group_status(0);
  }
  if (set.user_space(0) != (mode == ReadMode::kUser)) {
    return ::testing::AssertionFailure()
           << "user_space(0) is " << set.user_space(0) << ": "
           << set.user_space_reason(0);
  }
  return ::testing::AssertionSuccess();
}

TEST(CounterSetHardware, UserSpacePathCountsExactlyAsTheSyscallPath) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  constexpr uint64_t kLoops = 100000;
  uint64_t counted[2] = {0, 0};
  int i = 0;
  for (ReadMode mode : {ReadMode::kUser, ReadMode::kSyscall}) {
    Counters counters = OpenCounters("instructions:u", mode);
    const CounterSet& set = counters.set();
    ASSERT_TRUE(OpenOnItsPath(set, mode));
    counters.Start();
    perfcounters::testing::TwoInstructionLoop(kLoops);
    counters.Stop();
    ASSERT_FALSE(set.failed(0));
    EXPECT_EQ(set.user_snapshots(), mode == ReadMode::kUser ? 2u : 0u);
    counted[i++] = set.raw(0);
  }
  std::printf("instructions:u of a %llu-loop: user-space %llu, syscall %llu\n",
              static_cast<unsigned long long>(kLoops),
              static_cast<unsigned long long>(counted[0]),
              static_cast<unsigned long long>(counted[1]));
  // The loop itself plus the few instructions between the two reads.
  for (uint64_t c : counted) {
    EXPECT_GE(c, 2 * kLoops);
    EXPECT_LE(c, 2 * kLoops + 400);
  }
}

// Guest instructions, kernel included, of `pairs` Start+Stop pairs:
// an `instructions:uk` event of its own around them.
uint64_t BracketInstructions(Counters& counters,
                             const perfcounters::Event& outer, int pairs) {
  EXPECT_TRUE(outer.Reset().ok());
  EXPECT_TRUE(outer.Enable().ok());
  for (int i = 0; i < pairs; ++i) {
    counters.Start();
    counters.Stop();
  }
  EXPECT_TRUE(outer.Disable().ok());
  absl::StatusOr<perfcounters::Count> c = outer.ReadCount();
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? c->value : 0;
}

TEST(CounterSetHardware, UserSpaceBracketCostsAtMostAFifthOfTheSyscallOne) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("instructions:uk");
  EventSpec outer_spec = Spec("instructions:uk");
  outer_spec.attr.disabled = true;
  outer_spec.attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  absl::StatusOr<perfcounters::Event> outer =
      perfcounters::Event::Open(outer_spec);
  ASSERT_TRUE(outer.ok()) << outer.status();
  constexpr int kPairs = 200;
  double per_pair[2] = {0, 0};
  int i = 0;
  for (ReadMode mode : {ReadMode::kUser, ReadMode::kSyscall}) {
    Counters counters = OpenCounters("instructions:u", mode);
    const CounterSet& set = counters.set();
    ASSERT_TRUE(OpenOnItsPath(set, mode));
    BracketInstructions(counters, *outer, kPairs);  // warm up
    const uint64_t none = BracketInstructions(counters, *outer, 0);
    const uint64_t with = BracketInstructions(counters, *outer, kPairs);
    ASSERT_GT(with, none);
    ASSERT_FALSE(set.failed(0));
    per_pair[i++] = static_cast<double>(with - none) / kPairs;
  }
  std::printf(
      "guest instructions (kernel included) per Start+Stop of one "
      "instructions:u counter: user-space %.1f, syscall %.1f, ratio %.3f\n",
      per_pair[0], per_pair[1], per_pair[0] / per_pair[1]);
  EXPECT_GT(per_pair[0], 0.0);
  EXPECT_LE(per_pair[0], 0.2 * per_pair[1]);
}

TEST(CounterSetHardware, SyscallBracketCostsAtMostTwoRawReadsPlus5Percent) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("instructions:uk");
  double per_pair[2][2];  // [syscall path, raw reads][user only, with kernel]
  int k = 0;
  for (const char* outer_text : {"instructions:u", "instructions:uk"}) {
    EventSpec outer_spec = Spec(outer_text);
    outer_spec.attr.disabled = true;
    outer_spec.attr.read_format =
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    absl::StatusOr<perfcounters::Event> outer =
        perfcounters::Event::Open(outer_spec);
    ASSERT_TRUE(outer.ok()) << outer.status();
    Counters counters = OpenCounters("instructions:u", ReadMode::kSyscall);
    ASSERT_TRUE(OpenOnItsPath(counters.set(), ReadMode::kSyscall));
    constexpr int kPairs = 200;
    BracketInstructions(counters, *outer, kPairs);  // warm up
    const uint64_t none = BracketInstructions(counters, *outer, 0);
    per_pair[0][k] = static_cast<double>(
                         BracketInstructions(counters, *outer, kPairs) - none) /
                     kPairs;
    // Two bare read(2)s of a group of the same event.
    perfcounters::GroupOptions options;
    options.start_disabled = false;
    absl::StatusOr<perfcounters::Group> group =
        perfcounters::Group::Open({Spec("instructions:u")}, options);
    ASSERT_TRUE(group.ok()) << group.status();
    uint64_t buf[5];
    const int fd = group->leader().fd();
    uint64_t count[2] = {0, 0};
    for (int round = 0; round < 2; ++round) {
      ASSERT_TRUE(outer->Reset().ok());
      ASSERT_TRUE(outer->Enable().ok());
      for (int i = 0; i < kPairs; ++i) {
        ASSERT_EQ(read(fd, buf, sizeof buf), static_cast<ssize_t>(sizeof buf));
        ASSERT_EQ(read(fd, buf, sizeof buf), static_cast<ssize_t>(sizeof buf));
      }
      ASSERT_TRUE(outer->Disable().ok());
      count[round] = outer->ReadCount()->value;
    }
    per_pair[1][k] = static_cast<double>(count[1] - none) / kPairs;
    ++k;
  }
  std::printf(
      "instructions per Start+Stop (read(2) path) vs two raw read()s: user "
      "only %.1f vs %.1f, kernel included %.1f vs %.1f (ratio %.3f)\n",
      per_pair[0][0], per_pair[1][0], per_pair[0][1], per_pair[1][1],
      per_pair[0][1] / per_pair[1][1]);
  EXPECT_LE(per_pair[0][1], 1.05 * per_pair[1][1]);
}

}  // namespace
