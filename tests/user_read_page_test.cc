// Tests of the user-space read algorithm on fake perf_event_mmap_pages
// (perfcounters/internal/user_read_algorithm.h), on every machine: the page is
// a struct the test fills in as the kernel would, and rdpmc / the clock are
// fakes that record how they were called. Expected values follow the
// kernel's documented formulas (include/uapi/linux/perf_event.h), computed
// here independently of the library.
//
// The UserReader's own decisions on such pages: user_reader_fake_page_test.
#include <linux/perf_event.h>

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/user_read.h"
#include "support/fake_mmap_page.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::FakeHardware;
using ::perfcounters::testing::RunningPage;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// RunningPage and FakeHardware: support/fake_mmap_page.h.

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

}  // namespace
}  // namespace perfcounters
