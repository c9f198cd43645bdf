// Tests of the user-space read algorithm on fake perf_event_mmap_pages
// (perfcounters/internal/user_read_algorithm.h), on every machine: the page is
// a struct the test fills in as the kernel would, and rdpmc / the clock are
// fakes that record how they were called. Expected values follow the
// kernel's documented formulas (include/uapi/linux/perf_event.h), computed
// here independently of the library.
//
// Also the UserReader's own decisions on such pages (capabilities, which
// thread may read, after fork) with real software events for the read(2)
// fallback.
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
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::Message;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A page of a running event on general counter 2 (index 3) that allows
// user-space reads; the clock converts 1 cycle to 1 ns, and time_offset is
// such that a clock reading of kNow extrapolates by 100 ns.
constexpr uint64_t kNow = 1'000'100;
perf_event_mmap_page RunningPage() {
  perf_event_mmap_page page{};
  page.lock = 4;
  page.index = 3;
  page.offset = 1'000;
  page.time_enabled = 5'000;
  page.time_running = 4'000;
  page.cap_user_rdpmc = 1;
  page.cap_user_time = 1;
  page.pmc_width = 48;
  page.time_mult = 1u << 20;
  page.time_shift = 20;
  page.time_offset = static_cast<uint64_t>(-1'000'000);
  return page;
}

// rdpmc and the clock, recording the counters read.
struct FakeHardware {
  std::function<uint64_t(uint32_t)> counter = [](uint32_t) { return 500; };
  uint64_t now = kNow;
  std::vector<uint32_t> counters_read;
  int clock_reads = 0;

  // The fakes as a UserReader takes them.
  internal::UserReadHardware ForReader() {
    return {[this](uint32_t c) {
              counters_read.push_back(c);
              return counter(c);
            },
            [this] {
              ++clock_reads;
              return now;
            }};
  }
  bool Read(const perf_event_mmap_page& page, UserReading* out) {
    const internal::UserReadHardware fakes = ForReader();
    return internal::ReadMmapPage(&page, fakes.read_counter, fakes.read_time,
                                  out);
  }
};

TEST(ReadMmapPageTest, OffsetPlusCounterAndTimesExtrapolatedToNow) {
  perf_event_mmap_page page = RunningPage();
  FakeHardware hw;
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_THAT(hw.counters_read, ElementsAre(2u));  // index - 1
  EXPECT_EQ(r.value, 1'500u);
  EXPECT_EQ(r.enabled, 5'100u);
  EXPECT_EQ(r.running, 4'100u);
}

// A realistic TSC conversion (about 2.4 GHz, shift 31): the delta is the
// kernel's quotient/remainder formula, to the nanosecond.
TEST(ReadMmapPageTest, TimeDeltaIsTheKernelsFormula) {
  perf_event_mmap_page page = RunningPage();
  page.time_mult = 894'784'853u;  // 2^31 / 2.4
  page.time_shift = 31;
  page.time_offset = static_cast<uint64_t>(-123'456'789'012LL);
  FakeHardware hw;
  hw.now = 0x0123'4567'89ab'cdefULL;
  const uint64_t quot = hw.now >> 31;
  const uint64_t rem = hw.now & ((uint64_t{1} << 31) - 1);
  const uint64_t delta =
      page.time_offset + quot * page.time_mult + ((rem * page.time_mult) >> 31);
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.enabled, 5'000 + delta);
  EXPECT_EQ(r.running, 4'000 + delta);
}

// Intel fixed counters are read with rdpmc(1<<30 | n); the kernel's index
// is that plus one.
TEST(ReadMmapPageTest, FixedCounterIsReadWithTheFixedBit) {
  perf_event_mmap_page page = RunningPage();
  page.index = ((uint32_t{1} << 30) | 1) + 1;
  FakeHardware hw;
  hw.counter = [](uint32_t c) {
    return c == ((uint32_t{1} << 30) | 1) ? 77 : 0xdead;
  };
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_THAT(hw.counters_read, ElementsAre((uint32_t{1} << 30) | 1));
  EXPECT_EQ(r.value, 1'077u);
}

// x86: a 48-bit counter is programmed with -left, the kernel's prev_count is
// that as a 64-bit negative number and offset = count - prev_count. Read
// across the counter's wrap through 0, the value goes on counting (the
// sign extension from pmc_width makes 0xffff'ffff'ffff = -1).
TEST(ReadMmapPageTest, FortyEightBitCounterWrapsWithAnOffset) {
  const uint64_t count = 5'000'000'000ULL;  // the kernel's count so far
  const uint64_t left = 0x1000;             // sample period left
  const uint64_t mask48 = (uint64_t{1} << 48) - 1;
  perf_event_mmap_page page = RunningPage();
  page.offset = static_cast<int64_t>(count - (uint64_t{0} - left));
  uint64_t raw = (uint64_t{0} - left) & mask48;  // as written to the MSR
  FakeHardware hw;
  hw.counter = [&raw](uint32_t) { return raw; };
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.value, count);
  raw = mask48;  // one event before the wrap
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.value, count + left - 1);
  raw = 5;  // wrapped, before the kernel's overflow handler ran
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.value, count + left + 5);
  // Junk above the counter's width is ignored.
  raw = 0xffff'0000'0000'0005ULL;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.value, count + left + 5);
}

// arm64 32-bit counters: the same sign extension from 32 bits.
TEST(ReadMmapPageTest, ThirtyTwoBitCounterSignExtends) {
  perf_event_mmap_page page = RunningPage();
  page.pmc_width = 32;
  page.offset = 0x1'0000'0010LL;
  FakeHardware hw;
  hw.counter = [](uint32_t) { return 0xffff'fff0u; };  // -16
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.value, 0x1'0000'0000u);
}

// The kernel updates the page (an interrupt, a reschedule) between our
// reading of `lock` and its check: the whole read is done again, and the
// values of the torn pass are never returned.
TEST(ReadMmapPageTest, LockChangeForcesARetry) {
  perf_event_mmap_page page = RunningPage();
  FakeHardware hw;
  int calls = 0;
  hw.counter = [&](uint32_t) -> uint64_t {
    if (++calls == 1) {
      // The kernel moved the event to counter 0 and folded the old
      // counter into offset, mid-read.
      page.lock += 2;
      page.index = 1;
      page.offset = 1'000'000;
      page.time_enabled = 9'000;
      page.time_running = 8'000;
      return 500;
    }
    return 7;
  };
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_THAT(hw.counters_read, ElementsAre(2u, 0u));
  EXPECT_EQ(r.value, 1'000'007u);
  EXPECT_EQ(r.enabled, 9'100u);
  EXPECT_EQ(r.running, 8'100u);
}

// Not on a counter (software event, disabled, multiplexed out): index 0.
TEST(ReadMmapPageTest, IndexZeroFallsBack) {
  perf_event_mmap_page page = RunningPage();
  page.index = 0;
  FakeHardware hw;
  UserReading r{1, 2, 3};
  EXPECT_FALSE(hw.Read(page, &r));
  EXPECT_THAT(hw.counters_read, IsEmpty());
  EXPECT_EQ(r.value, 1u);
}

// cap_user_rdpmc without cap_user_time (a KVM guest with kvm-clock, an
// unstable TSC): the count alone could be read, but not the times a Count
// needs. The read falls back, and neither counter nor clock is read; the
// same without cap_user_rdpmc.
TEST(ReadMmapPageTest, MissingUserTimeOrRdpmcFallsBack) {
  for (bool time : {false, true}) {
    perf_event_mmap_page page = RunningPage();
    page.cap_user_time = time;
    page.cap_user_rdpmc = !time;
    FakeHardware hw;
    UserReading r;
    EXPECT_FALSE(hw.Read(page, &r)) << "cap_user_time " << time;
    EXPECT_THAT(hw.counters_read, IsEmpty());
    EXPECT_EQ(hw.clock_reads, 0);
  }
}

// cap_user_time_short (arm64: a 56-bit generic timer, or narrower): the
// clock wrapped since the page's time_cycles; the masked difference keeps
// the delta small and right.
TEST(ReadMmapPageTest, ShortClockWrapIsCorrectedWithTimeMask) {
  const uint64_t mask = (uint64_t{1} << 40) - 1;  // a 40-bit clock
  const uint64_t base = mask - 9;                 // 10 ticks before the wrap
  perf_event_mmap_page page = RunningPage();
  page.cap_user_time_short = 1;
  page.time_cycles = base;
  page.time_mask = mask;
  // 1 ns per tick; delta = ns since time_cycles (the kernel subtracts the
  // base's ns from time_zero, and time_offset from that).
  page.time_offset = uint64_t{0} - base;
  FakeHardware hw;
  hw.now = 5;  // 15 ticks after base: wrapped
  UserReading r;
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.enabled, 5'015u);
  EXPECT_EQ(r.running, 4'015u);
  hw.now = base + 3;  // not wrapped
  ASSERT_TRUE(hw.Read(page, &r));
  EXPECT_EQ(r.enabled, 5'003u);
}

// Intel topdown metric events (topdown-retiring, ...) get index
// INTEL_PMC_FIXED_RDPMC_METRICS + 1: rdpmc would return PERF_METRICS, eight
// packed 8-bit fractions, not a count. Never read from user space.
TEST(ReadMmapPageTest, TopdownMetricIndexFallsBack) {
  perf_event_mmap_page page = RunningPage();
  page.index = (uint32_t{1} << 29) + 1;
  FakeHardware hw;
  hw.counter = [](uint32_t) { return 0x0a14'1e28'3246'505aULL; };
  UserReading r;
  EXPECT_FALSE(hw.Read(page, &r));
  EXPECT_THAT(hw.counters_read, IsEmpty());
}

// --- UserReader over fake pages, with a real software event behind it.

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
