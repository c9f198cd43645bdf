// benchmark_ext_e2e_hardware_test.cc: end-to-end tests of the gbench
// integration that need a hardware PMU (they run in the emulated arm64
// machine and skip natively): calibration, exact instructions and IPC,
// libpfm4 names, multiplexing. Each runs tests/e2e/e2e_bench.cc
// (perfcounters_e2e_bench) and reads its JSON output
// (support/bench_runner.h). The others: benchmark_ext_e2e_test.cc.
#include <cstdio>
#include <map>
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
using ::perfcounters::testing::PerIteration;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;
using ::perfcounters::testing::WithEnv;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(BenchmarkE2EHardware, CalibrationBringsInstructionsCloserToTheLoop) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  const std::string name = "BM_TwoInsnLoopFixed/10000/iterations:64";
  double value[2];
  std::string calibration;
  for (int calibrate = 0; calibrate < 2; ++calibrate) {
    Result r = RunBench({"--perf_counters=instructions",
                         std::string("--perf_counters_calibrate=") +
                             (calibrate ? "true" : "false"),
                         "--benchmark_filter=BM_TwoInsnLoopFixed"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The emulated machine offers user-space reads of instructions.
    EXPECT_EQ(Context(r, "perfcounters.read_path"), "user-space") << r.err;
    const nlohmann::json& e = r.Entry(name);
    ASSERT_TRUE(e.is_object()) << r.out;
    value[calibrate] = PerIteration(e, "instructions");
    if (calibrate) {
      calibration = Context(r, "perfcounters.calibration.instructions");
    }
  }
  ASSERT_FALSE(calibration.empty());
  const double bracket = std::stod(calibration);
  std::printf(
      "instructions per iteration of a 10000-loop (2 per loop): "
      "uncalibrated %.4f, calibrated %.4f, bracket %.0f\n",
      value[0], value[1], bracket);
  // Exactly one bracket per batch (one batch of 64 iterations) subtracted,
  // never below the loop's own 2 instructions per loop iteration.
  EXPECT_GT(bracket, 0.0);
  EXPECT_NEAR((value[0] - value[1]) * 64, bracket, 1e-6 * value[0] * 64);
  EXPECT_LT(value[1], value[0]);
  EXPECT_GE(value[1], 20000.0);
}

// 2 per loop iteration plus the benchmark's own code per iteration (the
// Measure loop, the call: 1 loop iteration's run measures it in the same
// binary, whatever the build type made of it).
TEST(BenchmarkE2EHardware, ExactInstructionsPerIterationAndIpc) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  Result r = RunBench({"--perf_counters=instructions,cycles",
                       "--benchmark_filter=BM_TwoInsnLoop/(1|10000)$",
                       "--benchmark_min_time=0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& one = r.Entry("BM_TwoInsnLoop/1");
  ASSERT_TRUE(one.is_object()) << r.out;
  const nlohmann::json& e = r.Entry("BM_TwoInsnLoop/10000");
  ASSERT_TRUE(e.is_object()) << r.out;
  const double own = PerIteration(one, "instructions") - 2;
  const double insns = PerIteration(e, "instructions");
  std::printf(
      "instructions per iteration of a 10000-loop: %.4f; the benchmark's own "
      "per iteration: %.4f\n",
      insns, own);
  // Exact but for a batch's calibration leftover (at most 1 instruction in
  // optimized code, benchmark_ext_accuracy_test) over its hundreds of
  // iterations.
  EXPECT_GE(own, 0.0);
  EXPECT_NEAR(insns, 20000.0 + own, 0.1) << e.dump();
  const double cycles = PerIteration(e, "cycles");
  ASSERT_GT(cycles, 0);
  EXPECT_NEAR(PerIteration(e, "ipc"), insns / cycles, 1e-9 * insns / cycles);
  EXPECT_FALSE(e.contains("instructions.coverage"));
}

// Google Benchmark's spellings (libpfm4's names, through gbench's own flag
// name) count exactly what the generic names count, per iteration, in the
// emulated machine whose counts are deterministic. libpfm4 knows no table
// for QEMU's -cpu max, so there the benchmark is given the Cortex-A57 table
// (LIBPFM_FORCE_PMU); under --cpu cortex-a57 libpfm detects it.
TEST(BenchmarkE2EHardware, LibpfmNamesGiveTheGenericNamesPerIterationValues) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  if (!perfcounters::testing::HardwareRequired()) {
    GTEST_SKIP() << "exact equality needs the emulated machine's "
                    "deterministic counts";
  }
  ASSERT_TRUE(perfcounters::HaveLibpfm()) << "this build lacks libpfm4";
  absl::StatusOr<std::vector<std::string>> tables =
      perfcounters::VendorTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  std::map<std::string, std::string> env;
  if (tables->empty()) env["LIBPFM_FORCE_PMU"] = "arm_ac57";
  const std::string name = "BM_TwoInsnLoopFixed/10000/iterations:64";
  const std::vector<std::string> common = {
      "--perf_counters_calibrate=false",
      "--benchmark_filter=BM_TwoInsnLoopFixed/10000"};
  std::vector<std::string> args = common;
  args.push_back("--perf_counters=instructions,cycles");
  Result generic = RunBench(args, WithEnv(env));
  args = common;
  args.push_back("--benchmark_perf_counters=INST_RETIRED,CPU_CYCLES");
  Result vendor = RunBench(args, WithEnv(env));
  ASSERT_EQ(generic.exit_code, 0) << generic.err;
  ASSERT_EQ(vendor.exit_code, 0) << vendor.err;
  const nlohmann::json& g = generic.Entry(name);
  const nlohmann::json& v = vendor.Entry(name);
  ASSERT_TRUE(g.is_object()) << generic.out;
  ASSERT_TRUE(v.is_object()) << vendor.out;
  std::printf(
      "per iteration: instructions %.4f INST_RETIRED %.4f, "
      "cycles %.4f CPU_CYCLES %.4f\n",
      PerIteration(g, "instructions"), PerIteration(v, "INST_RETIRED"),
      PerIteration(g, "cycles"), PerIteration(v, "CPU_CYCLES"));
  EXPECT_GE(PerIteration(g, "instructions"), 20000.0);
  EXPECT_EQ(PerIteration(v, "INST_RETIRED"), PerIteration(g, "instructions"));
  EXPECT_EQ(PerIteration(v, "CPU_CYCLES"), PerIteration(g, "cycles"));
}

TEST(BenchmarkE2EHardware, MultiplexedCountersAreScaledAndShowCoverage) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  std::string list = "instructions";
  for (int i = 2; i <= 12; ++i) list += ",instructions";
  // 2e6 instructions per iteration; gbench's batches of 0.3 s of guest
  // time give each event enough multiplexing slices (4 ms each).
  Result r = RunBench({"--perf_counters=" + list,
                       "--benchmark_filter=BM_TwoInsnLoop/1000000$",
                       "--benchmark_min_time=0.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_TwoInsnLoop/1000000");
  ASSERT_TRUE(e.is_object()) << r.out;
  int multiplexed = 0;
  for (int i = 1; i <= 12; ++i) {
    const std::string key =
        i == 1 ? "instructions" : "instructions#" + std::to_string(i);
    ASSERT_TRUE(e.contains(key)) << key << " " << e.dump();
    EXPECT_NEAR(PerIteration(e, key), 2e6, 2e6 * 0.01) << key;
    if (e.contains(key + ".coverage")) {
      ++multiplexed;
      EXPECT_GT(PerIteration(e, key + ".coverage"), 0.0);
      EXPECT_LT(PerIteration(e, key + ".coverage"), 1.0);
    }
  }
  EXPECT_GT(multiplexed, 0) << "12 events cannot all be on the PMU at once";
  // 0.3 s = 75 rotations of 4 ms: long enough, not warned about.
  EXPECT_THAT(r.err, Not(HasSubstr(" was multiplexed ")));
}

}  // namespace
