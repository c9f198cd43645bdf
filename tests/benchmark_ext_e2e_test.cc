// benchmark_ext_e2e_test.cc: end-to-end tests of the gbench integration.
// Each test runs tests/e2e/e2e_bench.cc (perfcounters_e2e_bench) with
// --perf_counters and reads its JSON output (support/bench_runner.h). Those
// that need a hardware PMU: benchmark_ext_e2e_hardware_test.cc.
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/vendor_events.h"
#include "support/bench_runner.h"
#include "support/hw.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"

namespace {

using ::perfcounters::testing::Context;
using ::perfcounters::testing::kMinTime;
using ::perfcounters::testing::kOwnMainBench;
using ::perfcounters::testing::PerIteration;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;
using ::perfcounters::testing::WithEnv;
using ::testing::HasSubstr;
using ::testing::Not;

// An event that is a known name but cannot be counted on this machine;
// empty when every candidate opens.
std::string UnavailableEvent() {
  for (const char* e : {"cycles", "instructions", "cache-misses",
                        "branch-misses", "L1-dcache-load-misses"}) {
    if (!perfcounters::testing::WhyEventUnavailable(e).empty()) return e;
  }
  return "";
}

TEST(BenchmarkE2E, PageFaultsPerIterationAreTheTouchedPages) {
  Result r =
      RunBench({"--perf_counters=page-faults",
                "--benchmark_filter=BM_TouchPages/4/threads:1$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_TouchPages/4/threads:1");
  ASSERT_TRUE(e.is_object()) << r.out;
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 4.0, 0.01)
      << e.dump();
  EXPECT_FALSE(e.contains("page-faults.not_counted"));
  EXPECT_FALSE(e.contains("page-faults.coverage"));  // never multiplexed
}

TEST(BenchmarkE2E, ModifiersSelectUserOrKernelMode) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  // The benchmark's page faults are taken in user mode.
  Result r =
      RunBench({"--perf_counters=page-faults:u,page-faults:k,"
                "page-faults:uk",
                "--benchmark_filter=BM_TouchPages/4/threads:1$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_TouchPages/4/threads:1");
  ASSERT_TRUE(e.is_object()) << r.out;
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults:u"), 4.0, 0.01)
      << e.dump();
  EXPECT_LT(PerIteration(e, "page-faults:k"), 0.01) << e.dump();
  EXPECT_NEAR(
      PerIteration(e, "page-faults:uk"),
      PerIteration(e, "page-faults:u") + PerIteration(e, "page-faults:k"),
      0.01);
}

TEST(BenchmarkE2E, ThreadsGiveTheSamePerIterationValue) {
  Result r =
      RunBench({"--perf_counters=page-faults,minor-faults",
                "--benchmark_filter=BM_TouchPages/4/threads:", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double one =
      PerIteration(r.Entry("BM_TouchPages/4/threads:1"), "page-faults");
  EXPECT_TOUCHED_PAGE_FAULTS(one, 4.0, 0.04);
  for (const char* name :
       {"BM_TouchPages/4/threads:2", "BM_TouchPages/4/threads:4"}) {
    const nlohmann::json& e = r.Entry(name);
    ASSERT_TRUE(e.is_object()) << name << "\n" << r.out;
    EXPECT_NEAR(PerIteration(e, "page-faults"), one, one * 0.01) << name;
    EXPECT_NEAR(PerIteration(e, "minor-faults"), one, one * 0.01) << name;
  }
}

TEST(BenchmarkE2E, PausedRegionIsExcluded) {
  // 2 pages touched while timed, 3 more while paused.
  Result r = RunBench({"--perf_counters=page-faults",
                       "--benchmark_filter=BM_PausedTouch", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_PausedTouch"), "page-faults"), 2.0, 0.02)
      << r.out;
}

TEST(BenchmarkE2E, TaskClockPerIterationIsCpuTimePerIteration) {
  Result r = RunBench(
      {"--perf_counters=task-clock", "--benchmark_filter=BM_Spin", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_Spin");
  ASSERT_TRUE(e.is_object()) << r.out;
  ASSERT_EQ(e["time_unit"], "ns");
  EXPECT_TASK_CLOCK_IS_CPU_TIME(e, 0.03);
}

TEST(BenchmarkE2E, UnknownNameFailsBeforeAnyBenchmarkRuns) {
  Result r = RunBench({"--perf_counters=page-faults,instructionz",
                       "--benchmark_filter=BM_Spin", kMinTime});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("instructionz"));
  EXPECT_THAT(r.err, HasSubstr("--perf_counters"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_Spin")));
  EXPECT_TRUE(r.json.is_null()) << "no benchmark may run";
}

TEST(BenchmarkE2E, UnsupportedEventWarnsAndTheRunGoesOn) {
  const std::string missing = UnavailableEvent();
  if (missing.empty()) GTEST_SKIP() << "every candidate event opens here";
  Result r =
      RunBench({"--perf_counters=" + missing + ",page-faults",
                "--benchmark_filter=BM_TouchPages/4/threads:1$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: " + missing + ": not counted — "));
  const nlohmann::json& e = r.Entry("BM_TouchPages/4/threads:1");
  ASSERT_TRUE(e.is_object()) << r.out;
  EXPECT_FALSE(e.contains(missing)) << "never reported as a number";
  EXPECT_EQ(PerIteration(e, missing + ".not_counted"), 1.0);
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 4.0, 0.04);
  // The reason is in the JSON context too.
  EXPECT_THAT(r.json["context"]["perfcounters.unavailable"].get<std::string>(),
              HasSubstr(missing + ": "));
  // The console table leaves it out (the warning said so).
  EXPECT_THAT(r.out, Not(HasSubstr(missing + ".not_counted")));
}

TEST(BenchmarkE2E, StrictModeFailsWhenACounterIsNotCounted) {
  const std::string missing = UnavailableEvent();
  if (missing.empty()) GTEST_SKIP() << "every candidate event opens here";
  Result r = RunBench({"--perf_counters=" + missing + ",page-faults",
                       "--perf_counters_strict", "--benchmark_filter=BM_Spin",
                       kMinTime});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--perf_counters_strict"));
}

TEST(BenchmarkE2E, StrictModePassesWhenEverythingIsCounted) {
  Result r = RunBench({"--perf_counters=page-faults,task-clock",
                       "--perf_counters_strict", "--benchmark_filter=BM_Spin",
                       kMinTime});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.Entry("BM_Spin").contains("task-clock"));
}

TEST(BenchmarkE2E, CountersAppearInAggregates) {
  Result r = RunBench({"--perf_counters=page-faults",
                       "--benchmark_filter=BM_TouchPages/4/threads:1$",
                       "--benchmark_repetitions=3", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* agg : {"mean", "median"}) {
    const nlohmann::json& e =
        r.Entry(std::string("BM_TouchPages/4/threads:1_") + agg);
    ASSERT_TRUE(e.is_object()) << agg << "\n" << r.out;
    EXPECT_EQ(e["run_type"], "aggregate");
    EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 4.0, 0.04)
        << agg;
  }
  const nlohmann::json& sd = r.Entry("BM_TouchPages/4/threads:1_stddev");
  ASSERT_TRUE(sd.is_object());
  EXPECT_LT(PerIteration(sd, "page-faults"), 0.04);
}

TEST(BenchmarkE2E, GbenchAliasFlagWorks) {
  Result r = RunBench({"--benchmark_perf_counters=page-faults",
                       "--benchmark_filter=BM_PausedTouch", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_PausedTouch"), "page-faults"), 2.0, 0.02);
}

TEST(BenchmarkE2E, EnvironmentVariableWorksAndTheFlagWins) {
  Result r = RunBench({"--benchmark_filter=BM_PausedTouch", kMinTime},
                      WithEnv({{"PERFCOUNTERS_EVENTS", "page-faults"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_PausedTouch"), "page-faults"), 2.0, 0.02);

  r = RunBench({"--perf_counters=minor-faults",
                "--benchmark_filter=BM_PausedTouch", kMinTime},
               WithEnv({{"PERFCOUNTERS_EVENTS", "page-faults"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_PausedTouch");
  EXPECT_FALSE(e.contains("page-faults"));
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "minor-faults"), 2.0, 0.02);
  // The override is said.
  EXPECT_THAT(r.err, HasSubstr("perfcounters: note: --perf_counters="
                               "minor-faults overrides PERFCOUNTERS_EVENTS="
                               "page-faults"));
}

TEST(BenchmarkE2E, BothFlagNamesAreAnErrorBeforeAnyBenchmarkRuns) {
  Result r = RunBench({"--perf_counters=minor-faults",
                       "--benchmark_perf_counters=page-faults",
                       "--benchmark_filter=BM_PausedTouch", kMinTime});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--perf_counters=minor-faults and "
                               "--benchmark_perf_counters=page-faults"));
  EXPECT_THAT(r.err, HasSubstr("give only one of them"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_PausedTouch")));
}

TEST(BenchmarkE2E, GbenchsOwnMainTakesTheEventsFromTheEnvironment) {
  Result r = RunBench(
      {kMinTime},
      WithEnv({{"PERFCOUNTERS_EVENTS", "page-faults"}}, kOwnMainBench));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_TouchThreePages"), "page-faults"), 3.0, 0.03)
      << r.out;
}

// With gbench's own main, a bad PERFCOUNTERS_EVENTS stops the program at the
// first Measure, before its loop: exit status 1, the error, no result.
TEST(BenchmarkE2E, GbenchsOwnMainStopsOnABadEnvironmentList) {
  Result r = RunBench(
      {kMinTime}, WithEnv({{"PERFCOUNTERS_EVENTS", "cyclez"}}, kOwnMainBench));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("perfcounters: error: PERFCOUNTERS_EVENTS=cyclez"));
  EXPECT_THAT(r.err, HasSubstr("stopped before the first measured benchmark"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchThreePages")));
  EXPECT_TRUE(r.Entry("BM_TouchThreePages").is_null());
}

// A suite that kept gbench's BENCHMARK_MAIN() and also links
// perfcounters_benchmark_ext_main (gbench's main would run and refuse
// --perf_counters as an unknown flag) stops at start with one line saying
// what to change, with or without our flags.
TEST(BenchmarkE2E, BenchmarkMainLeftInASuiteLinkingOurMainStopsAtStart) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--perf_counters=page-faults", kMinTime},
        std::vector<std::string>{kMinTime}}) {
    Result r = RunBench(args, WithEnv({}, "perfcounters_gbench_main_bench"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(
        r.err,
        "perfcounters: error: this program defines its own main() "
        "(gbench's BENCHMARK_MAIN()?) and links "
        "perfcounters::benchmark_ext_main, whose main() runs the benchmarks "
        "with --perf_counters: delete BENCHMARK_MAIN(), or link "
        "perfcounters::benchmark_ext instead to keep your main() (events "
        "from PERFCOUNTERS_EVENTS)\n");
    EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchThreePages")));
  }
}

// When no requested event can be opened here, Measure's benchmarks are
// marked not counted for the true reason — the one warning line before the
// benchmarks — never told that they do not use Measure, and no benchmark
// gets a line of its own.
TEST(BenchmarkE2E, NothingOpenableGivesMeasureBenchmarksTheTrueReason) {
  if (perfcounters::testing::WhyEventUnavailable("cycles").empty()) {
    GTEST_SKIP() << "cycles count here: every list below has an event that "
                    "opens";
  }
  struct Case {
    std::string list;
    std::vector<std::string> keys;  // marked not counted in every row
  };
  const std::vector<Case> cases = {
      {"cache-misses", {"cache-misses"}},
      {"ipc", {"cycles", "instructions"}},
      {"L1-dcache-load-misses", {"L1-dcache-load-misses"}},
      {"cycles:u,instructions:k", {"cycles:u", "instructions:k"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.list);
    Result r = RunBench({"--perf_counters=" + c.list,
                         "--benchmark_filter=^BM_(TouchPages/4/threads:1|"
                         "Spin)$",
                         kMinTime});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("does not use perfcounters::Measure")));
    EXPECT_THAT(r.err, Not(HasSubstr("warning: BM_")));
    EXPECT_THAT(r.err, HasSubstr(": not counted — "));
    for (const std::string& key : c.keys) EXPECT_THAT(r.err, HasSubstr(key));
    for (const char* name : {"BM_TouchPages/4/threads:1", "BM_Spin"}) {
      const nlohmann::json& e = r.Entry(name);
      ASSERT_TRUE(e.is_object()) << r.json_text;
      for (const std::string& key : c.keys) {
        EXPECT_EQ(PerIteration(e, key + ".not_counted"), 1) << e.dump();
        EXPECT_FALSE(e.contains(key)) << e.dump();
      }
    }
  }
}

// A Measure benchmark that skips its run has no profile for that reason,
// not for lacking Measure.
TEST(BenchmarkE2E, ProfileOfASkippedBenchmarkSaysItSkipped) {
  Result r =
      RunBench({"--perf_profile=auto",
                "--benchmark_filter=^BM_SkipOnOneThread/threads:1$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("does not use perfcounters::Measure")));
  if (r.err.find("no profiles") == std::string::npos) {  // sampling refused
    EXPECT_THAT(r.err, HasSubstr("perfcounters: note: "
                                 "BM_SkipOnOneThread/threads:1: no profile: "
                                 "it skipped its run (SkipWithError)"));
  }
}

// The cv aggregate of a counter that is 0 in every repetition (a benchmark
// without page faults) is 0 %, not gbench's 0/0 (-nan% on the console, a
// bare NaN in the JSON).
TEST(BenchmarkE2E, CvOfACounterThatIsAlwaysZeroIsZero) {
  Result r = RunBench({"--perf_counters=page-faults,task-clock",
                       "--benchmark_filter=^BM_Spin$",
                       "--benchmark_repetitions=3", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(PerIteration(r.Entry("BM_Spin_mean"), "page-faults"), 0)
      << r.json_text;
  EXPECT_EQ(PerIteration(r.Entry("BM_Spin_cv"), "page-faults"), 0)
      << r.json_text;
  EXPECT_GT(PerIteration(r.Entry("BM_Spin_cv"), "task-clock"), 0)
      << r.json_text;
  EXPECT_THAT(r.json_text, Not(HasSubstr("nan")));
  EXPECT_THAT(r.out, Not(HasSubstr("nan")));
}

// A profile event that cannot be sampled here points to one that can.
TEST(BenchmarkE2E, UnsampledProfileEventSuggestsAuto) {
  if (perfcounters::testing::WhyEventUnavailable("cycles").empty()) {
    GTEST_SKIP() << "cycles count here";
  }
  Result r = RunBench(
      {"--perf_profile=cycles", "--benchmark_filter=^BM_Spin$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  if (r.err.find("perf_event_paranoid") != std::string::npos) {
    GTEST_SKIP() << "sampling refused here: " << r.err;
  }
  EXPECT_THAT(r.err, HasSubstr("--perf_profile=cycles: no profiles: "));
  EXPECT_THAT(r.err, HasSubstr("--perf_profile=auto samples cycles where "
                               "they count, else cpu-clock"));
}

// An event given several times is counted once per copy, with a note.
TEST(BenchmarkE2E, RepeatedEventIsNoted) {
  Result r =
      RunBench({"--perf_counters=task-clock,page-faults,task-clock,"
                "task-clock",
                "--benchmark_filter=^BM_Spin$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("perfcounters: note: task-clock is requested "
                               "3 times: each copy is counted as a counter of "
                               "its own (task-clock#2 to task-clock#3)"));
  EXPECT_THAT(r.err, Not(HasSubstr("page-faults is requested")));
  EXPECT_GT(PerIteration(r.Entry("BM_Spin"), "task-clock#3"), 0);
}

TEST(BenchmarkE2E, NoEventsNoCounters) {
  Result r = RunBench({"--benchmark_filter=BM_PausedTouch", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_PausedTouch");
  ASSERT_TRUE(e.is_object());
  EXPECT_FALSE(e.contains("page-faults"));
}

TEST(BenchmarkE2E, HelpShowsOurFlagsThenGbenchs) {
  Result r = RunBench({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  const size_t ours = r.out.find("--perf_counters=LIST");
  const size_t theirs = r.out.find("--benchmark_filter");
  ASSERT_NE(ours, std::string::npos) << r.out;
  ASSERT_NE(theirs, std::string::npos) << r.out;
  EXPECT_LT(ours, theirs);
  EXPECT_THAT(r.out, HasSubstr("--benchmark_perf_counters=LIST"));
  EXPECT_THAT(r.out, HasSubstr("PERFCOUNTERS_EVENTS"));
}

TEST(BenchmarkE2E, ContextSaysTheReadPathAndTheCalibration) {
  Result r =
      RunBench({"--perf_counters=page-faults,task-clock",
                "--benchmark_filter=BM_TouchPages/4/threads:1$", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Software events are never on a hardware counter: read(2).
  EXPECT_EQ(Context(r, "perfcounters.read_path"), "syscall");
  EXPECT_THAT(r.err, HasSubstr("perfcounters.read_path: syscall"));
  EXPECT_EQ(Context(r, "perfcounters.calibrate"), "true");
  // An empty bracket takes no page fault but some time.
  EXPECT_EQ(Context(r, "perfcounters.calibration.page-faults"), "0");
  const std::string tc = Context(r, "perfcounters.calibration.task-clock");
  ASSERT_FALSE(tc.empty()) << r.json["context"].dump();
  EXPECT_GT(std::stoll(tc), 0);
  // Calibration keeps exact counts exact.
  const nlohmann::json& e = r.Entry("BM_TouchPages/4/threads:1");
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 4.0, 0)
      << e.dump();
}

TEST(BenchmarkE2E, CalibrationCanBeSwitchedOff) {
  Result r = RunBench({"--perf_counters=page-faults",
                       "--perf_counters_calibrate=false",
                       "--benchmark_filter=BM_PausedTouch", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Context(r, "perfcounters.calibrate"), "false");
  EXPECT_EQ(Context(r, "perfcounters.calibration.page-faults"), "");
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_PausedTouch"), "page-faults"), 2.0, 0);
}

TEST(BenchmarkE2E, ForcedSyscallPathAndBadReadValues) {
  Result r =
      RunBench({"--perf_counters=page-faults", "--perf_counters_read=syscall",
                "--benchmark_filter=BM_PausedTouch", kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Context(r, "perfcounters.read_path"), "syscall");
  EXPECT_TOUCHED_PAGE_FAULTS(
      PerIteration(r.Entry("BM_PausedTouch"), "page-faults"), 2.0, 0);

  r = RunBench({"--perf_counters=page-faults", "--perf_counters_read=rdpmc"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--perf_counters_read=rdpmc"));
  EXPECT_THAT(r.err, HasSubstr("--perf_counters_read=auto"));
}

TEST(BenchmarkE2E, ForcedUserPathRefusesSoftwareEvents) {
  Result r =
      RunBench({"--perf_counters=page-faults", "--perf_counters_read=user",
                "--benchmark_filter=BM_PausedTouch", kMinTime});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--perf_counters_read=user"));
  EXPECT_THAT(r.err, HasSubstr("page-faults is a software event"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_PausedTouch")));
}

// gbench's own non-JSON tokens (a cv of a mean of 0 is NaN) read as NaN.
TEST(BenchRunner, NonFiniteValuesReadAsNaN) {
  const nlohmann::json j = nlohmann::json::parse(
      ::perfcounters::testing::NonFiniteToNull(
          R"({"a": NaN, "b": -nan, "c": Infinity, "d": 1.5, "e": "NaN"})"),
      nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(std::isnan(PerIteration(j, "a")));
  EXPECT_TRUE(std::isnan(PerIteration(j, "b")));
  EXPECT_TRUE(std::isnan(PerIteration(j, "c")));
  EXPECT_EQ(PerIteration(j, "d"), 1.5);
  EXPECT_EQ(j["e"], "NaN");
}

TEST(BenchmarkE2E, TooSmallBatchIsWarnedAboutByName) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kSlowerCode);
  // One iteration of almost nothing: its task-clock is below the bracket's
  // own task-clock (a read(2) takes far longer than two instructions); a
  // 64-iteration loop of 10000 is not. The warning is about the last
  // repetition, when the code is warm.
  Result r = RunBench({"--perf_counters=task-clock",
                       "--benchmark_filter=BM_Tiny|BM_TwoInsnLoopFixed",
                       "--benchmark_repetitions=3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string spread =
      Context(r, "perfcounters.calibration.task-clock.spread");
  ASSERT_FALSE(spread.empty()) << r.json["context"].dump();
  EXPECT_THAT(r.err, HasSubstr("perfcounters: warning: BM_Tiny/iterations:1: "
                               "task-clock counted"));
  EXPECT_THAT(r.err, Not(HasSubstr("BM_TwoInsnLoopFixed/10000/iterations:64:"
                                   " task-clock counted")));
  // Still a number, never below 0.
  EXPECT_GE(PerIteration(r.Entry("BM_Tiny/iterations:1"), "task-clock"), 0.0)
      << r.out;
}

}  // namespace
