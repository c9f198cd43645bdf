// benchmark_ext_simulate_test.cc: the simulated counting source
// (--perf_counters_source=simulate, Valgrind's callgrind) end to end. Runs
// tests/e2e/simulate_bench.cc (perfcounters_simulate_bench) and reads its
// JSON; the loops' own instructions come from the binary's disassembly
// (objdump), the oracle from plain callgrind (support/simulate_bench.h).
// Skips, saying so, where valgrind is not installed. Unmodified loops:
// benchmark_ext_simulate_extra_run_test.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/simulate_bench.h"
#include "support/subprocess.h"

namespace {

using ::perfcounters::testing::FindBench;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;
using ::perfcounters::testing::RunOptions;
using ::perfcounters::testing::WithEnv;
using ::perfcounters::testing::simulate::CallgrindPerCall;
using ::perfcounters::testing::simulate::Capture;
using ::perfcounters::testing::simulate::kNops;
using ::perfcounters::testing::simulate::kSimBench;
using ::perfcounters::testing::simulate::LoopInstructions;
using ::perfcounters::testing::simulate::Residual;
using ::perfcounters::testing::simulate::Simulate;
using ::perfcounters::testing::simulate::Value;
using ::testing::HasSubstr;

TEST(Simulate, NopLoopReadsItsInstructionsExactlyAtEveryCount) {
  REQUIRE_VALGRIND();
  const int loop = LoopInstructions("BM_Nops37(benchmark::State&)", "nop");
  ASSERT_GT(loop, kNops) << "no loop of 37 nops in BM_Nops37's disassembly";
  const int64_t per_iteration = loop;  // 37 nops + the loop's control
  std::vector<std::string> runs;
  for (int run = 0; run < 2; ++run) {
    // One thread: with several, their simulated misses depend on how
    // valgrind interleaves them (est_cycles).
    Result r = Simulate(
        {"--perf_counters=instructions",
         "--benchmark_filter=(BM_Nops37|BM_PausedNops37)/iterations:[0-9]+$"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<int64_t, int64_t> residual;
    for (int64_t n : {10, 1000, 100000}) {
      const std::string name = "BM_Nops37/iterations:" + std::to_string(n);
      const double v = Value(r, name, "instructions");
      ASSERT_FALSE(std::isnan(v)) << name << "\n" << r.json_text;
      // A whole number of instructions per batch.
      EXPECT_NEAR(v * n, std::round(v * n), 1e-6 * n) << name;
      residual[n] = Residual(v, n, per_iteration);
    }
    // The same few instructions per batch at every count (the function's
    // own code around its loop), so per iteration exactly the loop.
    EXPECT_EQ(residual[10], residual[1000]);
    EXPECT_EQ(residual[10], residual[100000]);
    EXPECT_GE(residual[10], 0);
    EXPECT_LE(residual[10], 8);
    EXPECT_NEAR(Value(r, "BM_Nops37/iterations:100000", "instructions"),
                per_iteration, 1e-4);
    // An empty pause per iteration adds nothing per iteration.
    const double p10 =
        Value(r, "BM_PausedNops37/iterations:10", "instructions");
    const double p1000 =
        Value(r, "BM_PausedNops37/iterations:1000", "instructions");
    EXPECT_EQ(std::llround(p1000 * 1000) - std::llround(p10 * 10),
              990 * per_iteration)
        << p10 << " " << p1000;
    runs.push_back(r.json["benchmarks"].dump());
  }
  // Bit-identical values run to run (times aside).
  auto counters = [](const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text);
    for (nlohmann::json& b : j) {
      for (const char* k : {"real_time", "cpu_time"}) b.erase(k);
    }
    return j.dump();
  };
  EXPECT_EQ(counters(runs[0]), counters(runs[1]));
}

TEST(Simulate, PerIterationInstructionsMatchPlainCallgrind) {
  REQUIRE_VALGRIND();
  const int loop = LoopInstructions("BM_CallWork(benchmark::State&)", "Work");
  ASSERT_GT(loop, 0) << "no loop calling Work in BM_CallWork";
  char dir_template[] = "/tmp/pc_sim_oracle_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string out = dir + "/callgrind.out";
  const std::string cmd =
      "valgrind -q --tool=callgrind --callgrind-out-file=" + out + " '" +
      FindBench(kSimBench) + "' --benchmark_filter=BM_CallWork >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const double work = CallgrindPerCall(out, "Work(unsigned long)");
  std::remove(out.c_str());
  rmdir(dir.c_str());
  ASSERT_FALSE(std::isnan(work)) << "Work not found in callgrind's output";
  ASSERT_GT(work, 257);

  Result r = Simulate(
      {"--perf_counters=instructions", "--benchmark_filter=BM_CallWork"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double v100 = Value(r, "BM_CallWork/iterations:100", "instructions");
  const double v300 = Value(r, "BM_CallWork/iterations:300", "instructions");
  // The per-iteration slope: Work's cost per call plus the loop's own
  // instructions (the call among them), exactly.
  EXPECT_EQ(std::llround(v300 * 300) - std::llround(v100 * 100),
            std::llround(200 * (work + loop)))
      << "callgrind: " << work << " per call of Work, loop " << loop
      << "; ours " << v100 << ", " << v300;
}

TEST(Simulate, SequentialPassMissesOncePerLine) {
  REQUIRE_VALGRIND();
  Result r = Simulate({"--perf_counters=L1-dcache-load-misses,L1-dcache-loads",
                       "--benchmark_filter=BM_Sequential"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double misses =
      Value(r, "BM_Sequential/iterations:4", "L1-dcache-load-misses");
  const double elements = 1 << 18;
  // 8 elements per 64-byte line of the simulated L1.
  EXPECT_NEAR(misses, elements / 8, elements / 8 * 0.01) << r.json_text;
  EXPECT_GE(Value(r, "BM_Sequential/iterations:4", "L1-dcache-loads"),
            elements / 2);  // at least one load per two elements
}

// A pass over 2^14 random bytes with a conditional jump on each (asm, so
// it stays a jump): callgrind's predictor misses half of them; over the
// same bytes sorted, almost none.
TEST(Simulate, BranchMissesFollowTheData) {
  REQUIRE_VALGRIND();
#if defined(__x86_64__)
  EXPECT_GT(LoopInstructions(
                "CountBelow128(unsigned char const*, unsigned long)", "jae"),
            0)
      << "no conditional jump in CountBelow128's loop";
#endif
  Result r = Simulate({"--perf_counters=branches,branch-misses",
                       "--benchmark_filter=BM_Branch/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double elements = 1 << 14;
  const double random = Value(r, "BM_Branch/sorted:0", "branch-misses");
  const double sorted = Value(r, "BM_Branch/sorted:1", "branch-misses");
  EXPECT_NEAR(random / elements, 0.5, 0.5 * 0.05) << r.json_text;
  EXPECT_LT(sorted / elements, 0.01) << r.json_text;
  // The data's jump and the loop's own, per element.
  for (const char* name : {"BM_Branch/sorted:0", "BM_Branch/sorted:1"}) {
    EXPECT_GE(Value(r, name, "branches"), 2 * elements) << name;
  }
}

// 2^18 steps of a random cycle through 64 MiB (8 x the simulated LL), one
// line per node, each line visited once, the LL flushed before the loop:
// one L1 and one LL miss per step.
TEST(Simulate, RandomChaseMissesL1AndLlOncePerStep) {
  REQUIRE_VALGRIND();
  Result r = Simulate(
      {"--perf_counters=L1-dcache-load-misses,LLC-load-misses,L1-dcache-loads",
       "--benchmark_filter=BM_Chase"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double steps = 1 << 16;  // per iteration
  const std::string name = "BM_Chase/iterations:4";
  EXPECT_NEAR(Value(r, name, "L1-dcache-load-misses") / steps, 1, 0.01)
      << r.json_text;
  EXPECT_NEAR(Value(r, name, "LLC-load-misses") / steps, 1, 0.01)
      << r.json_text;
  EXPECT_NEAR(Value(r, name, "L1-dcache-loads") / steps, 1, 0.01)
      << r.json_text;
}

// The iteration count the simulator fixed for benchmarks that set none,
// from the context (-1 when it says none).
int64_t FixedIterations(const Result& r) {
  const std::string source = r.json["context"].value("perfcounters.source", "");
  if (source.find("--benchmark_min_time=100x") != std::string::npos) return 100;
  if (source.find("--benchmark_min_time=0,") != std::string::npos) return 1;
  return -1;
}

// Two runs of the same binary with the same arguments, also for
// benchmarks that leave their iteration count to gbench (fixed by the
// simulator on every gbench): the counts (instructions, loads, branches,
// iterations) bit for bit. The simulated caches and branch predictor start
// each batch in the state the code before left them in, gbench's printing
// of the previous run's (valgrind's, varying) times included, so misses
// may differ by a count or two: measured 8164 vs 8165 branch-misses of
// BM_Branch/sorted:0 once in ten pairs of runs.
TEST(Simulate, TwoRunsGiveBitIdenticalCounts) {
  REQUIRE_VALGRIND();
  const std::vector<std::string> args = {
      "--perf_counters=instructions,L1-dcache-loads,L1-dcache-load-misses,"
      "L1-icache-load-misses,LLC-load-misses,branches,branch-misses",
      "--benchmark_filter=BM_Branch/|BM_Sequential|BM_CallWork"};
  std::vector<nlohmann::json> rows;
  for (int run = 0; run < 2; ++run) {
    Result r = Simulate(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const int64_t fixed = FixedIterations(r);
    ASSERT_GT(fixed, 0) << r.json["context"].dump();
    for (const char* name : {"BM_Branch/sorted:0", "BM_Branch/sorted:1"}) {
      EXPECT_EQ(r.Entry(name).value("iterations", int64_t{0}), fixed) << name;
    }
    nlohmann::json benchmarks = r.json["benchmarks"];
    ASSERT_EQ(benchmarks.size(), 5u) << r.json_text;
    for (nlohmann::json& b : benchmarks) {
      EXPECT_TRUE(b.contains("instructions")) << b.dump();
      EXPECT_TRUE(b.contains("L1-dcache-load-misses")) << b.dump();
      for (const char* k : {"real_time", "cpu_time"}) b.erase(k);
    }
    rows.push_back(std::move(benchmarks));
  }
  for (size_t i = 0; i < rows[0].size(); ++i) {
    nlohmann::json a = rows[0][i];
    nlohmann::json b = rows[1][i];
    const double n = a.value("iterations", 1.0);
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string& k = it.key();
      const bool model =
          k.find("miss") != std::string::npos || k.rfind("est_", 0) == 0;
      if (!model) continue;
      const double x = it.value().get<double>() * n;
      const double y = b.value(k, NAN) * n;
      EXPECT_NEAR(x, y, 2 + 1e-3 * std::abs(x)) << a["name"] << " " << k;
    }
    for (nlohmann::json* j : {&a, &b}) {
      for (auto it = j->begin(); it != j->end();) {
        it = it.key().find("miss") != std::string::npos ||
                     it.key().rfind("est_", 0) == 0
                 ? j->erase(it)
                 : std::next(it);
      }
    }
    EXPECT_EQ(a.dump(), b.dump());
  }
}

// As an ordinary user at perf_event_paranoid 3 (where Debian's kernels
// refuse perf_event_open to such a user outright; upstream kernels treat
// it as 2): the simulator opens nothing and counts the same as root.
TEST(Simulate, CountsAsAnOrdinaryUserAtParanoid3) {
  REQUIRE_VALGRIND();
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root (to set perf_event_paranoid and run as "
                    "nobody)";
  }
  const std::vector<std::string> args = {
      "--perf_counters=instructions",
      "--benchmark_filter=BM_Nops37/iterations:10$"};
  Result root = Simulate(args);
  ASSERT_EQ(root.exit_code, 0) << root.err;
  const double expected =
      Value(root, "BM_Nops37/iterations:10", "instructions");
  ASSERT_GT(expected, kNops);
  RunOptions nobody;
  nobody.as_nobody = true;
  Result r;
  {
    ::perfcounters::testing::ScopedParanoid paranoid(3);
    ASSERT_TRUE(paranoid.ok()) << "cannot set perf_event_paranoid to 3";
    r = Simulate(args, nobody);
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Value(r, "BM_Nops37/iterations:10", "instructions"), expected)
      << r.json_text;
  EXPECT_THAT(r.json["context"].value("perfcounters.source", ""),
              HasSubstr("simulate"));
}

TEST(Simulate, UnsimulatedEventsAreNotCountedWithTheReason) {
  REQUIRE_VALGRIND();
  Result r = Simulate({"--perf_counters=instructions,cycles,task-clock",
                       "--benchmark_filter=BM_Nops37/iterations:10$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_Nops37/iterations:10");
  ASSERT_TRUE(e.is_object()) << r.json_text;
  EXPECT_EQ(e.value("cycles.not_counted", 0.0), 1.0);
  EXPECT_EQ(e.value("task-clock.not_counted", 0.0), 1.0);
  EXPECT_FALSE(e.contains("cycles"));
  EXPECT_FALSE(e.contains("task-clock"));
  EXPECT_FALSE(e.contains("ipc"));
  EXPECT_GT(e.value("est_cycles", 0.0), kNops);
  EXPECT_GT(e.value("est_ipc", 0.0), 0.0);
  EXPECT_THAT(r.err, HasSubstr("cycles: not counted"));
  EXPECT_THAT(r.err, HasSubstr("not counted by the simulator"));
  const std::string source = r.json["context"].value("perfcounters.source", "");
  EXPECT_THAT(source, HasSubstr("simulate: valgrind-"));
  EXPECT_THAT(source, HasSubstr("D1 32768 B 8-way 64 B lines"));
}

// Threads(N): every thread's work, per iteration (gbench divides by the
// iterations of all threads), as on the PMU: the same value as one thread.
TEST(Simulate, ThreadsCountEveryThreadPerIteration) {
  REQUIRE_VALGRIND();
  const int loop = LoopInstructions("BM_Nops37(benchmark::State&)", "nop");
  ASSERT_GT(loop, kNops) << "no loop of 37 nops in BM_Nops37's disassembly";
  Result r = Simulate(
      {"--perf_counters=instructions",
       "--benchmark_filter=BM_Nops37/iterations:(10|1000)(/threads:2)?$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("not counted"))) << r.err;
  for (int64_t n : {10, 1000}) {
    const std::string one = "BM_Nops37/iterations:" + std::to_string(n);
    const double v1 = Value(r, one, "instructions");
    const double v2 = Value(r, one + "/threads:2", "instructions");
    ASSERT_FALSE(std::isnan(v1)) << one << "\n" << r.json_text;
    ASSERT_FALSE(std::isnan(v2)) << one << "/threads:2\n" << r.json_text;
    EXPECT_EQ(v1, v2) << one;
    // Both threads' work: 2 x n iterations of the loop (and 2 x the
    // function's few instructions around it).
    EXPECT_EQ(r.Entry(one + "/threads:2").value("iterations", 0), 2 * n);
    const int64_t residual = Residual(v2, 2 * n, loop);
    EXPECT_GE(residual, 0) << v2;
    EXPECT_LE(residual, 2 * 8) << v2;
  }
}

TEST(Simulate, BadSourceIsAnErrorNamingTheValidOnes) {
  // No valgrind needed: refused before anything runs.
  for (const RunOptions& options :
       {WithEnv({}, kSimBench),
        WithEnv({{"PERFCOUNTERS_SOURCE", "bogus"}}, kSimBench)}) {
    std::vector<std::string> args = {"--perf_counters=instructions"};
    if (options.env.empty()) args.push_back("--perf_counters_source=bogus");
    Result r = RunBench(args, options);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("=bogus: unknown counting source"));
    EXPECT_THAT(r.err, HasSubstr("pmu"));
    EXPECT_THAT(r.err, HasSubstr("simulate"));
    EXPECT_THAT(r.err, HasSubstr("auto"));
    EXPECT_FALSE(r.json.is_object());
  }
}

TEST(Simulate, WithoutEventsTheBenchmarksRunNatively) {
  // No valgrind needed: nothing is simulated.
  Result r =
      RunBench({"--benchmark_filter=BM_Nops37/iterations:10$"},
               WithEnv({{"PERFCOUNTERS_SOURCE", "simulate"}}, kSimBench));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("PERFCOUNTERS_SOURCE=simulate: no events are "
                               "requested"));
  ASSERT_TRUE(r.json.is_object()) << r.err;
  EXPECT_FALSE(r.json["context"].contains("perfcounters.source"));
}

TEST(Simulate, MissingValgrindNamesThePackage) {
  Result r = Simulate({"--perf_counters=instructions"},
                      WithEnv({{"PATH", "/nonexistent"}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("valgrind was not found on PATH"));
  EXPECT_THAT(r.err, HasSubstr("package valgrind"));
}

TEST(Simulate, AFailingBenchmarkFailsTheRun) {
  REQUIRE_VALGRIND();
  Result exited =
      Simulate({"--perf_counters=instructions", "--benchmark_filter=BM_Exit3"},
               WithEnv({{"SIMULATE_BENCH_FAIL", "1"}}));
  EXPECT_EQ(exited.exit_code, 3) << exited.err;
  EXPECT_THAT(exited.err, HasSubstr("exited with status 3 under valgrind"));
  Result aborted =
      Simulate({"--perf_counters=instructions", "--benchmark_filter=BM_Abort"},
               WithEnv({{"SIMULATE_BENCH_FAIL", "1"}}));
  EXPECT_NE(aborted.exit_code, 0) << aborted.err;
  EXPECT_THAT(aborted.err, HasSubstr("under valgrind"));
  EXPECT_THAT(aborted.err, HasSubstr("signal 6"));
}

TEST(Simulate, SigtermReachesTheChildAndLeavesNothingBehind) {
  REQUIRE_VALGRIND();
  char dir_template[] = "/tmp/pc_sim_term_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  char ready_template[] = "/tmp/pc_sim_ready_XXXXXX";
  const std::string ready_dir = mkdtemp(ready_template);
  const std::string ready = ready_dir + "/ready";
  // The parent gets SIGTERM once the child (under valgrind) is inside its
  // timed loop, which waits to be killed; the parent passes the signal on,
  // waits and cleans up. The shell polls for the child's file for up to 10
  // minutes (the child's own limit), so a slow machine only waits longer.
  const std::string out = Capture(
      "TMPDIR='" + dir + "' SIMULATE_BENCH_READY='" + ready + "' '" +
      FindBench(kSimBench) +
      "' --perf_counters_source=simulate --perf_counters=instructions "
      "--benchmark_filter=BM_UntilKilled --benchmark_out='" +
      dir +
      "/out.json' >/dev/null 2>&1 & pid=$!; i=0; "
      "while [ ! -e '" +
      ready +
      "' ] && [ $i -lt 6000 ] && kill -0 $pid 2>/dev/null; do "
      "sleep 0.1; i=$((i+1)); done; "
      "[ -e '" +
      ready + "' ] && echo ready; kill -TERM $pid; wait $pid; echo status=$?");
  EXPECT_THAT(out, HasSubstr("ready\n")) << out;
  EXPECT_THAT(out, HasSubstr("status=")) << out;
  EXPECT_THAT(out, ::testing::Not(HasSubstr("status=0\n"))) << out;
  // No callgrind directory left, and no partial JSON.
  const std::string left = Capture("ls -A '" + dir + "'");
  EXPECT_EQ(left, "") << left;
  std::system(("rm -rf '" + dir + "' '" + ready_dir + "'").c_str());
}

TEST(Simulate, PmuWithoutTheEventsPointsToTheSimulatorAndAutoUsesIt) {
  REQUIRE_VALGRIND();
  Result pmu = RunBench({"--perf_counters=instructions",
                         "--benchmark_filter=BM_Nops37/iterations:10$"},
                        WithEnv({}, kSimBench));
  ASSERT_EQ(pmu.exit_code, 0) << pmu.err;
  const bool no_pmu =
      pmu.err.find("instructions: not counted") != std::string::npos;
  Result automatic =
      RunBench({"--perf_counters=instructions", "--perf_counters_source=auto",
                "--benchmark_filter=BM_Nops37/iterations:10$"},
               WithEnv({}, kSimBench));
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  const std::string source =
      automatic.json["context"].value("perfcounters.source", "");
  if (no_pmu) {
    EXPECT_THAT(pmu.err,
                HasSubstr("--perf_counters_source=simulate would count "
                          "instructions"));
    EXPECT_THAT(source, HasSubstr("simulate"));
    EXPECT_GT(Value(automatic, "BM_Nops37/iterations:10", "instructions"),
              kNops);
  } else {
    EXPECT_EQ(source, "pmu");
  }
}

}  // namespace
