// benchmark_ext_simulate_source_test.cc: how the counting source is chosen
// and checked (--perf_counters_source, PERFCOUNTERS_SOURCE): a `valgrind`
// on PATH that is not Valgrind (a stub that exits 0 without running
// anything must fail the run, never pass for an empty one; a fake valgrind
// first on PATH), and `auto` with --perf_profile (the simulator counts and
// profiles where the PMU cannot count; the PMU keeps both where it can).
// A program with its own main() says that it ignores the source. Runs
// tests/e2e/simulate_bench.cc (perfcounters_simulate_bench) and
// own_main_bench.cc.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/simulate_bench.h"

namespace {

using ::perfcounters::testing::kOwnMainBench;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;
using ::perfcounters::testing::WithEnv;
using ::perfcounters::testing::simulate::kSimBench;
using ::perfcounters::testing::simulate::Simulate;
using ::testing::HasSubstr;
using ::testing::Not;

// A directory holding an executable `valgrind` with `script` as its body;
// removed with the object.
class FakeValgrind {
 public:
  explicit FakeValgrind(const std::string& script) {
    char dir_template[] = "/tmp/pc_fake_valgrind_XXXXXX";
    const char* made = mkdtemp(dir_template);
    dir_ = made != nullptr ? made : "";
    std::ofstream(path()) << "#!/bin/sh\n" << script << "\n";
    chmod(path().c_str(), 0755);
  }
  ~FakeValgrind() {
    std::remove(path().c_str());
    rmdir(dir_.c_str());
  }
  std::string path() const { return dir_ + "/valgrind"; }
  // PATH with the fake first.
  std::string search_path() const {
    const char* path = std::getenv("PATH");
    return dir_ + ":" + (path != nullptr ? path : "/usr/bin:/bin");
  }

 private:
  std::string dir_;
};

TEST(SimulateSource, AValgrindThatRunsNothingFailsTheRun) {
  // Answers --version as Valgrind does, then exits 0 for anything else.
  FakeValgrind fake(
      "if [ \"$1\" = --version ]; then echo valgrind-3.19.0; fi\nexit 0");
  Result r = Simulate({"--perf_counters=instructions",
                       "--benchmark_filter=BM_Nops37/iterations:10$"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(fake.path() +
                               " exited with status 0 without running the "
                               "benchmark"))
      << r.err;
  EXPECT_THAT(r.err, HasSubstr("no results were written"));
  EXPECT_FALSE(r.json.is_object()) << r.json_text;
}

TEST(SimulateSource, AnEmptyVersionAnswerSaysWhatHappened) {
  FakeValgrind fake("exit 0");
  Result r = Simulate({"--perf_counters=instructions",
                       "--benchmark_filter=BM_Nops37/iterations:10$"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("`valgrind --version` printed nothing"));
  EXPECT_THAT(r.err, HasSubstr(fake.path() + ") is not Valgrind"));
  EXPECT_THAT(r.err, Not(HasSubstr("exit status 0")));
  EXPECT_FALSE(r.json.is_object()) << r.json_text;
}

TEST(SimulateSource, AFailingVersionAnswerGivesItsStatus) {
  FakeValgrind fake("exit 5");
  Result r = Simulate({"--perf_counters=instructions"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("`valgrind --version` failed (exit status 5)"));
}

TEST(SimulateSource, AutoWithAProfileSimulatesBothWhereThePmuCannotCount) {
  REQUIRE_VALGRIND();
  const std::string filter = "--benchmark_filter=BM_ProfileSplit";
  Result pmu = RunBench({"--perf_counters=instructions", filter},
                        WithEnv({}, kSimBench));
  ASSERT_EQ(pmu.exit_code, 0) << pmu.err;
  const bool no_pmu =
      pmu.err.find("instructions: not counted") != std::string::npos;
  Result r =
      RunBench({"--perf_counters=instructions", "--perf_counters_source=auto",
                "--perf_profile=instructions", filter},
               WithEnv({}, kSimBench));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.json.is_object()) << r.err;
  const std::string source = r.json["context"].value("perfcounters.source", "");
  const nlohmann::json& e = r.Entry("BM_ProfileSplit/iterations:20");
  ASSERT_TRUE(e.is_object()) << r.json_text;
  if (!no_pmu) {
    // The PMU counts here: it keeps the counters and its sampled profile.
    EXPECT_EQ(source, "pmu") << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("counted by the simulator")));
    return;
  }
  EXPECT_THAT(r.err, HasSubstr("=auto: the PMU cannot count instructions "
                               "here; every event and the profile is "
                               "counted by the simulator"));
  EXPECT_THAT(source, HasSubstr("simulate"));
  EXPECT_THAT(r.err, Not(HasSubstr("no profiles")));
  EXPECT_GT(e.value("instructions", 0.0), 4000);  // 3000 + 1000 + the loop
  EXPECT_EQ(e["perfcounters_profile"].value("source", ""), "simulated")
      << e.dump();
}

TEST(SimulateSource, AutoRefusesAProfileTheSimulatorCannotTake) {
  REQUIRE_VALGRIND();
  Result pmu = RunBench({"--perf_counters=instructions",
                         "--benchmark_filter=BM_Nops37/iterations:10$"},
                        WithEnv({}, kSimBench));
  ASSERT_EQ(pmu.exit_code, 0) << pmu.err;
  if (pmu.err.find("instructions: not counted") == std::string::npos) {
    GTEST_SKIP() << "the PMU counts instructions here: auto keeps it";
  }
  Result r =
      RunBench({"--perf_counters=instructions", "--perf_counters_source=auto",
                "--perf_profile=cpu-clock",
                "--benchmark_filter=BM_Nops37/iterations:10$"},
               WithEnv({}, kSimBench));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--perf_counters_source=auto: the PMU cannot "
                               "count instructions here, so the simulator "
                               "would count and profile, but: "
                               "--perf_profile=cpu-clock: the simulator "
                               "cannot profile it"));
  EXPECT_FALSE(r.json.is_object()) << r.json_text;
}

// gbench's BENCHMARK_MAIN() with perfcounters::Measure: the source setting
// is not honoured there, and one line says so (never a silent PMU run).
TEST(SimulateSource, OwnMainSaysTheSourceIsIgnored) {
  const std::string line =
      "perfcounters: warning: PERFCOUNTERS_SOURCE=simulate is ignored: this "
      "program has its own main(), which counts on the PMU; only "
      "perfcounters' main re-runs the benchmarks under the simulator";
  Result r = RunBench({"--benchmark_min_time=0"},
                      WithEnv({{"PERFCOUNTERS_EVENTS", "page-faults"},
                               {"PERFCOUNTERS_SOURCE", "simulate"}},
                              kOwnMainBench));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(line)) << r.err;
  EXPECT_THAT(r.err, HasSubstr("PERFCOUNTERS_BENCHMARK_MAIN()"));
  // Once, not per benchmark or thread.
  EXPECT_EQ(r.err.find(line), r.err.rfind(line)) << r.err;
  EXPECT_TRUE(r.Entry("BM_TouchThreePages").is_object()) << r.json_text;
  // pmu, or no source: nothing to say.
  for (const char* source : {"pmu", ""}) {
    Result quiet = RunBench({"--benchmark_min_time=0"},
                            WithEnv({{"PERFCOUNTERS_EVENTS", "page-faults"},
                                     {"PERFCOUNTERS_SOURCE", source}},
                                    kOwnMainBench));
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_THAT(quiet.err, Not(HasSubstr("is ignored"))) << quiet.err;
  }
}

}  // namespace
