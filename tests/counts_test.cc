// Tests for counts.h: Scale (multiplexing correction, exact 128-bit
// arithmetic, "not counted"), Delta of single counts and group snapshots.
#include "perfcounters/counts.h"

#include <linux/perf_event.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/attr.h"
#include "perfcounters/event.h"
#include "support/hw.h"
#include "support/loops.h"

namespace perfcounters {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(ScaleTest, RunningZeroIsNotCountedAndHasNoValue) {
  ScaledCount c = Scale(12345, 1000, 0);
  EXPECT_FALSE(c.counted());
  EXPECT_TRUE(std::isnan(c.value())) << c.value();
  EXPECT_EQ(c.raw(), 0u);  // NotCounted keeps no raw value either.
  EXPECT_EQ(c.enabled(), 1000u);
  EXPECT_EQ(c.running(), 0u);
  EXPECT_EQ(c.coverage(), 0.0);

  ScaledCount never = ScaledCount::NotCounted(0);
  EXPECT_FALSE(never.counted());
  EXPECT_TRUE(std::isnan(never.value()));
  EXPECT_EQ(never.coverage(), 0.0);
}

TEST(ScaleTest, FullCoverageIsTheRawValue) {
  ScaledCount c = Scale(1000, 500, 500);
  EXPECT_TRUE(c.counted());
  EXPECT_FALSE(c.multiplexed());
  EXPECT_EQ(c.value(), 1000.0);
  EXPECT_EQ(c.coverage(), 1.0);
}

TEST(ScaleTest, RunningAboveEnabledIsFullCoverage) {
  ScaledCount c = Scale(777, 100, 150);
  EXPECT_TRUE(c.counted());
  EXPECT_FALSE(c.multiplexed());
  EXPECT_EQ(c.value(), 777.0);
  EXPECT_EQ(c.coverage(), 1.0);
}

TEST(ScaleTest, MultiplexedIsScaledExactly) {
  ScaledCount half = Scale(1000, 200, 100);
  EXPECT_TRUE(half.multiplexed());
  EXPECT_EQ(half.value(), 2000.0);
  EXPECT_EQ(half.coverage(), 0.5);

  ScaledCount third = Scale(10, 3, 1);
  EXPECT_EQ(third.value(), 30.0);
  EXPECT_EQ(third.coverage(), 1.0 / 3.0);

  ScaledCount frac = Scale(7, 3, 2);  // 10.5 exactly
  EXPECT_EQ(frac.value(), 10.5);
  EXPECT_EQ(frac.raw(), 7u);
  EXPECT_EQ(frac.enabled(), 3u);
  EXPECT_EQ(frac.running(), 2u);
}

TEST(ScaleTest, ZeroValueWithRunningIsCountedZero) {
  ScaledCount c = Scale(0, 100, 50);
  EXPECT_TRUE(c.counted());
  EXPECT_EQ(c.value(), 0.0);
}

TEST(ScaleTest, ValuesNear2To64DoNotOverflow) {
  // 2^63 * 4 / 2 = 2^64: overflows 64-bit multiplication.
  EXPECT_EQ(Scale(uint64_t{1} << 63, 4, 2).value(), 0x1p64);
  // (2^64-1) * 3 / 2 = 27670116110564327422.5; the nearest double is
  // 1.5 * 2^64 (doubles there are 4096 apart).
  EXPECT_EQ(Scale(kMax, 3, 2).value(), 0x1.8p64);
  // (2^64-1)^2 / 1: nearest double is 2^128.
  EXPECT_EQ(Scale(kMax, kMax, 1).value(), 0x1p128);
  // Full coverage at the top of the range.
  EXPECT_EQ(Scale(kMax, kMax, kMax).value(), 0x1p64);
}

TEST(ScaleTest, EnabledNear2To64IsExact) {
  // 2^64-1 = 3 * 6148914691236517205, so 3 * (2^64-1) / 6148914691236517205
  // is exactly 9; neither operand is exactly representable as a double.
  EXPECT_EQ(Scale(3, kMax, kMax / 3).value(), 9.0);
  // 1000 * (2^64-2) / (2^63-1) = 2000 exactly.
  EXPECT_EQ(Scale(1000, kMax - 1, (kMax >> 1)).value(), 2000.0);
  // (2^53+1) * (2^64-1) / (2^64-1) with running == enabled: raw, rounded
  // once to the nearest double (ties to even: 2^53).
  EXPECT_EQ(Scale((uint64_t{1} << 53) + 1, kMax, kMax).value(), 0x1p53);
  // (2^53+1) * 2 / 1 = 2^54 + 2: exactly representable, and a naive
  // double(raw) * 2 would give 2^54.
  EXPECT_EQ(Scale((uint64_t{1} << 53) + 1, 2, 1).value(), 0x1p54 + 2);
  // (2^53+3) * 3 / 2 = 13510798882111492.5 -> correctly rounded to
  // 13510798882111492 (doubles there are 2 apart, .5 is below half a step).
  EXPECT_EQ(Scale((uint64_t{1} << 53) + 3, 3, 2).value(), 13510798882111492.0);
}

TEST(ScaleTest, MatchesCorrectlyRoundedDivisionOnRandomInputs) {
  // Where raw * enabled and running are below 2^53 both are exact doubles
  // and IEEE division is correctly rounded: an exact oracle.
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < 100000; ++i) {
    uint64_t running = (rng() >> 41) + 1;        // up to 2^23
    uint64_t enabled = running + (rng() >> 41);  // below 2^24
    uint64_t raw = rng() >> 36;                  // below 2^28: product < 2^52
    double expected =
        static_cast<double>(raw * enabled) / static_cast<double>(running);
    ASSERT_EQ(Scale(raw, enabled, running).value(), expected)
        << raw << " * " << enabled << " / " << running;
  }
}

TEST(ScaleTest, CountOverload) {
  Count delta{.value = 50, .enabled = 10, .running = 5, .id = 3, .label = "x"};
  ScaledCount c = Scale(delta);
  EXPECT_EQ(c.value(), 100.0);
  EXPECT_EQ(c.raw(), 50u);
  Count not_run{.value = 0, .enabled = 10, .running = 0, .id = 0, .label = "x"};
  EXPECT_FALSE(Scale(not_run).counted());
}

TEST(DeltaTest, SingleCount) {
  Count before{.value = 100,
               .enabled = 1000,
               .running = 800,
               .id = 7,
               .label = "task-clock"};
  Count after{.value = 350,
              .enabled = 3000,
              .running = 1800,
              .id = 7,
              .label = "task-clock"};
  absl::StatusOr<Count> d = Delta(before, after);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, (Count{.value = 250,
                       .enabled = 2000,
                       .running = 1000,
                       .id = 7,
                       .label = "task-clock"}));
  EXPECT_EQ(Scale(*d).value(), 500.0);
}

TEST(DeltaTest, SingleCountNotRunningInTheIntervalIsNotCounted) {
  Count before{
      .value = 100, .enabled = 1000, .running = 800, .id = 1, .label = "y"};
  Count after{
      .value = 100, .enabled = 5000, .running = 800, .id = 1, .label = "y"};
  absl::StatusOr<Count> d = Delta(before, after);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->running, 0u);
  EXPECT_FALSE(Scale(*d).counted());
}

TEST(DeltaTest, SingleCountErrors) {
  Count base{
      .value = 100, .enabled = 1000, .running = 800, .id = 7, .label = "cs"};
  Count other_label = base;
  other_label.label = "faults";
  EXPECT_THAT(
      Delta(base, other_label).status().message(),
      AllOf(HasSubstr("label"), HasSubstr("\"cs\""), HasSubstr("\"faults\"")));
  Count other_id = base;
  other_id.id = 8;
  EXPECT_THAT(Delta(base, other_id).status().message(),
              AllOf(HasSubstr("id 7"), HasSubstr("8")));

  Count reset = base;
  reset.value = 5;
  reset.enabled = 2000;
  reset.running = 1600;
  absl::Status s = Delta(base, reset).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("value"), HasSubstr("backwards"),
                                 HasSubstr("100"), HasSubstr("reset")));

  Count enabled_back = base;
  enabled_back.enabled = 999;
  EXPECT_THAT(Delta(base, enabled_back).status().message(),
              AllOf(HasSubstr("time_enabled"), HasSubstr("backwards")));
  Count running_back = base;
  running_back.running = 1;
  EXPECT_THAT(Delta(base, running_back).status().message(),
              AllOf(HasSubstr("time_running"), HasSubstr("backwards")));
}

GroupReading MakeGroup(uint64_t enabled, uint64_t running, uint64_t a,
                       uint64_t b) {
  return GroupReading{.enabled = enabled,
                      .running = running,
                      .values = {{.value = a, .id = 11, .label = "cycles"},
                                 {.value = b, .id = 12, .label = "insns"}}};
}

TEST(GroupDeltaTest, DeltaAndScale) {
  absl::StatusOr<GroupReading> d =
      Delta(MakeGroup(100, 50, 1000, 2000), MakeGroup(500, 250, 3000, 2600));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, MakeGroup(400, 200, 2000, 600));
  std::vector<ScaledCount> s = Scale(*d);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].value(), 4000.0);
  EXPECT_EQ(s[1].value(), 1200.0);
  EXPECT_EQ(s[0].coverage(), 0.5);
  EXPECT_TRUE(s[1].multiplexed());
}

TEST(GroupDeltaTest, GroupNotScheduledIsNotCountedForEveryMember) {
  absl::StatusOr<GroupReading> d =
      Delta(MakeGroup(100, 50, 1000, 2000), MakeGroup(900, 50, 1000, 2000));
  ASSERT_TRUE(d.ok()) << d.status();
  std::vector<ScaledCount> s = Scale(*d);
  ASSERT_EQ(s.size(), 2u);
  for (const ScaledCount& c : s) {
    EXPECT_FALSE(c.counted());
    EXPECT_TRUE(std::isnan(c.value()));
    EXPECT_EQ(c.enabled(), 800u);
  }
}

TEST(GroupDeltaTest, MismatchedGroups) {
  GroupReading g = MakeGroup(100, 50, 1000, 2000);
  GroupReading fewer = g;
  fewer.values.pop_back();
  EXPECT_THAT(Delta(g, fewer).status().message(),
              AllOf(HasSubstr("member count"), HasSubstr("2 before"),
                    HasSubstr("1 after")));

  GroupReading other_id = MakeGroup(200, 100, 1000, 2000);
  other_id.values[1].id = 99;
  EXPECT_THAT(
      Delta(g, other_id).status().message(),
      AllOf(HasSubstr("member 1"), HasSubstr("id 12"), HasSubstr("id 99")));

  GroupReading other_label = MakeGroup(200, 100, 1000, 2000);
  other_label.values[0].label = "branches";
  EXPECT_THAT(Delta(g, other_label).status().message(),
              AllOf(HasSubstr("member 0"), HasSubstr("\"cycles\""),
                    HasSubstr("\"branches\"")));

  // A reset between the snapshots: values go backwards.
  GroupReading reset = MakeGroup(200, 100, 10, 2500);
  absl::Status s = Delta(g, reset).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("member 0"), HasSubstr("cycles"),
                                 HasSubstr("backwards"), HasSubstr("reset")));

  EXPECT_THAT(Delta(g, MakeGroup(99, 50, 1000, 2000)).status().message(),
              HasSubstr("time_enabled went backwards"));
  EXPECT_THAT(Delta(g, MakeGroup(100, 49, 1000, 2000)).status().message(),
              HasSubstr("time_running went backwards"));
  // Swapped arguments are caught too.
  EXPECT_FALSE(Delta(MakeGroup(500, 250, 3000, 2600), g).ok());
}

TEST(GroupDeltaTest, NearWrapValues) {
  absl::StatusOr<GroupReading> d =
      Delta(MakeGroup(0, 0, 0, 1), MakeGroup(kMax, kMax / 3, kMax, kMax));
  ASSERT_TRUE(d.ok()) << d.status();
  std::vector<ScaledCount> s = Scale(*d);
  // (2^64-1) * (2^64-1) / ((2^64-1)/3) = 3 * (2^64-1) -> nearest double 3*2^64.
  EXPECT_EQ(s[0].value(), 0x3p64);
  // (2^64-2) * 3 = 3*2^64 - 6 -> nearest double 3*2^64.
  EXPECT_EQ(s[1].value(), 0x3p64);
}

// Real multiplexing: more instructions:u events than the PMU has counters
// (the emulated arm64 PMU has 6 general counters plus the cycle counter), so
// the kernel rotates them and each runs for part of the time. Scaling the
// deltas must recover the loop's exact instruction count.
TEST(ScaleHardwareTest, MultiplexedInstructionsScaleToTheTruth) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  constexpr int kEvents = 12;
  constexpr uint64_t kIterations = 100'000'000;  // 2e8 instructions
  Attr attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = true;
  attr.exclude_kernel = true;
  attr.exclude_hv = true;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
  std::vector<Event> events;
  for (int i = 0; i < kEvents; ++i) {
    absl::StatusOr<Event> event =
        Event::Open(attr, "instructions:u#" + std::to_string(i));
    ASSERT_TRUE(event.ok()) << event.status();
    events.push_back(*std::move(event));
  }
  std::vector<Count> before;
  for (const Event& e : events) {
    absl::StatusOr<Count> c = e.ReadCount();
    ASSERT_TRUE(c.ok()) << c.status();
    before.push_back(*c);
  }
  for (const Event& e : events) ASSERT_TRUE(e.Enable().ok());
  testing::TwoInstructionLoop(kIterations);
  for (const Event& e : events) ASSERT_TRUE(e.Disable().ok());

  const double truth = 2.0 * kIterations;
  int multiplexed = 0;
  for (int i = 0; i < kEvents; ++i) {
    absl::StatusOr<Count> after = events[i].ReadCount();
    ASSERT_TRUE(after.ok()) << after.status();
    absl::StatusOr<Count> delta = Delta(before[i], *after);
    ASSERT_TRUE(delta.ok()) << delta.status();
    ScaledCount scaled = Scale(*delta);
    SCOPED_TRACE(absl::StrCat(delta->label, ": raw ", delta->value, " enabled ",
                              delta->enabled, " running ", delta->running));
    ASSERT_TRUE(scaled.counted());
    if (scaled.multiplexed()) ++multiplexed;
    std::printf("%s: raw %llu, coverage %.3f, scaled %.0f (error %+.4f%%)\n",
                delta->label.c_str(),
                static_cast<unsigned long long>(delta->value),
                scaled.coverage(), scaled.value(),
                100.0 * (scaled.value() - truth) / truth);
    // Measured in the emulated machine: within 0.04% over 2e8 instructions.
    EXPECT_NEAR(scaled.value(), truth, truth * 0.01);
    if (scaled.coverage() < 0.9) {
      // Scaling did real work: the raw count alone is far off.
      EXPECT_LT(static_cast<double>(scaled.raw()), truth * 0.95);
    }
  }
  EXPECT_GT(multiplexed, 0) << kEvents
                            << " events all ran the whole time: the PMU "
                               "has more counters than this test assumes";
}

}  // namespace
}  // namespace perfcounters
