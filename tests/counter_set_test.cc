// counter_set_test.cc: CounterSet, the snapshots behind
// perfcounters::Counters and Measure: the read(2) path with real software
// events, and the user-space path's runtime check on fake pages. The
// user-space path on real counters and the cost of Counters' Start/Stop:
// counter_set_hardware_test.cc.
#include "perfcounters/internal/counter_set.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "support/event_helpers.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace {

using perfcounters::CounterSet;
using perfcounters::EventSpec;
using perfcounters::ReadMode;
using ::perfcounters::testing::FreshPages;
using ::perfcounters::testing::UserSpec;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// Writes one byte in each of `pages` fresh anonymous pages (transparent
// huge pages off: one fault per page).
void TouchFreshPages(int pages) {
  FreshPages memory(static_cast<size_t>(pages));
  ASSERT_TRUE(memory.ok());
  memory.Touch();
}

TEST(ReadMode, ParsesItsThreeNamesAndNamesThemInErrors) {
  EXPECT_EQ(*perfcounters::ParseReadMode("auto"), ReadMode::kAuto);
  EXPECT_EQ(*perfcounters::ParseReadMode("syscall"), ReadMode::kSyscall);
  EXPECT_EQ(*perfcounters::ParseReadMode("user"), ReadMode::kUser);
  absl::StatusOr<ReadMode> bad = perfcounters::ParseReadMode("rdpmc");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown read mode \"rdpmc\"; the read modes are auto, syscall "
            "and user");
}

TEST(CounterSet, SoftwareEventsUseReadAndCountExactly) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  CounterSet set = CounterSet::Open(
      {{UserSpec("page-faults"), UserSpec("context-switches")}},
      ReadMode::kAuto);
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

// One bracket around a fresh page, then an empty batch: the first pass
// through Start/Stop and TouchFreshPages can fault in a page of their code
// or data (seen: 6 faults for 5 pages, in Release and as an ordinary user),
// which an exact page-fault count must not see.
void WarmUp(CounterSet& set) {
  set.Start();
  TouchFreshPages(1);
  set.Stop();
  set.ResetBatch();
}

TEST(CounterSet, StartAndStopAreIdempotentWithinAnInterval) {
  CounterSet set =
      CounterSet::Open({{UserSpec("page-faults")}}, ReadMode::kAuto);
  ASSERT_THAT(set.group_status(0), IsOk());
  WarmUp(set);
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
      {{UserSpec("page-faults")}, {UserSpec("task-clock")}}, ReadMode::kAuto);
  ASSERT_THAT(set.group_status(0), IsOk());
  ASSERT_THAT(set.group_status(1), IsOk());
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
      CounterSet::Open({{UserSpec("page-faults")}}, ReadMode::kSyscall);
  ASSERT_THAT(set.group_status(0), IsOk());
  EXPECT_FALSE(set.user_space(0));
  EXPECT_EQ(set.user_space_reason(0), "read mode syscall");
}

TEST(CounterSet, AGroupThatCannotOpenIsReportedNotFatal) {
  // A tracepoint that does not exist fails to open; the other group opens.
  EventSpec bad = UserSpec("page-faults");
  bad.attr.type = PERF_TYPE_MAX + 1000;  // no such PMU
  CounterSet set =
      CounterSet::Open({{bad}, {UserSpec("page-faults")}}, ReadMode::kAuto);
  EXPECT_FALSE(set.group_status(0).ok());
  ASSERT_THAT(set.group_status(1), IsOk());
  WarmUp(set);
  set.Start();
  TouchFreshPages(2);
  set.Stop();
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(1), 2, 0);
}

// Fake pages over real software events, for the runtime check of the
// user-space path: member m's page names counter m, and the fake counter
// reads the member's true count with read(2) of the group (plus `skew`),
// the fake clock the group's true time_enabled; offset 0, 64-bit counters,
// time_offset 0 and a 1:1 clock, so the page's reading is exactly what
// read(2) says (skew 0) or off by `skew`.
class TruePages {
 public:
  explicit TruePages(uint64_t skew) : skew_(skew) {
    hardware_.read_counter = [this](uint32_t m) {
      if (before_read) std::exchange(before_read, nullptr)();
      return Record()[3 + 2 * m] + skew_;
    };
    hardware_.read_time = [this] { return Record()[1]; };
  }
  absl::StatusOr<perfcounters::UserReader> Map(const perfcounters::Event& e) {
    if (pages_.empty()) leader_fd_ = e.fd();
    perf_event_mmap_page& page = pages_.emplace_back();
    page.index = static_cast<uint32_t>(pages_.size());  // counter index - 1
    page.cap_user_rdpmc = 1;
    page.cap_user_time = 1;
    page.pmc_width = 64;
    page.time_mult = 1;
    return perfcounters::internal::UserReaderTestPeer::Make(
        e, &page, &hardware_, /*group_member=*/true);
  }
  // Member m's page.
  perf_event_mmap_page& page(size_t m) { return pages_[m]; }
  // Called once, in the next read of a fake counter.
  std::function<void()> before_read;

 private:
  std::vector<uint64_t> Record() const {
    std::vector<uint64_t> r(3 + 2 * pages_.size());
    const ssize_t want = static_cast<ssize_t>(r.size() * sizeof(uint64_t));
    EXPECT_EQ(read(leader_fd_, r.data(), r.size() * sizeof(uint64_t)), want);
    return r;
  }
  uint64_t skew_;
  int leader_fd_ = -1;
  std::deque<perf_event_mmap_page> pages_;  // stable addresses
  perfcounters::internal::UserReadHardware hardware_;
};

// Pages that agree with read(2) keep the user-space path and count exactly;
// pages that do not (one fake counter a million ahead) send their group to
// read(2), say why in the API, and warn once per process on stderr.
TEST(CounterSetGuard, PagesThatDisagreeWithReadFallBackToItAndWarnOnce) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  static bool first_in_process = true;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(::testing::Message() << "round " << round);
    TruePages agree(0), disagree(1'000'000);
    size_t groups_mapped = 0;
    auto map = [&](const perfcounters::Event& e) {
      // The first group's two members, then the second group's one.
      return groups_mapped++ < 2 ? agree.Map(e) : disagree.Map(e);
    };
    ::testing::internal::CaptureStderr();
    CounterSet set =
        perfcounters::internal::CounterSetTestPeer::OpenOnFakePages(
            {{UserSpec("page-faults"), UserSpec("context-switches")},
             {UserSpec("page-faults")}},
            map);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_THAT(set.group_status(0), IsOk());
    ASSERT_THAT(set.group_status(1), IsOk());
    EXPECT_TRUE(set.user_space(0)) << set.user_space_reason(0);
    EXPECT_EQ(set.user_space_disagreement(0), "");
    EXPECT_FALSE(set.user_space(1));
    // The fake page adds 1000000 to the real count (under a sanitizer
    // its shadow memory's page faults too).
    EXPECT_THAT(
        set.user_space_disagreement(1),
        ContainsRegex("user-space reads disagree with read\\(2\\) "
                      "\\(page-faults read from user space 1000[0-9]{3} "));
    EXPECT_THAT(set.user_space_reason(1), HasSubstr("; read(2)"));
    if (first_in_process) {
      EXPECT_THAT(err, HasSubstr("perfcounters: warning: user-space reads "
                                 "disagree with read(2)"));
    } else {
      EXPECT_EQ(err, "") << "warned twice in one process";
    }
    first_in_process = false;
    WarmUp(set);
    set.Start();
    TouchFreshPages(4);
    set.Stop();
    ASSERT_FALSE(set.failed(0));
    ASSERT_FALSE(set.failed(1));
    EXPECT_EQ(set.user_snapshots(), 2u);     // group 0's start and end
    EXPECT_EQ(set.syscall_snapshots(), 2u);  // group 1's
    EXPECT_TOUCHED_PAGE_FAULTS(set.raw(0), 4, 0);
    EXPECT_TOUCHED_PAGE_FAULTS(set.raw(2), 4, 0);
    EXPECT_EQ(set.running(0), set.enabled(0));
  }
}

// Groups' turns on the PMU can change between Start()'s look at the pages
// (every member on a counter) and its reads: here the second group leaves
// its counter while the first group is read. Then every group starts with
// read(2), not only the one that left: a group started from user space
// next to one started with read(2) would count reads that calibration,
// which read every group with read(2) while they took turns, never saw.
TEST(CounterSetGuard, AGroupOffItsCounterAtStartSendsEveryGroupToRead) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  TruePages first(0), second(0);
  size_t groups_mapped = 0;
  auto map = [&](const perfcounters::Event& e) {
    return groups_mapped++ < 1 ? first.Map(e) : second.Map(e);
  };
  CounterSet set = perfcounters::internal::CounterSetTestPeer::OpenOnFakePages(
      {{UserSpec("page-faults")}, {UserSpec("page-faults")}}, map);
  ASSERT_TRUE(set.user_space(0)) << set.user_space_reason(0);
  ASSERT_TRUE(set.user_space(1)) << set.user_space_reason(1);
  WarmUp(set);
  set.Start();
  set.Stop();
  EXPECT_EQ(set.user_snapshots(), 4u);  // both on their counters
  EXPECT_EQ(set.syscall_snapshots(), 0u);
  set.ResetBatch();
  first.before_read = [&] { second.page(0).index = 0; };
  set.Start();
  TouchFreshPages(4);
  set.Stop();
  ASSERT_FALSE(set.failed(0));
  ASSERT_FALSE(set.failed(1));
  EXPECT_EQ(set.user_snapshots(), 0u);
  EXPECT_EQ(set.syscall_snapshots(), 4u);
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(0), 4, 0);
  EXPECT_TOUCHED_PAGE_FAULTS(set.raw(1), 4, 0);
}

}  // namespace
