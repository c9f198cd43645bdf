// benchmark_ext_pause_test.cc: what perfcounters::PauseTiming/ResumeTiming
// per iteration costs gbench's own CPU column, and what it leaves in the
// counts, where the counters are read with read(2) (task-clock): the
// counters then pause outside gbench's timer, and gbench's pause and resume,
// which they count, are calibrated away. Runs tests/e2e/e2e_bench.cc's
// BM_PausePerIteration (a 100-instruction body with a pause pair per
// iteration: gbench's own pause, perfcounters' in Measure, and Measure
// without the pause) and reads its JSON output. Bounds come from CPU times
// measured in the same run, repetitions interleaved at random so that a
// change of load falls on every variant alike.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"

namespace {

using ::perfcounters::testing::Context;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;

constexpr int kRepetitions = 9;

// The median over the repetitions of `key` (cpu_time or a counter) of the
// entries named `name`; NaN when there are none.
double Median(const Result& r, const std::string& name,
              const std::string& key) {
  std::vector<double> v;
  if (!r.json.is_object()) return NAN;
  for (const nlohmann::json& b : r.json["benchmarks"]) {
    if (b["name"] != name || b.value("run_type", "") != "iteration" ||
        !b.contains(key) || b[key].is_null()) {
      continue;
    }
    v.push_back(b[key].get<double>());
  }
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Result RunPauses(const std::string& calibrate) {
  return RunBench(
      {"--perf_counters=task-clock", "--perf_counters_calibrate=" + calibrate,
       "--benchmark_filter=^BM_PausePerIteration/", "--benchmark_min_time=0.05",
       "--benchmark_repetitions=" + std::to_string(kRepetitions),
       "--benchmark_enable_random_interleaving=true"});
}

// Issue 38's target is gbench's CPU within 10 % of its own pause's; on a
// shared, loaded machine the medians of two variants differ by more than
// that by chance, so the bound is 1.5x: the counters' read(2) calls inside
// gbench's timer (the order kept for user-space reads) made it 2.5-5.5x.
constexpr double kMostCpuOverGbenchPause = 1.5;

TEST(BenchmarkExtPause, SyscallReadsStayOutOfGbenchsTimer) {
  const Result r = RunPauses("true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Context(r, "perfcounters.read_path"), "syscall");
  EXPECT_THAT(Context(r, "perfcounters.pause_order"),
              ::testing::HasSubstr("outside gbench's timer"));
  const double gbench = Median(r, "BM_PausePerIteration/gbench", "cpu_time");
  const double measure = Median(r, "BM_PausePerIteration/measure", "cpu_time");
  std::printf(
      "cpu_time per iteration: gbench's pause %.1f ns, Measure's %.1f "
      "ns (%.2fx)\n",
      gbench, measure, measure / gbench);
  ASSERT_FALSE(std::isnan(gbench + measure)) << r.json_text;
  EXPECT_LE(measure, kMostCpuOverGbenchPause * gbench);
}

// gbench's pause and resume are in every paused interval's count: with
// calibration on, the count per iteration keeps at most half of what
// gbench's pair and the reads leave without it (measured under load 8 on 2
// cores: 223 to 1471 ns of ~4300 ns kept; docs/benchmark_ext.md).
TEST(BenchmarkExtPause, CalibrationTakesGbenchsPauseOutOfTheCounts) {
  const Result on = RunPauses("true");
  const Result off = RunPauses("false");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const double base_on =
      Median(on, "BM_PausePerIteration/nopause", "task-clock");
  const double base_off =
      Median(off, "BM_PausePerIteration/nopause", "task-clock");
  const double kept_on =
      Median(on, "BM_PausePerIteration/measure", "task-clock") - base_on;
  const double kept_off =
      Median(off, "BM_PausePerIteration/measure", "task-clock") - base_off;
  std::printf(
      "task-clock per pause over the unpaused loop: %.1f ns "
      "calibrated, %.1f ns not\n",
      kept_on, kept_off);
  ASSERT_FALSE(std::isnan(kept_on + kept_off));
  // Without calibration the pause's bracket holds two of gbench's clock
  // reads and two read(2) calls: well above 0.
  EXPECT_GT(kept_off, 0.0);
  EXPECT_LE(kept_on, 0.5 * kept_off);
}

}  // namespace
