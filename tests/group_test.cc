// Tests of Group with real software events: one read(2) per snapshot, ids
// and labels, whole-group enable/disable/reset, Measure, Verify, errors on
// open, moves, closing and fd leaks.
#include "perfcounters/group.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/event_helpers.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"
#include "support/thread_clock.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::FreshPages;
using ::perfcounters::testing::Message;
using ::perfcounters::testing::OpenFdCount;
using ::perfcounters::testing::SoftwareAttr;
using ::perfcounters::testing::Spec;
using ::perfcounters::testing::SpinCpuNs;
using ::testing::HasSubstr;

std::vector<EventSpec> ThreeSoftwareEvents() {
  return {
      Spec(SoftwareAttr(PERF_COUNT_SW_TASK_CLOCK), "task-clock"),
      Spec(SoftwareAttr(PERF_COUNT_SW_PAGE_FAULTS), "page-faults"),
      Spec(SoftwareAttr(PERF_COUNT_SW_CONTEXT_SWITCHES), "context-switches")};
}

TEST(GroupTest, ReadGivesEveryMemberWithItsIdAndLabel) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> group = Group::Open(ThreeSoftwareEvents());
  ASSERT_TRUE(group.ok()) << group.status();
  ASSERT_EQ(group->size(), 3u);
  absl::StatusOr<GroupReading> reading = group->Read();
  ASSERT_TRUE(reading.ok()) << reading.status();
  ASSERT_EQ(reading->values.size(), 3u);
  const std::vector<std::string> labels = {"task-clock", "page-faults",
                                           "context-switches"};
  for (size_t i = 0; i < 3; ++i) {
    const Event& event = group->events()[i];
    absl::StatusOr<uint64_t> id = event.QueryId();
    ASSERT_TRUE(id.ok()) << id.status();
    EXPECT_EQ(reading->values[i].id, *id);
    EXPECT_EQ(reading->values[i].label, labels[i]);
    EXPECT_EQ(event.label(), labels[i]);
    EXPECT_EQ(event.attr().read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                            PERF_FORMAT_TOTAL_TIME_ENABLED |
                                            PERF_FORMAT_TOTAL_TIME_RUNNING);
  }
  EXPECT_NE(reading->values[0].id, reading->values[1].id);
  EXPECT_EQ(group->leader().fd(), group->events()[0].fd());
}

TEST(GroupTest, StartsDisabledAndResetThenEnableDisableReset) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> group = Group::Open(ThreeSoftwareEvents());
  ASSERT_TRUE(group.ok()) << group.status();
  FreshPages pages(64);
  ASSERT_TRUE(pages.ok());
  pages.Touch();  // while disabled: not counted
  absl::StatusOr<GroupReading> idle = group->Read();
  ASSERT_TRUE(idle.ok()) << idle.status();
  for (const GroupValue& v : idle->values) EXPECT_EQ(v.value, 0u) << v.label;

  ASSERT_THAT(group->Enable(), IsOk());
  testing::CpuWindow window;
  FreshPages more(64);
  ASSERT_TRUE(more.ok());
  more.Touch();
  SpinCpuNs(10'000'000);
  window.Stop();
  ASSERT_THAT(group->Disable(), IsOk());
  absl::StatusOr<GroupReading> counted = group->Read();
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_THREAD_CLOCK(counted->values[0].value, window,
                      testing::kShortWindowTolerance);  // task-clock ns
  EXPECT_GE(counted->values[1].value, 64u);             // page-faults
  EXPECT_LE(counted->values[1].value,
            64 * testing::kMaxFaultsPerTouchedPage + 16);
  EXPECT_GT(counted->running, 0u);
  EXPECT_EQ(counted->running, counted->enabled);

  FreshPages after(32);
  ASSERT_TRUE(after.ok());
  after.Touch();
  SpinCpuNs(2'000'000);
  absl::StatusOr<GroupReading> stopped = group->Read();
  ASSERT_THAT(stopped, IsOk());
  EXPECT_EQ(stopped->values, counted->values);  // disabled: frozen

  // The whole group resets, not only the leader.
  ASSERT_THAT(group->Reset(), IsOk());
  absl::StatusOr<GroupReading> zero = group->Read();
  ASSERT_THAT(zero, IsOk());
  for (const GroupValue& v : zero->values) EXPECT_EQ(v.value, 0u) << v.label;
}

TEST(GroupTest, MeasureResetsEveryMember) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> group = Group::Open(ThreeSoftwareEvents());
  ASSERT_TRUE(group.ok()) << group.status();
  FreshPages first(100);
  ASSERT_TRUE(first.ok());
  absl::StatusOr<GroupReading> one = group->CountCall([&] { first.Touch(); });
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_GE(one->values[1].value, 100u);

  FreshPages second(10);
  ASSERT_TRUE(second.ok());
  absl::StatusOr<GroupReading> two = group->CountCall([&] { second.Touch(); });
  ASSERT_TRUE(two.ok()) << two.status();
  // Only the second run's faults: the member was reset too.
  EXPECT_GE(two->values[1].value, 10u);
  EXPECT_LE(two->values[1].value, 10u + 16);
  // The times are this interval's only.
  EXPECT_LE(two->values[0].value, two->enabled + 1'000'000);
  EXPECT_EQ(two->enabled, two->running);
}

TEST(GroupTest, StartEnabledCountsFromOpen) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  GroupOptions options;
  options.start_disabled = false;
  absl::StatusOr<Group> group = Group::Open(ThreeSoftwareEvents(), options);
  ASSERT_TRUE(group.ok()) << group.status();
  testing::CpuWindow window;
  FreshPages pages(30);
  ASSERT_TRUE(pages.ok());
  pages.Touch();
  SpinCpuNs(10'000'000);
  window.Stop();
  absl::StatusOr<GroupReading> reading = group->Read();
  ASSERT_TRUE(reading.ok()) << reading.status();
  // Counting since the open: at least the window's CPU time (within the two
  // clocks' disagreement, thread_clock.h), where a disabled group reads 0.
  EXPECT_GE(static_cast<double>(reading->values[0].value),
            (1 - testing::kShortWindowTolerance) *
                static_cast<double>(window.cpu_ns()));
  // A software member of a task-clock-led group counts too.
  EXPECT_GE(reading->values[1].value, 30u);
}

TEST(GroupTest, VerifyAcceptsAScheduledGroup) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> group = Group::Open(ThreeSoftwareEvents());
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_THAT(group->Verify(), IsOk());
  // Verify leaves the group disabled and reset.
  absl::StatusOr<GroupReading> reading = group->Read();
  ASSERT_THAT(reading, IsOk());
  for (const GroupValue& v : reading->values) EXPECT_EQ(v.value, 0u);
}

TEST(GroupTest, OpenErrors) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> empty = Group::Open(std::vector<EventSpec>{});
  EXPECT_TRUE(absl::IsInvalidArgument(empty.status()));
  EXPECT_THAT(Message(empty.status()), HasSubstr("the group is empty"));

  const int fds_before = OpenFdCount();
  std::vector<EventSpec> events = ThreeSoftwareEvents();
  events.push_back(Spec(SoftwareAttr(9999), "sw-9999"));
  absl::StatusOr<Group> bad = Group::Open(events);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(Message(bad.status()), HasSubstr("sw-9999: "));
  EXPECT_THAT(Message(bad.status()),
              HasSubstr("[member 4 of 4 in group {task-clock,page-faults,"
                        "context-switches,sw-9999}]"));
  EXPECT_EQ(OpenFdCount(), fds_before);  // the three opened were closed
}

TEST(GroupTest, MovesAndClose) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  const int fds_before = OpenFdCount();
  {
    absl::StatusOr<Group> opened = Group::Open(ThreeSoftwareEvents());
    ASSERT_TRUE(opened.ok()) << opened.status();
    EXPECT_EQ(OpenFdCount(), fds_before + 3);
    const int leader_fd = opened->leader().fd();
    Group a = *std::move(opened);
    Group b(std::move(a));
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(absl::IsFailedPrecondition(a.Read().status()));
    EXPECT_TRUE(absl::IsFailedPrecondition(a.Enable()));
    EXPECT_EQ(b.leader().fd(), leader_fd);
    EXPECT_THAT(b.Read(), IsOk());

    // Move-assigning over an open group closes its events.
    absl::StatusOr<Group> other =
        Group::Open({Spec(SoftwareAttr(PERF_COUNT_SW_DUMMY), "dummy")});
    ASSERT_THAT(other, IsOk());
    EXPECT_EQ(OpenFdCount(), fds_before + 4);
    b = *std::move(other);
    EXPECT_EQ(OpenFdCount(), fds_before + 1);
    EXPECT_EQ(b.size(), 1u);

    EXPECT_THAT(b.Close(), IsOk());
    EXPECT_EQ(OpenFdCount(), fds_before);
    absl::Status again = b.Close();
    EXPECT_TRUE(absl::IsFailedPrecondition(again));
    EXPECT_THAT(Message(again), HasSubstr("group close: the group is empty"));
  }
  EXPECT_EQ(OpenFdCount(), fds_before);
}

TEST(GroupTest, SingleEventGroup) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> group =
      Group::Open({Spec(SoftwareAttr(PERF_COUNT_SW_PAGE_FAULTS), "faults")});
  ASSERT_TRUE(group.ok()) << group.status();
  FreshPages pages(40);
  ASSERT_TRUE(pages.ok());
  absl::StatusOr<GroupReading> reading =
      group->CountCall([&] { pages.Touch(); });
  ASSERT_TRUE(reading.ok()) << reading.status();
  ASSERT_EQ(reading->values.size(), 1u);
  EXPECT_GE(reading->values[0].value, 40u);
  EXPECT_EQ(reading->values[0].label, "faults");
}

TEST(GroupTest, OpenFromGroupSpec) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  GroupSpec spec;
  spec.events = ThreeSoftwareEvents();
  spec.user_group = true;
  absl::StatusOr<Group> group = Group::Open(spec);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->size(), 3u);
}

}  // namespace
}  // namespace perfcounters
