// benchmark_ext_unmodified_test: benchmarks without perfcounters::Measure
// (tests/e2e/unmodified_bench.cc) under --perf_counters. With a gbench
// that has a ProfilerManager (1.9 and newer; CMake's check says which one
// this test is built against) they are counted in gbench's extra run: 16
// page faults per iteration for 16 fresh pages, the threaded one counted
// on one thread and said so. Before 1.9 each is named in a warning and
// every event is not counted. The flag the warnings suggest is accepted by
// the linked gbench. --perf_profile changes no count: page faults per
// iteration are exactly the same with and without it, in Measure's run and
// in gbench's extra run. In the emulated arm64 machine, where user-space
// instructions are counted exactly, a plain loop around exactly 100
// instructions reads exactly what Measure reads for the same loop. The CSV
// output has every benchmark's columns.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "rows.h"
#include "support/bench_runner.h"
#include "support/hw.h"
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
  // One line for the reason, naming every benchmark it applies to.
  const std::string reason =
      ": page-faults: not counted: it does not use perfcounters::Measure";
  const size_t at = r.err.find(reason);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(reason, at + 1), std::string::npos) << r.err;
  // The line from our prefix on: gbench 1.8's LOG(0) lines (a bare
  // --benchmark_min_time) end without a newline, so the warning can share
  // a terminal line with them.
  const size_t begin = r.err.rfind("perfcounters: ", at);
  ASSERT_NE(begin, std::string::npos) << r.err;
  ASSERT_EQ(r.err.substr(begin, at - begin).find('\n'), std::string::npos)
      << r.err;
  const std::string line = r.err.substr(begin, r.err.find('\n', at) - begin);
  EXPECT_THAT(line, ::testing::StartsWith(
                        "perfcounters: warning: BM_Touch16, "
                        "BM_Touch16Threads/threads:2, BM_PausedTouch16"));
  EXPECT_THAT(line, ::testing::Not(::testing::HasSubstr("Measured")));
  for (const std::string name : {"BM_Touch16", "BM_Touch16Threads/threads:2"}) {
    int rows = 0;
    for (const nlohmann::json& e : r.json["benchmarks"]) {
      if (e["run_name"] != name) continue;
      ++rows;
      EXPECT_EQ(PerIteration(e, "page-faults.not_counted"), 1) << e.dump();
      EXPECT_FALSE(e.contains("page-faults")) << e.dump();
    }
    EXPECT_GT(rows, 0) << name << " " << r.json_text;
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
  const std::string flag = benchmark_ext_internal::MinTimeFlag(0.01);
  Result r = RunUnmodified(
      {"--perf_counters=page-faults", flag, "--benchmark_filter=BM_Touch16$"});
  EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr("expected"))) << flag;
  EXPECT_TRUE(r.Entry("BM_Touch16").is_object()) << flag << "\n" << r.out;
}

// gbench's CSV reporter takes its columns from the first benchmark it is
// given and aborts on a counter a later one adds: a plain loop (not counted
// before gbench 1.9) followed by a Measure loop (counted) once aborted it.
// Every benchmark's columns are in the header now, a not-counted value an
// empty cell beside its .not_counted column.
TEST(BenchmarkUnmodified, CsvHasEveryBenchmarksColumns) {
  Result r =
      RunUnmodified({"--perf_counters=page-faults", "--benchmark_format=csv",
                     kMinTime, "--benchmark_filter=^BM_(Measured)?Touch16$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> lines;
  for (absl::string_view line :
       absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    lines.push_back(absl::StrSplit(line, ','));
  }
  ASSERT_GE(lines.size(), 3u) << r.out;
  const std::vector<std::string>& header = lines[0];
  auto column = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), "\"" + name + "\"") -
           header.begin();
  };
  const size_t faults = column("page-faults");
  ASSERT_LT(faults, header.size()) << r.out;
  std::map<std::string, std::vector<std::string>> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].size(), header.size()) << r.out;
    rows[lines[i][0]] = lines[i];
  }
  ASSERT_EQ(rows.count("\"BM_MeasuredTouch16\""), 1u) << r.out;
  ASSERT_EQ(rows.count("\"BM_Touch16\""), 1u) << r.out;
  EXPECT_TOUCHED_PAGE_FAULTS(std::stod(rows["\"BM_MeasuredTouch16\""][faults]),
                             16.0, 0.5)
      << r.out;
  const std::vector<std::string>& plain = rows["\"BM_Touch16\""];
#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  EXPECT_TOUCHED_PAGE_FAULTS(std::stod(plain[faults]), 16.0, 0.5) << r.out;
#else
  const size_t not_counted = column("page-faults.not_counted");
  ASSERT_LT(not_counted, header.size()) << r.out;
  EXPECT_EQ(plain[faults], "") << r.out;
  EXPECT_EQ(plain[not_counted], "1") << r.out;
#endif
}

TEST(BenchmarkUnmodified, ProfilesChangeNoCounter) {
  const std::vector<std::string> args = {"--perf_counters=page-faults",
                                         "--benchmark_filter=Fixed"};
  Result plain = RunUnmodified(args);
  std::vector<std::string> with = args;
  with.push_back("--perf_profile=cpu-clock");
  Result profiled = RunUnmodified(with);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  for (const std::string name : {"BM_Touch16Fixed/iterations:64",
                                 "BM_MeasuredTouch16Fixed/iterations:64"}) {
    const nlohmann::json& a = plain.Entry(name);
    const nlohmann::json& b = profiled.Entry(name);
    ASSERT_TRUE(a.is_object()) << name << "\n" << plain.json_text;
    ASSERT_TRUE(b.is_object()) << name << "\n" << profiled.json_text;
    EXPECT_FALSE(a.contains("perfcounters_profile")) << a.dump();
    const bool counted =
        name.find("Measured") != std::string::npos || a.contains("page-faults");
    if (!counted) {
      // gbench before 1.9: not counted either way.
      EXPECT_EQ(PerIteration(a, "page-faults.not_counted"), 1) << a.dump();
      EXPECT_EQ(PerIteration(b, "page-faults.not_counted"), 1) << b.dump();
      continue;
    }
    EXPECT_TOUCHED_PAGE_FAULTS(PerIteration(a, "page-faults"), 16.0, 0.5)
        << a.dump();
    // Exactly equal in a plain build, where this is the check. Under a
    // sanitizer its shadow memory's own faults vary from run to run by
    // about a fault per iteration (seen under TSan: 55.03, 55.0, 54.0 and
    // 55.05 per iteration for the same 16 pages), so there only a profile
    // that cost half a fault per touched page or more is caught.
    const double slack =
        ::perfcounters::testing::kSanitizer != nullptr ? 8.0 : 0.0;
    EXPECT_NEAR(PerIteration(a, "page-faults"), PerIteration(b, "page-faults"),
                slack)
        << name << "\nwithout: " << a.dump() << "\nwith: " << b.dump();
    EXPECT_EQ(a["iterations"], b["iterations"]);
  }
#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  EXPECT_TRUE(profiled.Entry("BM_Touch16Fixed/iterations:64")
                  .contains("perfcounters_profile"))
      << profiled.json_text;
#endif
  EXPECT_TRUE(profiled.Entry("BM_MeasuredTouch16Fixed/iterations:64")
                  .contains("perfcounters_profile"))
      << profiled.json_text;
}

#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
// The least per-iteration `instructions:u` of `name`'s iteration rows (an
// interrupt inside a user-space read, whose seqlock then retries, only ever
// adds instructions); NaN when no row has it.
double LeastInstructions(const Result& r, const std::string& name) {
  double least = NAN;
  for (const nlohmann::json& e : r.json["benchmarks"]) {
    if (e["name"] != name || e.value("run_type", "") != "iteration") continue;
    const double v = PerIteration(e, "instructions:u");
    if (std::isnan(least) || v < least) least = v;
  }
  return least;
}
#endif

// Exact, in the emulated arm64 machine: 100 `nop`s per iteration plus the
// loop's own 2 instructions (optimized), 1000 iterations, counted in gbench's
// extra run for the plain loop and in Measure's own run for the other; the
// calibration leaves under 0.1 per iteration (100 per batch) in both, so
// both read 102.0 +- 0.1 and agree within 0.1 (optimized). The CTest test
// arm64.gbench-v1.9.5.benchmark_ext_unmodified_test runs this against a
// gbench with a ProfilerManager (PERFCOUNTERS_REQUIRE_PROFILER_MANAGER=1
// there: a build without one fails instead of skipping).
TEST(BenchmarkUnmodified, ExtraRunCountsTheInstructionsMeasureCounts) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  if (!HardwareRequired()) {
    GTEST_SKIP() << "exact counts need the emulated machine";
  }
#ifndef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  if (std::getenv("PERFCOUNTERS_REQUIRE_PROFILER_MANAGER") != nullptr) {
    FAIL() << "built against a Google Benchmark without a ProfilerManager, "
              "but PERFCOUNTERS_REQUIRE_PROFILER_MANAGER is set";
  }
  GTEST_SKIP() << "this Google Benchmark has no ProfilerManager: no extra "
                  "run (arm64.gbench-v1.9.5.* runs this against 1.9.5)";
#else
  Result r = RunUnmodified({"--perf_counters=instructions:u",
                            "--benchmark_filter=HundredNops",
                            "--benchmark_repetitions=3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double pass = LeastInstructions(r, "BM_HundredNops/iterations:1000");
  const double measured =
      LeastInstructions(r, "BM_MeasuredHundredNops/iterations:1000");
  std::printf("instructions:u per iteration: extra run %.4f, Measure %.4f\n",
              pass, measured);
  ASSERT_FALSE(std::isnan(pass)) << r.json_text;
  ASSERT_FALSE(std::isnan(measured)) << r.json_text;
#ifdef __OPTIMIZE__
  EXPECT_NEAR(pass, measured, 0.1) << r.json_text;
  EXPECT_NEAR(pass, 102.0, 0.1) << r.json_text;
  EXPECT_NEAR(measured, 102.0, 0.1) << r.json_text;
#else
  // Unoptimized, gbench's loop and Measure's are different code of more
  // than 2 instructions each: at least the 100 in both.
  EXPECT_GE(pass, 100.0) << r.json_text;
  EXPECT_GE(measured, 100.0) << r.json_text;
#endif
#endif
}

}  // namespace
}  // namespace perfcounters::testing
