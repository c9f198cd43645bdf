// fault_lifecycle_test.cc: misuse and concurrency with real events. Every
// operation on a closed or moved-from Event/Group is a FailedPrecondition
// naming the event, never a crash or a call on a stale fd; double close is
// an error, not a second close(2). The thread-safety contract of event.h and
// group.h (const operations may run concurrently; one object per thread for
// CountCall) is exercised with several threads (run under TSan by
// scripts/ci-hardening).
#include <linux/perf_event.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "support/event_helpers.h"
#include "support/paranoid.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::FreshPages;
using ::testing::HasSubstr;

EventSpec Spec(const std::string& text) {
  absl::StatusOr<EventSpec> spec = ParseEvent(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  if (!spec.ok()) return EventSpec{};
  // Readable with Event::ReadCount() (Group::Open sets its own format).
  spec->attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return *spec;
}

void ExpectClosedError(const absl::Status& s, const std::string& what) {
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << what << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("closed")) << what;
}

TEST(FaultLifecycleTest, EveryEventOperationAfterCloseIsAClearError) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> e = Event::Open(Spec("task-clock"));
  ASSERT_TRUE(e.ok()) << e.status();
  const int fd = e->fd();
  ASSERT_THAT(e->Close(), IsOk());
  EXPECT_EQ(e->fd(), -1);
  // A new fd may reuse the number; a closed Event must never touch it.
  absl::StatusOr<Event> other = Event::Open(Spec("page-faults"));
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(other->fd(), fd);

  ExpectClosedError(e->Close(), "double close: ");
  ExpectClosedError(e->Enable(), "Enable: ");
  ExpectClosedError(e->Disable(), "Disable: ");
  ExpectClosedError(e->Reset(), "Reset: ");
  ExpectClosedError(e->Refresh(1), "Refresh: ");
  ExpectClosedError(e->SetPeriod(1000), "SetPeriod: ");
  ExpectClosedError(e->QueryId().status(), "QueryId: ");
  ExpectClosedError(e->SetOutput(-1), "SetOutput: ");
  ExpectClosedError(e->ReadCount().status(), "ReadCount: ");
  ExpectClosedError(e->CountCall([] {}).status(), "CountCall: ");
  EXPECT_THAT(std::string(e->ReadCount().status().message()),
              HasSubstr("task-clock"));
  // The other event was not disturbed.
  EXPECT_TRUE(other->ReadCount().ok()) << other->ReadCount().status();
}

TEST(FaultLifecycleTest, MovedFromEventAndGroupAreClosed) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> e = Event::Open(Spec("task-clock"));
  ASSERT_THAT(e, IsOk());
  Event moved = std::move(*e);
  EXPECT_TRUE(moved.is_open());
  EXPECT_FALSE(e->is_open());  // NOLINT(bugprone-use-after-move)
  ExpectClosedError(e->ReadCount().status(), "moved-from: ");
  ExpectClosedError(e->Close(), "moved-from close: ");
  EXPECT_THAT(moved.ReadCount(), IsOk());

  absl::StatusOr<Group> g = Group::Open({Spec("task-clock")});
  ASSERT_THAT(g, IsOk());
  Group h = std::move(*g);
  EXPECT_EQ(g->size(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(g->Read().status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(h.Read(), IsOk());
}

TEST(FaultLifecycleTest, EveryGroupOperationAfterCloseIsAClearError) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Group> g =
      Group::Open({Spec("task-clock"), Spec("page-faults")});
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_THAT(g->Close(), IsOk());
  EXPECT_EQ(g->size(), 0u);
  for (const absl::Status& s :
       {g->Close(), g->Enable(), g->Disable(), g->Reset(), g->Verify(),
        g->Read().status(), g->CountCall([] {}).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_FALSE(s.message().empty());
  }
}

// Touches `pages` fresh pages: at least that many page faults.
// Transparent huge pages off (FreshPages): with THP "always" (the arm64
// machine's kernel), threads' adjacent mappings merge and one fault can map
// a 2 MiB page that covers another thread's pages (43 faults for 128 pages).
void TouchFreshPages(size_t pages) {
  FreshPages memory(pages);
  ASSERT_TRUE(memory.ok());
  memory.Touch();
}

// Supported: one Group per thread, each counting its own thread.
TEST(FaultLifecycleTest, OneGroupPerThreadCountsEachThread) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  constexpr int kThreads = 4;
  constexpr size_t kPages = 64;
  std::vector<uint64_t> faults(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // No task-clock leader: a group led by task-clock loses page faults
      // when threads contend (seen in the arm64 machine under load, and the
      // reason benchmark_ext never packs task-clock with other events).
      absl::StatusOr<Group> g =
          Group::Open({Spec("page-faults"), Spec("minor-faults")});
      if (!g.ok()) {
        errors[t] = g.status().ToString();
        return;
      }
      for (int round = 0; round < 20; ++round) {
        // Thread t touches (t + 1) * kPages pages.
        absl::StatusOr<GroupReading> r =
            g->CountCall([t] { TouchFreshPages((t + 1) * kPages); });
        if (!r.ok() || r->values.size() != 2 || r->running == 0) {
          errors[t] = r.ok() ? "bad reading" : r.status().ToString();
          return;
        }
        // Fresh anonymous pages: every page fault is a minor fault.
        if (r->values[0].value != r->values[1].value) {
          errors[t] = absl::StrCat("page-faults ", r->values[0].value,
                                   " != minor-faults ", r->values[1].value);
          return;
        }
        if (round == 0 || r->values[0].value < faults[t]) {
          faults[t] = r->values[0].value;  // the smallest round
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_GE(faults[t], (t + 1) * kPages) << "thread " << t;
  }
  // Each thread counted itself only: the counts grow with each thread's own
  // work, and thread 0 stays far below the 10 * kPages that all threads
  // touch together (with room for sanitizers' shadow-memory faults).
  for (int t = 0; t + 1 < kThreads; ++t) {
    EXPECT_LT(faults[t], faults[t + 1]) << "threads " << t << ", " << t + 1;
  }
  EXPECT_LT(faults[0], 8 * kPages);
}

// Supported: concurrent const reads of one Group from several threads.
TEST(FaultLifecycleTest, ConcurrentReadsOfOneGroup) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  GroupOptions options;
  options.start_disabled = false;
  absl::StatusOr<Group> g =
      Group::Open({Spec("task-clock"), Spec("context-switches")}, options);
  ASSERT_TRUE(g.ok()) << g.status();
  constexpr int kThreads = 4;
  std::atomic<int> bad{0};
  std::atomic<int> reads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      uint64_t last_enabled = 0;
      for (int i = 0; i < 2000; ++i) {
        absl::StatusOr<GroupReading> r = g->Read();
        if (!r.ok() || r->values.size() != 2 || r->enabled < last_enabled) {
          bad.fetch_add(1);
          return;
        }
        last_enabled = r->enabled;
        reads.fetch_add(1);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(reads.load(), kThreads * 2000);
}

}  // namespace
}  // namespace perfcounters
