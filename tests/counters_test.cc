// counters_test.cc: Counters, the core region API — every listed event is
// counted (braces or not), intervals accumulate, results by label (value,
// coverage, not counted with a reason), Start/Stop allocate nothing on
// either read path, derived metrics, and exact hardware counts in the
// emulated arm64 machine (hardware tests skip natively).
#include "perfcounters/counters.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/internal/counter_set.h"
#include "support/event_helpers.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/multiplexing.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

// Counts every allocation of this program, so that a test can say that a
// stretch of code made none.
namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's buffer uses it): every form that
// the deletes below free must come from malloc, or ASan reports a mismatch.
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
// GCC inlines the replaced new/delete pair and then warns that free() gets
// a pointer from operator new; both come from malloc here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using testing::FreshPages;
using ::testing::HasSubstr;

std::vector<std::string> Labels(const std::vector<CounterValue>& values) {
  std::vector<std::string> labels;
  for (const CounterValue& v : values) labels.push_back(v.label);
  return labels;
}

// The README's list: plain events, no braces, each counted.
TEST(Counters, EveryListedEventIsCountedWithoutBraces) {
  absl::StatusOr<Counters> counters = Counters::Open("task-clock,page-faults");
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->plan().groups.size(), 2u);
  FreshPages pages(64);
  ASSERT_TRUE(pages.ok());
  counters->Start();
  pages.Touch();
  counters->Stop();
  const std::vector<CounterValue> values = counters->Values();
  EXPECT_THAT(Labels(values), ElementsAre("task-clock", "page-faults"));
  for (const CounterValue& v : values) {
    EXPECT_TRUE(v.counted) << v.label << ": " << v.not_counted_reason;
    EXPECT_EQ(v.coverage, 1.0) << v.label;
  }
  EXPECT_GT(values[0].value, 0.0);
  EXPECT_TOUCHED_PAGE_FAULTS(values[1].value, 64, 0);
}

TEST(Counters, IntervalsAccumulateAndOnlyTheirInsidesCount) {
  absl::StatusOr<Counters> counters =
      Counters::Open("page-faults,minor-faults");
  ASSERT_TRUE(counters.ok()) << counters.status();
  FreshPages outside(16);
  FreshPages inside(30);
  ASSERT_TRUE(outside.ok());
  ASSERT_TRUE(inside.ok());
  for (size_t i = 0; i < 3; ++i) {
    counters->Start();
    for (size_t p = 10 * i; p < 10 * i + 10; ++p) inside.Touch(p);
    counters->Stop();
    for (size_t p = 5 * i; p < 5 * i + 5; ++p) outside.Touch(p);
  }
  EXPECT_EQ(counters->intervals(), 3u);
  absl::StatusOr<CounterValue> faults = counters->Value("page-faults");
  ASSERT_TRUE(faults.ok()) << faults.status();
  EXPECT_TOUCHED_PAGE_FAULTS(faults->value, 30, 0);
  absl::StatusOr<CounterValue> minor = counters->Value("minor-faults");
  ASSERT_TRUE(minor.ok()) << minor.status();
  EXPECT_TOUCHED_PAGE_FAULTS(minor->value, 30, 0);
  // Page faults cost nothing to the bracket: nothing was subtracted.
  EXPECT_EQ(faults->subtracted, 0.0);

  counters->Reset();
  EXPECT_EQ(counters->intervals(), 0u);
  faults = counters->Value("page-faults");
  ASSERT_THAT(faults, IsOk());
  EXPECT_FALSE(faults->counted);
  EXPECT_THAT(faults->not_counted_reason, HasSubstr("no interval"));
}

TEST(Counters, AnUnknownLabelIsAnErrorListingTheKeys) {
  absl::StatusOr<Counters> counters = Counters::Open("page-faults,cs");
  ASSERT_TRUE(counters.ok()) << counters.status();
  absl::StatusOr<CounterValue> v = counters->Value("faults");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(v.status().message()),
              HasSubstr("the keys are: page-faults, context-switches"));
}

TEST(Counters, AListThatDoesNotParseFailsOpenWithCloseNames) {
  absl::StatusOr<Counters> counters =
      Counters::Open("page-faults,instructionz");
  ASSERT_FALSE(counters.ok());
  EXPECT_THAT(counters.status().message(), HasSubstr("instructionz"));
}

TEST(Counters, AnEventThisMachineCannotCountIsNotCountedWithTheReason) {
  const std::string why = testing::WhyEventUnavailable("cycles:u");
  if (why.empty()) GTEST_SKIP() << "cycles opens on this machine";
  absl::StatusOr<Counters> counters = Counters::Open("cycles,page-faults,ipc");
  ASSERT_TRUE(counters.ok()) << counters.status();
  counters->Start();
  counters->Stop();
  const std::vector<CounterValue> values = counters->Values();
  EXPECT_THAT(Labels(values),
              ElementsAre("cycles", "page-faults", "instructions"));
  EXPECT_FALSE(values[0].counted);
  EXPECT_EQ(values[0].value, 0.0);
  EXPECT_FALSE(values[0].not_counted_reason.empty());
  EXPECT_TRUE(values[1].counted);
  // ipc's inputs are not planned: no metric, rather than a wrong one.
  EXPECT_TRUE(counters->DerivedMetrics().empty());
}

// Start/Stop of `counters` over `intervals` intervals: allocations made.
uint64_t AllocationsInStartStop(Counters& counters, int intervals) {
  const uint64_t before = g_allocations.load();
  for (int i = 0; i < intervals; ++i) {
    counters.Start();
    counters.Stop();
  }
  return g_allocations.load() - before;
}

TEST(Counters, StartAndStopAllocateNothingOnTheReadPath) {
  for (ReadMode mode : {ReadMode::kAuto, ReadMode::kSyscall}) {
    CountersOptions options;
    options.read_mode = mode;
    absl::StatusOr<Counters> counters =
        Counters::Open("page-faults,task-clock,context-switches", options);
    ASSERT_TRUE(counters.ok()) << counters.status();
    // The probe counts: one allocation is seen.
    const uint64_t before = g_allocations.load();
    ::operator delete(::operator new(16));
    ASSERT_EQ(g_allocations.load() - before, 1u);
    EXPECT_EQ(AllocationsInStartStop(*counters, 1000), 0u);
    EXPECT_EQ(internal::CounterSetOf(*counters).syscall_snapshots(),
              2u * 1000u * 2u);
    EXPECT_EQ(counters->intervals(), 1000u);
  }
}

TEST(CountersHardware, StartAndStopAllocateNothingOnTheUserSpacePath) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  CountersOptions options;
  options.read_mode = ReadMode::kUser;
  absl::StatusOr<Counters> counters =
      Counters::Open("instructions:u,cycles:u", options);
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_TRUE(counters->user_space(0)) << counters->user_space_reason(0);
  EXPECT_EQ(AllocationsInStartStop(*counters, 1000), 0u);
  EXPECT_GT(internal::CounterSetOf(*counters).user_snapshots(), 0u);
}

// The user-space snapshots are counted on every way Start and Stop take
// (the one-group short way counts them from the calls): one per call that
// takes one, none for a repeated Start or Stop, and a Reset inside an open
// interval leaves that interval's start to the batch before.
TEST(CountersHardware, UserSpaceSnapshotsAreCountedAcrossResetsAndRepeats) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  CountersOptions options;
  options.read_mode = ReadMode::kUser;
  absl::StatusOr<Counters> counters = Counters::Open("instructions:u", options);
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_TRUE(counters->user_space(0)) << counters->user_space_reason(0);
  const CounterSet& set = internal::CounterSetOf(*counters);
  EXPECT_EQ(set.user_snapshots(), 0u);  // calibration's are reset
  counters->Start();
  EXPECT_EQ(set.user_snapshots(), 1u);
  counters->Start();
  EXPECT_EQ(set.user_snapshots(), 1u);
  counters->Stop();
  counters->Stop();
  EXPECT_EQ(set.user_snapshots(), 2u);
  EXPECT_EQ(counters->intervals(), 1u);
  counters->Start();
  counters->Reset();
  EXPECT_EQ(set.user_snapshots(), 0u);
  counters->Stop();
  EXPECT_EQ(set.user_snapshots(), 1u);
  EXPECT_EQ(counters->intervals(), 1u);
  counters->Reset();
  for (int i = 0; i < 10; ++i) {
    counters->Start();
    counters->Stop();
  }
  EXPECT_EQ(set.user_snapshots(), 20u);
  EXPECT_EQ(set.syscall_snapshots(), 0u);
  EXPECT_FALSE(set.failed(0));
}

// The user-space short way is the opening thread's, in its process, only:
// another thread (which has opened counters of its own) and a child after
// fork() (where the pages are not mapped: a read of them would fault) read
// the same counters with read(2), and the opening thread keeps its way.
TEST(CountersHardware, OnlyTheOpeningThreadInItsProcessReadsUserSpace) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  CountersOptions options;
  options.read_mode = ReadMode::kUser;
  options.calibrate = false;
  absl::StatusOr<Counters> counters = Counters::Open("instructions:u", options);
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_TRUE(counters->user_space(0)) << counters->user_space_reason(0);
  const CounterSet& set = internal::CounterSetOf(*counters);
  auto one_interval = [&set](Counters& c) {
    c.Reset();
    c.Start();
    c.Stop();
    return std::make_pair(set.user_snapshots(), set.syscall_snapshots());
  };
  using Paths = std::pair<uint64_t, uint64_t>;  // user-space, read(2)
  EXPECT_EQ(one_interval(*counters), Paths(2, 0));
  Paths on_other_thread;
  bool own_took_user_space = false;
  std::thread([&] {
    absl::StatusOr<Counters> own = Counters::Open("instructions:u", options);
    if (own.ok()) {
      own->Start();
      own->Stop();
      own_took_user_space = internal::CounterSetOf(*own).user_snapshots() == 2;
    }
    on_other_thread = one_interval(*counters);
  }).join();
  EXPECT_TRUE(own_took_user_space);
  EXPECT_EQ(on_other_thread, Paths(0, 2));
  EXPECT_FALSE(set.failed(0));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const Paths in_child = one_interval(*counters);
    _exit(in_child == Paths(0, 2) && !set.failed(0) ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child read user space";
  EXPECT_EQ(one_interval(*counters), Paths(2, 0));
  EXPECT_FALSE(set.failed(0));
}

// Exact in the emulated machine: the loop's 2 instructions per iteration,
// the bracket calibrated away.
TEST(CountersHardware, CountsALoopExactlyOnBothPathsWithItsMetric) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  constexpr uint64_t kLoops = 100000;
  for (ReadMode mode : {ReadMode::kUser, ReadMode::kSyscall}) {
    CountersOptions options;
    options.read_mode = mode;
    absl::StatusOr<Counters> counters =
        Counters::Open("instructions:u,cycles:u,ipc:u", options);
    ASSERT_TRUE(counters.ok()) << counters.status();
    // A reference: StatusOr's operator-> is a call in an unoptimized build,
    // and it would sit inside the counted interval.
    Counters& c = *counters;
    for (int i = 0; i < 10; ++i) {
      c.Start();
      perfcounters::testing::TwoInstructionLoop(kLoops);
      c.Stop();
    }
    absl::StatusOr<CounterValue> instructions =
        counters->Value("instructions:u");
    ASSERT_TRUE(instructions.ok()) << instructions.status();
    ASSERT_TRUE(instructions->counted) << instructions->not_counted_reason;
    std::printf("%s path: instructions:u of 10 x %llu loops = %.0f\n",
                ReadModeName(mode), static_cast<unsigned long long>(kLoops),
                instructions->value);
    // 2 per loop, plus the call's few instructions per interval, give or
    // take the 2 or so by which the compiler's code around the caller's
    // Start() and Stop() differs from the calibration's.
    EXPECT_GE(instructions->value, 10 * (2 * kLoops - 2));
    EXPECT_LE(instructions->value, 10 * (2 * kLoops + 40));
    absl::StatusOr<CounterValue> cycles = counters->Value("cycles:u");
    ASSERT_TRUE(cycles.ok() && cycles->counted);
    const std::vector<MetricValue> metrics = counters->DerivedMetrics();
    ASSERT_EQ(metrics.size(), 2u);  // ipc:u, cpi:u
    EXPECT_EQ(metrics[0].name, "ipc:u");
    ASSERT_TRUE(metrics[0].counted);
    EXPECT_DOUBLE_EQ(metrics[0].value, instructions->value / cycles->value);
    EXPECT_EQ(metrics[1].name, "cpi:u");
    EXPECT_DOUBLE_EQ(metrics[1].value, cycles->value / instructions->value);
  }
}

// Twelve copies of the same count, more than the PMU holds (default
// user-only, so `instructions` = `instructions:u`; with the machine's
// icount shift 0 cycles = instructions), on a six-counter PMU: two packed
// groups of six, or twelve one-event groups, either way multiplexed.
using ::perfcounters::testing::kTwelveAlone;
using ::perfcounters::testing::kTwelvePacked;

// Every event is calibrated although the groups take turns on the PMU, and
// every batch that ran fully on the PMU reads the loop's exact count: the
// bracket is subtracted for every event alike.
TEST(CountersHardware, EveryEventIsCalibratedUnderMultiplexing) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  if (!perfcounters::testing::HardwareRequired()) {
    GTEST_SKIP() << "exact counts need the emulated machine";
  }
  if (!perfcounters::testing::IcountShiftIsZero()) {
    GTEST_SKIP() << "cycles = instructions only at icount shift 0";
  }
  constexpr uint64_t kLoops = 1000;
  for (const char* list : {kTwelvePacked, kTwelveAlone}) {
    SCOPED_TRACE(list);
    absl::StatusOr<Counters> counters = Counters::Open(list);
    ASSERT_TRUE(counters.ok()) << counters.status();
    EXPECT_THAT(counters->Uncalibrated(), ::testing::IsEmpty());
    ASSERT_EQ(counters->calibration().size(), 12u);
    // Per event: batches fully on the PMU, and the least and most counted
    // in one of them beyond the loop's 100 per iteration.
    std::vector<int> full(12, 0);
    double least = 1e18;
    double most = -1e18;
    for (int batch = 0; batch < 400; ++batch) {
      Counters& c = *counters;  // no StatusOr call inside the interval
      c.Reset();
      c.Start();
      perfcounters::testing::HundredInstructionLoop(kLoops);
      c.Stop();
      for (size_t i = 0; i < 12; ++i) {
        const CounterValue v = counters->PlannedValue(i);
        EXPECT_TRUE(v.calibrated) << v.label;
        if (!v.counted || v.coverage < 1) continue;
        ++full[i];
        least = std::min(least, v.value - 100.0 * kLoops);
        most = std::max(most, v.value - 100.0 * kLoops);
      }
    }
    std::printf("%s: beyond 100 x %llu: %.0f to %.0f; full batches:", list,
                static_cast<unsigned long long>(kLoops), least, most);
    for (int f : full) std::printf(" %d", f);
    std::printf("\n");
    for (size_t i = 0; i < 12; ++i) EXPECT_GT(full[i], 0) << i;
    // The same for every event, to the instruction: what is left is the
    // test's own code between Start() and Stop() (the loop's call: 1
    // instruction when optimized) and, unoptimized, the calls of the
    // inline Start() and Stop() (as CountsALoopExactlyOnBothPaths: at
    // most 40 per interval).
    // Optimized, the compiler's code around the caller's Start() and
    // Stop() may also be an instruction or two shorter than the
    // calibration's.
    EXPECT_EQ(least, most);
    EXPECT_GE(least, -2.0);
    EXPECT_LE(most, 40.0);
  }
}

// The scaled error against the batch's length (docs/counters.md has the
// table this prints): a batch of n loop instructions, 10 batches per
// length, twelve events on six counters packed or alone. The assertion:
// an error above 1% never goes without short_multiplexed().
TEST(CountersHardware, ShortMultiplexedBatchesAreFlagged) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  if (!perfcounters::testing::HardwareRequired()) {
    GTEST_SKIP() << "exact counts need the emulated machine";
  }
  if (!perfcounters::testing::IcountShiftIsZero()) {
    GTEST_SKIP() << "cycles = instructions only at icount shift 0";
  }
  std::printf(
      "| groups | instructions per batch | rotations | counted | "
      "coverage | max error | flagged |\n");
  for (const char* list : {kTwelvePacked, kTwelveAlone}) {
    absl::StatusOr<Counters> counters = Counters::Open(list);
    ASSERT_TRUE(counters.ok()) << counters.status();
    for (uint64_t n = 10000; n <= 100000000; n *= 10) {
      int counted = 0;
      int flagged = 0;
      double worst = 0;
      double least_coverage = 1;
      double rotations = 0;
      for (int batch = 0; batch < 10; ++batch) {
        counters->Reset();
        counters->Start();
        perfcounters::testing::TwoInstructionLoop(n / 2);
        counters->Stop();
        for (const CounterValue& v : counters->Values()) {
          if (!v.counted) continue;
          ++counted;
          rotations = v.mux_intervals;
          least_coverage = std::min(least_coverage, v.coverage);
          const double error = std::abs(v.value / static_cast<double>(n) - 1);
          worst = std::max(worst, error);
          if (v.short_multiplexed()) ++flagged;
          if (error > 0.01) {
            EXPECT_TRUE(v.short_multiplexed())
                << v.label << " off by " << error << " at coverage "
                << v.coverage << " over " << v.mux_intervals << " rotations";
          }
        }
      }
      std::printf("| %s | %.0e | %.3g | %d of 120 | %.2f | %.3g%% | %d |\n",
                  list == kTwelvePacked ? "2 packed" : "12 alone",
                  static_cast<double>(n), rotations, counted, least_coverage,
                  100 * worst, flagged);
    }
  }
}

TEST(ComputeMetrics, ANotCountedInputOrAZeroDenominatorGivesNoValue) {
  const std::vector<DerivedMetric> derived = {
      {"ipc", "instructions", "cycles", FindMetric("ipc")},
      {"cpi", "cycles", "instructions", FindMetric("cpi")},
      {"branch-miss-rate", "branch-misses", "branches",
       FindMetric("branch-miss-rate")}};
  std::vector<CounterValue> values(4);
  values[0].label = "instructions";
  values[0].counted = true;
  values[0].value = 300;
  values[1].label = "cycles";
  values[1].counted = true;
  values[1].value = 100;
  values[2].label = "branches";
  values[2].counted = true;
  values[2].value = 0;
  values[3].label = "branch-misses";
  values[3].counted = false;
  const std::vector<MetricValue> m = ComputeMetrics(derived, values);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_TRUE(m[0].counted);
  EXPECT_EQ(m[0].value, 3.0);
  EXPECT_EQ(m[0].metric->unit, "instructions per cycle");
  EXPECT_TRUE(m[1].counted);
  EXPECT_DOUBLE_EQ(m[1].value, 1.0 / 3.0);
  EXPECT_FALSE(m[2].counted);
}

}  // namespace
}  // namespace perfcounters
