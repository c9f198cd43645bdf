// benchmark_ext_unmodified_test: benchmarks without perfcounters::Measure
// (tests/e2e/unmodified_bench.cc) under --perf_counters. With a gbench
// that has a ProfilerManager (1.9 and newer; CMake's check says which one
// this test is built against) they are counted in gbench's extra run: 16
// page faults per iteration for 16 fresh pages, the threaded one counted
// on one thread and said so. Before 1.9 each is named in a warning and
// every event is not counted. The flag the warnings suggest is accepted by
// the linked gbench.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "rows.h"
#include "support/bench_runner.h"
#include "support/sanitizers.h"

namespace perfcounters::testing {
namespace {

constexpr char kUnmodified[] = "perfcounters_unmodified_bench";

Result RunUnmodified(std::vector<std::string> args) {
  RunOptions options;
  options.binary = kUnmodified;
  return RunBench(std::move(args), options);
}

TEST(BenchmarkUnmodified, EveryBenchmarkIsCountedOrNamedWithTheReason) {
  Result r = RunUnmodified(
      {"--perf_counters=page-faults", kMinTime, "--benchmark_repetitions=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.json.is_object()) << r.out;
  const std::string counting =
      r.json["context"].value("perfcounters.counting", std::string());
  // Measure's benchmark is counted in its own run on every version.
  const nlohmann::json& measured = r.Entry("BM_MeasuredTouch16");
  ASSERT_TRUE(measured.is_object()) << r.json_text;
  EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(measured, "page-faults"), 16.0, 0.5)
      << measured.dump();
  EXPECT_FALSE(measured.contains("perfcounters.pass_threads"));
#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  EXPECT_THAT(counting, ::testing::HasSubstr("ProfilerManager"));
  EXPECT_THAT(counting, ::testing::HasSubstr("one thread"));
  for (const std::string name : {"BM_Touch16", "BM_Touch16Threads/threads:2"}) {
    for (const nlohmann::json& e : r.json["benchmarks"]) {
      if (e["run_name"] != name) continue;
      const std::string agg = e.value("aggregate_name", std::string());
      if (agg == "stddev" || agg == "cv") continue;
      EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 16.0, 0.5)
          << e.dump();
      EXPECT_EQ(PerIteration(e, "perfcounters.pass_threads"), 1) << e.dump();
      EXPECT_FALSE(e.contains("page-faults.not_counted")) << e.dump();
    }
  }
  EXPECT_THAT(r.err, ::testing::HasSubstr(
                         "BM_Touch16Threads/threads:2: counted in gbench's "
                         "extra run on one thread"));
#else
  EXPECT_THAT(counting, ::testing::HasSubstr("not counted"));
  for (const std::string name : {"BM_Touch16", "BM_Touch16Threads/threads:2"}) {
    int rows = 0;
    for (const nlohmann::json& e : r.json["benchmarks"]) {
      if (e["run_name"] != name) continue;
      ++rows;
      EXPECT_EQ(PerIteration(e, "page-faults.not_counted"), 1) << e.dump();
      EXPECT_FALSE(e.contains("page-faults")) << e.dump();
    }
    EXPECT_GT(rows, 0) << name << " " << r.json_text;
    EXPECT_THAT(r.err, ::testing::HasSubstr(name + ": page-faults: not "
                                                   "counted: it does not use "
                                                   "perfcounters::Measure"));
  }
  EXPECT_THAT(r.err, ::testing::HasSubstr("Google Benchmark 1.9 or newer"));
#endif
}

// gbench's state.PauseTiming() does not pause the extra run's counters:
// the paused pages are counted, and the counters' CPU time exceeds what
// gbench timed, which the main warns about with the repetitions concerned.
// A benchmark that does not pause is not warned about.
TEST(BenchmarkUnmodified, PausedTimerInTheExtraRunIsWarnedAbout) {
#ifndef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  GTEST_SKIP() << "this Google Benchmark has no ProfilerManager: no extra run";
#else
  Result r = RunUnmodified({"--perf_counters=page-faults", kMinTime,
                            "--benchmark_repetitions=3",
                            "--benchmark_filter=BM_(Paused)?Touch16$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const nlohmann::json& e : r.json["benchmarks"]) {
    if (e["run_name"] != "BM_PausedTouch16" ||
        e.value("run_type", "") != "iteration") {
      continue;
    }
    // 16 timed and 112 paused pages, all counted.
    EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(e, "page-faults"), 128.0, 0.5)
        << e.dump();
  }
  EXPECT_THAT(r.err, ::testing::ContainsRegex(
                         "BM_PausedTouch16: in gbench's extra run the "
                         "counters ran for [0-9.]+ ms of CPU time where "
                         "gbench timed [0-9.]+ ms for the same iterations"));
  EXPECT_THAT(r.err, ::testing::HasSubstr(
                         "counts the paused regions (its values include "
                         "them); use perfcounters::Measure with "
                         "perfcounters::PauseTiming(state) and "
                         "perfcounters::ResumeTiming(state) to leave them "
                         "out [repetitions 0, 1, 2 of 3]"));
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr(
                         "BM_Touch16: in gbench's extra run")));
#endif
}

TEST(BenchmarkUnmodified, SuggestedMinTimeFlagIsAcceptedByThisGbench) {
  const std::string flag = bench_internal::MinTimeFlag(0.01);
  Result r = RunUnmodified(
      {"--perf_counters=page-faults", flag, "--benchmark_filter=BM_Touch16$"});
  EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr("expected"))) << flag;
  EXPECT_TRUE(r.Entry("BM_Touch16").is_object()) << flag << "\n" << r.out;
}

}  // namespace
}  // namespace perfcounters::testing
