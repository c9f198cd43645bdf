// tracepoint_test.cc: finding tracefs and reading tracepoint ids
// (tracepoint.h), against a fake tracefs tree and this machine's real
// tracefs (mounted by the test when missing and running as root).
#include "perfcounters/tracepoint.h"

#include <linux/perf_event.h>
#include <sys/mount.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "support/event_helpers.h"
#include "support/fake_sysfs.h"

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ::perfcounters::testing::Message;

class FakeTracefsTest : public ::testing::Test {
 protected:
  FakeTracefsTest() {
    tree_.AddTracefs();
    // Files next to the event directories, as in the real tracefs.
    tree_.Write("tracing/events/sched/enable", "0");
    tree_.Write("tracing/events/sched/filter", "none");
    tree_.Write("tracing/events/enable", "0");
    paths_ = tree_.Paths();
  }
  testing::FakeTree tree_;
  SystemPaths paths_;
};

TEST_F(FakeTracefsTest, FindsTheFirstCandidateWithEvents) {
  EXPECT_EQ(*FindTracefs(paths_), tree_.root() + "/tracing");
  paths_.tracefs.insert(paths_.tracefs.begin(), tree_.root() + "/missing");
  EXPECT_EQ(*FindTracefs(paths_), tree_.root() + "/tracing");
  tree_.Write("debug/tracing/events/x/y/id", "1");
  paths_.tracefs = {tree_.root() + "/missing", tree_.root() + "/debug/tracing"};
  EXPECT_EQ(*FindTracefs(paths_), tree_.root() + "/debug/tracing");
}

TEST_F(FakeTracefsTest, NoTracefsSaysWhereItLookedAndHowToMount) {
  paths_.tracefs = {tree_.root() + "/a", tree_.root() + "/b"};
  absl::StatusOr<std::string> root = FindTracefs(paths_);
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(root.status()), HasSubstr(tree_.root() + "/a"));
  EXPECT_THAT(Message(root.status()), HasSubstr(tree_.root() + "/b"));
  EXPECT_THAT(Message(root.status()),
              HasSubstr("mount -t tracefs nodev /sys/kernel/tracing"));
  EXPECT_EQ(TracepointId("sched", "sched_switch", paths_).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(FakeTracefsTest, ReadsIdsAndLists) {
  EXPECT_EQ(*TracepointId("sched", "sched_switch", paths_), 316u);
  EXPECT_EQ(*TracepointId("sched", "sched_wakeup", paths_), 318u);
  EXPECT_THAT(*ListTracepointCategories(paths_),
              ElementsAre("cycles", "sched"));
  EXPECT_THAT(*ListTracepoints("sched", paths_),
              ElementsAre("sched_switch", "sched_wakeup"));
}

TEST_F(FakeTracefsTest, UnknownTracepointsSuggestCloseNames) {
  absl::StatusOr<uint64_t> id = TracepointId("sched", "sched_swich", paths_);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(id.status()), HasSubstr("'sched:sched_swich'"));
  EXPECT_THAT(Message(id.status()),
              HasSubstr("did you mean sched:sched_switch"));
  id = TracepointId("shced", "sched_switch", paths_);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(Message(id.status()), HasSubstr("'shced'"));
  EXPECT_THAT(Message(id.status()), HasSubstr("did you mean sched"));
  EXPECT_EQ(TracepointId("..", "x", paths_).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TracepointId("sched", "a/b", paths_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(FakeTracefsTest, MalformedIdNamesTheFile) {
  tree_.Tracepoint("bad", "id_text", "12abc");
  absl::StatusOr<uint64_t> id = TracepointId("bad", "id_text", paths_);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(id.status()), HasSubstr("bad/id_text/id"));
  EXPECT_THAT(Message(id.status()), HasSubstr("'12abc'"));
}

// --- The real tracefs.

// Makes sure the real tracefs is mounted; returns why not when it cannot be.
std::string EnsureRealTracefs() {
  const SystemPaths paths;
  if (FindTracefs(paths).ok()) return "";
  if (geteuid() != 0) {
    return "tracefs is not mounted and the test is not root to mount it";
  }
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
    return std::string("mounting tracefs on /sys/kernel/tracing failed: ") +
           strerror(errno);
  }
  return FindTracefs(paths).ok() ? "" : "tracefs mounted but has no events/";
}

TEST(RealTracefsTest, SchedSwitchResolvesToTheIdFileValue) {
  const std::string why = EnsureRealTracefs();
  if (!why.empty()) GTEST_SKIP() << why;
  const SystemPaths paths;
  const std::string root = *FindTracefs(paths);
  std::ifstream in(root + "/events/sched/sched_switch/id");
  if (!in)
    GTEST_SKIP() << "cannot read " << root << "/events/sched/sched_switch/id";
  uint64_t expected = 0;
  in >> expected;
  ASSERT_GT(expected, 0u);
  EXPECT_EQ(*TracepointId("sched", "sched_switch", paths), expected);
  absl::StatusOr<EventSpec> spec = ParseEvent("sched:sched_switch");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.type, uint32_t{PERF_TYPE_TRACEPOINT});
  EXPECT_EQ(spec->attr.config, expected);
  EXPECT_EQ(spec->label, "sched:sched_switch");
  EXPECT_THAT(*ListTracepointCategories(paths), ::testing::Contains("sched"));
  EXPECT_THAT(*ListTracepoints("sched", paths),
              ::testing::Contains("sched_switch"));
}

// The parsed tracepoint opens and counts: each usleep() switches this
// thread out at least once.
TEST(RealTracefsTest, ParsedSchedSwitchCountsSleeps) {
  const std::string why = EnsureRealTracefs();
  if (!why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<EventSpec> spec = ParseEvent("sched:sched_switch");
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->attr.disabled = true;
  spec->attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  absl::StatusOr<Event> event = Event::Open(*spec);
  if (!event.ok())
    GTEST_SKIP() << "cannot open the tracepoint: " << event.status();
  constexpr int kSleeps = 20;
  absl::StatusOr<Count> count = event->CountCall([] {
    for (int i = 0; i < kSleeps; ++i) usleep(1000);
  });
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_GE(count->value, uint64_t{kSleeps});
  EXPECT_GT(count->running, 0u);
  RecordProperty("sched_switch_count", std::to_string(count->value));
}

}  // namespace
}  // namespace perfcounters
