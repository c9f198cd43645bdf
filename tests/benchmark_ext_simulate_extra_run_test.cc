// benchmark_ext_simulate_extra_run_test.cc: the simulated counting source
// (--perf_counters_source=simulate) on unmodified `for (auto _ : state)`
// benchmarks, counted in gbench's extra run (gbench 1.9 and newer; before,
// not counted with the reason). Runs tests/e2e/simulate_bench.cc; the
// oracles are the binary's disassembly and plain callgrind
// (support/simulate_bench.h). Skips where valgrind is not installed.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/simulate_bench.h"

namespace {

using ::perfcounters::testing::Result;
using ::perfcounters::testing::simulate::kNops;
using ::perfcounters::testing::simulate::LoopInstructions;
using ::perfcounters::testing::simulate::PlainCallgrindSelf;
using ::perfcounters::testing::simulate::Residual;
using ::perfcounters::testing::simulate::Simulate;
using ::perfcounters::testing::simulate::Value;
using ::testing::HasSubstr;

// Unmodified `for (auto _ : state)` loops: from gbench 1.9 on counted in
// gbench's extra run (its ProfilerManager), only the benchmark function's
// own costs (callgrind's call graph, gbench's loop functions cut out): per
// run the loop's instructions from the disassembly at every iteration
// plus the same few of the function's own code, at every count and in
// every run, its slope plain callgrind's; before 1.9 not counted, saying
// why.
TEST(Simulate, UnmodifiedLoopsAreCountedInGbenchsExtraRun) {
  REQUIRE_VALGRIND();
  const std::vector<std::string> args = {"--perf_counters=instructions",
                                         "--benchmark_filter=BM_PlainNops37"};
  Result r = Simulate(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string counting =
      r.json["context"].value("perfcounters.counting", "");
  if (counting.find("extra run") == std::string::npos) {
    const nlohmann::json& e = r.Entry("BM_PlainNops37/iterations:10");
    ASSERT_TRUE(e.is_object()) << r.json_text;
    EXPECT_EQ(e.value("instructions.not_counted", 0.0), 1.0) << e.dump();
    EXPECT_FALSE(e.contains("instructions")) << e.dump();
    EXPECT_THAT(r.err, HasSubstr("has no ProfilerManager"));
    EXPECT_THAT(counting, HasSubstr("older than 1.9"));
    return;
  }
  const int loop = LoopInstructions("BM_PlainNops37(benchmark::State&)", "nop");
  ASSERT_GT(loop, kNops) << "no loop of 37 nops in BM_PlainNops37";
  std::map<int64_t, int64_t> residual;
  for (int64_t n : {10, 1000, 100000}) {
    const std::string name = "BM_PlainNops37/iterations:" + std::to_string(n);
    const nlohmann::json& e = r.Entry(name);
    ASSERT_TRUE(e.is_object()) << name << "\n" << r.json_text;
    EXPECT_EQ(e.value("perfcounters.pass_threads", 0.0), 1.0) << e.dump();
    const double v = Value(r, name, "instructions");
    ASSERT_FALSE(std::isnan(v)) << name << "\n" << r.json_text;
    EXPECT_NEAR(v * n, std::round(v * n), 1e-6 * n) << name;
    residual[n] = Residual(v, n, loop);
  }
  // What is left besides the iterations is the function's own code around
  // its loop that runs between gbench's loop start and end: the same at
  // every count (measured 9 with gbench 1.9.5, gcc 12 -O2).
  EXPECT_EQ(residual[10], residual[1000]);
  EXPECT_EQ(residual[10], residual[100000]);
  EXPECT_GE(residual[10], 0);
  // The oracle: plain callgrind's count of the function's own instructions
  // in a native run of each count. The slope is the same, exactly, and the
  // residual is part of what it counts besides the iterations.
  const double plain10 = PlainCallgrindSelf("BM_PlainNops37(benchmark::State&)",
                                            "BM_PlainNops37/iterations:10$");
  const double plain1000 = PlainCallgrindSelf(
      "BM_PlainNops37(benchmark::State&)", "BM_PlainNops37/iterations:1000$");
  ASSERT_FALSE(std::isnan(plain10) || std::isnan(plain1000));
  EXPECT_EQ(std::llround(plain1000 - plain10), 990 * loop);
  EXPECT_EQ(
      std::llround(Value(r, "BM_PlainNops37/iterations:1000", "instructions") *
                   1000) -
          std::llround(
              Value(r, "BM_PlainNops37/iterations:10", "instructions") * 10),
      std::llround(plain1000 - plain10));
  EXPECT_LE(residual[10], std::llround(plain10) - 10 * loop);
  Result again = Simulate(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  for (int64_t n : {10, 1000, 100000}) {
    const std::string name = "BM_PlainNops37/iterations:" + std::to_string(n);
    EXPECT_EQ(Value(r, name, "instructions"),
              Value(again, name, "instructions"))
        << name;
  }
}

}  // namespace
