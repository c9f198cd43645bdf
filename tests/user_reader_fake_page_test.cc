// Tests of UserReader's own decisions on fake perf_event_mmap_pages
// (support/fake_mmap_page.h): capabilities, which thread may read, groups,
// topdown events, after fork; with real software events for the read(2)
// fallback. The read algorithm itself on such pages: user_read_page_test.
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/user_read.h"
#include "support/event_helpers.h"
#include "support/fake_mmap_page.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::FakeHardware;
using ::perfcounters::testing::Message;
using ::perfcounters::testing::RunningPage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Counting from open, user space only (opens at perf_event_paranoid 2).
Attr DummyAttr() {
  Attr attr = testing::SoftwareAttr(PERF_COUNT_SW_DUMMY);
  attr.disabled = false;
  attr.exclude_kernel = true;
  attr.exclude_hv = true;
  return attr;
}

// A real software event for the read(2) fallback, a fake page and fake
// hardware for the user-space path.
class FakePageReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    event_ = Event::Open(DummyAttr(), "dummy");
    ASSERT_TRUE(event_.ok()) << event_.status();
    fakes_ = hw_.ForReader();
  }
  absl::StatusOr<UserReader> MakeReader() {
    return internal::UserReaderTestPeer::Make(*event_, &page_, &fakes_);
  }
  absl::StatusOr<Event> event_ = absl::UnknownError("not opened");
  perf_event_mmap_page page_ = RunningPage();
  FakeHardware hw_;
  internal::UserReadHardware fakes_;
};

TEST_F(FakePageReaderTest, ReadsFromUserSpaceWhereThePageAllows) {
  absl::StatusOr<UserReader> reader = MakeReader();
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_TRUE(reader->user_space_capable());
  EXPECT_EQ(reader->pmc_width(), 48);
  absl::StatusOr<Count> count = reader->Read();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(reader->last_path(), ReadPath::kUserSpace);
  EXPECT_EQ(count->value, 1'500u);
  EXPECT_EQ(count->enabled, 5'100u);
  EXPECT_EQ(count->running, 4'100u);
  EXPECT_EQ(count->id, event_->id());  // read_format has PERF_FORMAT_ID
  EXPECT_EQ(count->label, "dummy");
}

// A page with cap_user_rdpmc but without
// cap_user_time is not user-space capable (every read would be read(2)).
TEST_F(FakePageReaderTest, WithoutUserTimeTheReaderIsNotUserSpaceCapable) {
  page_.cap_user_time = 0;
  absl::StatusOr<UserReader> reader = MakeReader();
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_FALSE(reader->user_space_capable());
  EXPECT_EQ(reader->pmc_width(), 0);
  absl::StatusOr<Count> count = reader->Read();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(reader->last_path(), ReadPath::kSyscall);
  EXPECT_EQ(count->value, 0u);  // the dummy event's real count
  EXPECT_THAT(hw_.counters_read, IsEmpty());
}

// A reader mapped on one thread and used on another: rdpmc there would read
// the other thread's CPU's counter. The read goes to read(2) instead.
TEST_F(FakePageReaderTest, AnotherThreadsReadTakesReadSyscall) {
  absl::StatusOr<UserReader> reader = MakeReader();
  ASSERT_TRUE(reader.ok()) << reader.status();
  bool user = true;
  absl::StatusOr<Count> count = absl::UnknownError("not run");
  UserReading r;
  std::thread other([&] {
    user = reader->TryReadUserSpace(&r);
    count = reader->Read();
  });
  other.join();
  EXPECT_FALSE(user);
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(reader->last_path(), ReadPath::kSyscall);
  EXPECT_EQ(count->value, 0u);
  EXPECT_THAT(hw_.counters_read, IsEmpty());
  // The owning thread still reads from user space.
  EXPECT_TRUE(reader->TryReadUserSpace(&r));
}

// A group's members on fake pages of their own: the leader's page as
// RunningPage (counter 2), member i on counter 2 + i with its own offset,
// and time fields that are not the leader's (a member's page carries its
// own times; read(2) of a group reports the leader's).
class FakeGroupTest : public ::testing::Test {
 protected:
  static constexpr int kMembers = 4;
  void SetUp() override {
    for (int i = 0; i < kMembers; ++i) {
      absl::StatusOr<Event> event = Event::Open(DummyAttr(), "dummy");
      ASSERT_TRUE(event.ok()) << event.status();
      events_.push_back(*std::move(event));
      perf_event_mmap_page page = RunningPage();
      if (i > 0) {
        page.index = 3 + i;
        page.offset = 1'000 * (i + 1);
        page.time_enabled = 777;
        page.time_running = 666;
        page.time_offset = 12345;
      }
      pages_[i] = page;
    }
    hw_.counter = [](uint32_t c) { return 100 * c; };
    fakes_ = hw_.ForReader();
    for (int i = 0; i < kMembers; ++i) {
      absl::StatusOr<UserReader> reader = internal::UserReaderTestPeer::Make(
          events_[i], &pages_[i], &fakes_, /*group_member=*/true);
      ASSERT_TRUE(reader.ok()) << reader.status();
      readers_.push_back(*std::move(reader));
    }
  }
  // The group read into values[0..kMembers) with stride 2, as CounterSet's
  // buffer has them (value, id).
  bool ReadGroup(UserReading* times) {
    return UserReader::TryReadGroupUserSpace(readers_.data(), readers_.size(),
                                             values_, 2, times);
  }
  std::vector<Event> events_;
  perf_event_mmap_page pages_[kMembers];
  FakeHardware hw_;
  internal::UserReadHardware fakes_;
  absl::StatusOr<Event> other_event_ = absl::UnknownError("not opened");
  std::vector<UserReader> readers_;
  uint64_t values_[2 * kMembers] = {};
};

TEST_F(FakeGroupTest, EveryMembersCountAndTheLeadersTimesReadOnce) {
  UserReading times;
  ASSERT_TRUE(ReadGroup(&times));
  // Each member's own counter (index - 1) plus its own offset.
  EXPECT_THAT(hw_.counters_read, ElementsAre(2u, 3u, 4u, 5u));
  EXPECT_EQ(values_[0], 1'000u + 200);
  EXPECT_EQ(values_[2], 2'000u + 300);
  EXPECT_EQ(values_[4], 3'000u + 400);
  EXPECT_EQ(values_[6], 4'000u + 500);
  // The values land at the stride; the ids' slots are left alone.
  EXPECT_EQ(values_[1], 0u);
  EXPECT_EQ(values_[7], 0u);
  // The times: one clock read, extrapolated on the leader's page.
  EXPECT_EQ(hw_.clock_reads, 1);
  EXPECT_EQ(times.value, 1'200u);
  EXPECT_EQ(times.enabled, 5'100u);
  EXPECT_EQ(times.running, 4'100u);
  // The same as the leader's own read gives.
  UserReading leader;
  ASSERT_TRUE(readers_[0].TryReadUserSpace(&leader));
  EXPECT_EQ(leader.enabled, times.enabled);
  EXPECT_EQ(leader.running, times.running);
}

// A member's page changes mid-read: that member's read is done again, and
// the group's times are still read once.
TEST_F(FakeGroupTest, AMembersLockChangeRetriesThatMemberOnly) {
  int calls = 0;
  hw_.counter = [&](uint32_t c) -> uint64_t {
    if (c == 4 && ++calls == 1) {
      pages_[2].lock += 2;
      pages_[2].offset = 50'000;
      return 1;
    }
    return 100 * c;
  };
  UserReading times;
  ASSERT_TRUE(ReadGroup(&times));
  EXPECT_THAT(hw_.counters_read, ElementsAre(2u, 3u, 4u, 4u, 5u));
  EXPECT_EQ(values_[4], 50'000u + 400);
  EXPECT_EQ(hw_.clock_reads, 1);
}

// Any member not on a counter (index 0: multiplexed out) or without
// user-space reads fails the whole group read: the caller uses read(2).
TEST_F(FakeGroupTest, AMemberThatCannotBeReadFailsTheGroup) {
  UserReading times;
  pages_[3].index = 0;
  EXPECT_FALSE(ReadGroup(&times));
  pages_[3] = RunningPage();
  pages_[1].cap_user_rdpmc = 0;
  EXPECT_FALSE(ReadGroup(&times));
  pages_[1].cap_user_rdpmc = 1;
  pages_[0].index = 0;  // the leader: nothing else is read
  hw_.counters_read.clear();
  hw_.clock_reads = 0;
  EXPECT_FALSE(ReadGroup(&times));
  EXPECT_THAT(hw_.counters_read, IsEmpty());
  EXPECT_EQ(hw_.clock_reads, 0);
  pages_[0] = RunningPage();
  EXPECT_TRUE(ReadGroup(&times));
  EXPECT_FALSE(UserReader::TryReadGroupUserSpace(readers_.data(), 0, values_, 2,
                                                 &times));
}

// The thread check is made once, on the leader: a member mapped by another
// thread fails the group read (its counter is not the caller's to read),
// and so does the whole group read on another thread.
TEST_F(FakeGroupTest, MembersOfAnotherThreadFailTheGroup) {
  UserReading times;
  std::thread other([&] {
    EXPECT_FALSE(ReadGroup(&times));
    other_event_ = Event::Open(DummyAttr(), "dummy");
    ASSERT_TRUE(other_event_.ok()) << other_event_.status();
    absl::StatusOr<UserReader> reader = internal::UserReaderTestPeer::Make(
        *other_event_, &pages_[2], &fakes_, /*group_member=*/true);
    ASSERT_TRUE(reader.ok()) << reader.status();
    readers_[2] = *std::move(reader);
  });
  other.join();
  EXPECT_FALSE(ReadGroup(&times));
  EXPECT_THAT(hw_.counters_read, ElementsAre(2u, 3u));
}

// Events that do not count the calling thread are never read from user
// space. The
// fake page says the counter is readable (as x86's does, whoever reads it);
// the reader must refuse before any rdpmc.
TEST_F(FakePageReaderTest, EventOfAnotherThreadIsRefused) {
  pid_t tid = 0;
  bool done = false;
  std::mutex mu;
  std::condition_variable cv;
  std::thread other([&] {
    std::unique_lock<std::mutex> lock(mu);
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return tid != 0; });
  }
  absl::StatusOr<Event> event =
      Event::Open(DummyAttr(), "dummy", Target::Thread(tid));
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  other.join();
  ASSERT_TRUE(event.ok()) << event.status();
  for (bool member : {false, true}) {
    absl::StatusOr<UserReader> reader =
        internal::UserReaderTestPeer::Make(*event, &page_, &fakes_, member);
    ASSERT_FALSE(reader.ok());
    EXPECT_TRUE(absl::IsFailedPrecondition(reader.status())) << reader.status();
    EXPECT_THAT(Message(reader.status()),
                HasSubstr(absl::StrCat("counts thread ", tid)));
    EXPECT_THAT(Message(reader.status()), HasSubstr("read(2)"));
  }
  // The real Map says the same.
  absl::StatusOr<UserReader> mapped = UserReader::Map(*event);
  EXPECT_TRUE(absl::IsFailedPrecondition(mapped.status())) << mapped.status();
  EXPECT_THAT(hw_.counters_read, IsEmpty());
}

TEST(UserReadTargetTest, OnlyTheCallingThreadOnAnyCpuIsSelfMonitoring) {
  const pid_t me = 100, other = 200;
  auto check = [&](const Target& target, pid_t opener, pid_t caller) {
    return internal::CheckSelfMonitoring(target, opener, caller, "ev");
  };
  EXPECT_THAT(check(Target::CallingThread(), me, me), IsOk());
  EXPECT_THAT(check(Target::Thread(me), other, me), IsOk());
  struct Case {
    Target target;
    pid_t opener;
    const char* says;
  } cases[] = {
      {Target::CallingThread(), other, "opened by thread 200"},
      {Target::Thread(other), me, "counts thread 200"},
      {Target::AllThreads(0), me, "every thread on CPU 0"},
      {Target::Cgroup(5, 1), me, "a cgroup"},
      {Target{0, 3, 0}, me, "only on CPU 3"},
  };
  for (const Case& c : cases) {
    absl::Status s = check(c.target, c.opener, me);
    EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
    EXPECT_THAT(Message(s), HasSubstr(c.says));
    EXPECT_THAT(Message(s), HasSubstr("'ev'"));
    EXPECT_THAT(Message(s), HasSubstr("Target::CallingThread()"));
  }
}

// Intel's topdown events: slots (event 0x00 umask 0x04) and the metrics
// (event 0x00, umask 0x80..0x87) of the core PMU (type 4, also cpu_core's
// on hybrids). Not a neighbouring raw event, nor another PMU's.
TEST(UserReadTopdownTest, SlotsAndMetricsAreTopdown) {
  auto attr = [](uint32_t type, uint64_t config) {
    Attr a;
    a.type = type;
    a.config = config;
    return a;
  };
  EXPECT_TRUE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x0400)));
  EXPECT_TRUE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x8000)));
  EXPECT_TRUE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x8300)));
  EXPECT_TRUE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x8700)));
  EXPECT_TRUE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x1'0000'0400)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x00c0)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x8800)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x8001)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(PERF_TYPE_RAW, 0x0401)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(PERF_TYPE_HARDWARE, 0x0400)));
  EXPECT_FALSE(internal::IsIntelTopdown(attr(10, 0x8000)));  // cpu_atom
#if defined(__x86_64__)
  EXPECT_TRUE(MustUseReadSyscall(attr(PERF_TYPE_RAW, 0x8000)));
#else
  // arm64 raw events share these numbers (0x8000 + n: SVE/SME events).
  EXPECT_FALSE(MustUseReadSyscall(attr(PERF_TYPE_RAW, 0x8000)));
#endif
  EXPECT_TRUE(MustUseReadSyscall(attr(PERF_TYPE_SOFTWARE, 0)));
  EXPECT_TRUE(MustUseReadSyscall(attr(PERF_TYPE_TRACEPOINT, 1)));
  EXPECT_TRUE(MustUseReadSyscall(attr(PERF_TYPE_BREAKPOINT, 0)));
  EXPECT_FALSE(MustUseReadSyscall(attr(PERF_TYPE_HARDWARE, 0)));
  EXPECT_FALSE(MustUseReadSyscall(attr(PERF_TYPE_RAW, 0x00c0)));
}

// After fork() the child has no mapping of the page (the kernel maps it
// VM_DONTCOPY): the child's reads go to read(2) (the fd is inherited and
// still counts the parent's thread), and its reader does not unmap what
// now lives at that address.
TEST(UserReaderForkTest, ChildReadsWithReadSyscallAndDoesNotFault) {
  absl::StatusOr<Event> event = Event::Open(DummyAttr(), "dummy");
  ASSERT_TRUE(event.ok()) << event.status();
  absl::StatusOr<UserReader> reader = UserReader::Map(*event);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    UserReading r;
    if (reader->TryReadUserSpace(&r)) _exit(3);
    absl::StatusOr<Count> count = reader->Read();
    if (!count.ok()) _exit(4);
    if (reader->last_path() != ReadPath::kSyscall) _exit(5);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace perfcounters
