// benchmark_ext_simulate_profile_test.cc: the simulated profile
// (--perf_profile under --perf_counters_source=simulate): callgrind's
// costs of each benchmark's timed region, every instruction, in the same
// JSON member, hot: line and folded files as the sampled profile, labelled
// simulated. Runs tests/e2e/simulate_bench.cc's BM_Profile*; the oracle is
// the binary's disassembly. Skips where valgrind is not installed.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/simulate_bench.h"

namespace {

using ::perfcounters::testing::FindBench;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::simulate::Capture;
using ::perfcounters::testing::simulate::kSimBench;
using ::perfcounters::testing::simulate::Simulate;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kIterations = 20;  // BM_ProfileSplit's and BM_PlainProfileSplit's

// The instructions of simulate_bench's `function` (in its anonymous
// namespace) from objdump's disassembly, up to and with its first `ret`
// (what follows is padding or a trap); -1 when it is not there or is not
// straight-line code (a jump: its count per call would not be fixed).
int StraightLineInstructions(const std::string& function) {
  const std::string dis = Capture("objdump -d --no-show-raw-insn -C '" +
                                  FindBench(kSimBench) + "' 2>/dev/null");
  const std::string header = "<(anonymous namespace)::" + function + ">:";
  const size_t start = dis.find(header);
  if (start == std::string::npos) return -1;
  const size_t end = dis.find("\n\n", start);
  std::istringstream body(dis.substr(start, end - start));
  std::string line;
  std::getline(body, line);  // the header
  int count = 0;
  while (std::getline(body, line)) {
    const size_t tab = line.find(":\t");
    if (tab == std::string::npos) continue;
    if (line.compare(tab + 2, 1, "j") == 0) return -1;
    ++count;
    if (line.compare(tab + 2, 3, "ret") == 0) return count;
  }
  return -1;
}

const nlohmann::json* FindFunction(const nlohmann::json& profile,
                                   const std::string& name) {
  for (const nlohmann::json& f : profile["functions"]) {
    if (f.value("name", "") == name) return &f;
  }
  return nullptr;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The 3:1 split, exactly: ThreeParts' and OnePart's self costs are their
// instructions from the disassembly times the iterations, to the
// instruction; 75 % / 25 % on the hot: line; the setup-only and pause-only
// functions have no cost anywhere (functions, stacks, folded file); the
// profile says it is simulated.
void ExpectExactSplit(const Result& r, const std::string& name,
                      const std::string& folded_dir) {
  const int three = StraightLineInstructions("ThreeParts()");
  const int one = StraightLineInstructions("OnePart()");
  ASSERT_GT(three, 0) << "ThreeParts not found in the disassembly";
  ASSERT_GT(one, 0) << "OnePart not found in the disassembly";
  ASSERT_EQ(three, 3 * one) << "the bench's asm is no longer 3:1";
  const nlohmann::json& e = r.Entry(name);
  ASSERT_TRUE(e.is_object()) << r.json_text;
  ASSERT_TRUE(e.contains("perfcounters_profile")) << e.dump() << r.err;
  const nlohmann::json& p = e["perfcounters_profile"];
  EXPECT_EQ(p.value("source", ""), "simulated");
  EXPECT_EQ(p.value("sampled", true), false);
  EXPECT_EQ(p.value("event", ""), "instructions");
  EXPECT_FALSE(p.contains("period"));
  EXPECT_FALSE(p.contains("frequency"));
  const nlohmann::json* t =
      FindFunction(p, "(anonymous namespace)::ThreeParts()");
  const nlohmann::json* o = FindFunction(p, "(anonymous namespace)::OnePart()");
  ASSERT_NE(t, nullptr) << p.dump(1);
  ASSERT_NE(o, nullptr) << p.dump(1);
  EXPECT_EQ((*t)["samples"].get<int64_t>(), int64_t{three} * kIterations);
  EXPECT_EQ((*o)["samples"].get<int64_t>(), int64_t{one} * kIterations);
  const double total = p["samples"].get<double>();
  EXPECT_EQ((*t)["samples"].get<int64_t>(), 3 * (*o)["samples"].get<int64_t>());
  EXPECT_NEAR((*t)["self"].get<double>(), three * kIterations / total, 1e-6);
  // A leaf: its inclusive share is its self share.
  EXPECT_EQ((*t)["inclusive"], (*t)["self"]);
  EXPECT_THAT(r.out, HasSubstr("hot: ThreeParts 75% \xC2\xB7 OnePart 25% "
                               "(instructions [simulated])"));
  EXPECT_EQ(FindFunction(p, "(anonymous namespace)::SetupOnly()"), nullptr)
      << p.dump(1);
  EXPECT_EQ(FindFunction(p, "(anonymous namespace)::PausedOnly()"), nullptr)
      << p.dump(1);
  // No bracket code (perfcounters' or gbench's loop functions) has a cost
  // (the main's own functions are callers of the region: no self cost; the
  // loop's iterators, inlined into the benchmark, are its own control).
  for (const nlohmann::json& f : p["functions"]) {
    const std::string fn = f.value("name", "");
    if (f["samples"].get<double>() == 0 || f.value("inlined", false)) continue;
    EXPECT_THAT(fn, Not(HasSubstr("benchmark_ext_internal"))) << fn;
    EXPECT_THAT(fn, Not(HasSubstr("benchmark::State::"))) << fn;
  }
  double stack_sum = 0;
  bool three_under_benchmark = false;
  for (const nlohmann::json& s : p["stacks"]) {
    const std::string stack = s.value("stack", "");
    stack_sum += s["samples"].get<double>();
    EXPECT_THAT(stack, Not(HasSubstr("SetupOnly")));
    EXPECT_THAT(stack, Not(HasSubstr("PausedOnly")));
    three_under_benchmark =
        three_under_benchmark ||
        stack.find(name.substr(0, name.find('/')) +
                   "(benchmark::State&);(anonymous namespace)::ThreeParts()") !=
            std::string::npos;
  }
  EXPECT_EQ(stack_sum, total);
  EXPECT_TRUE(three_under_benchmark) << p["stacks"].dump(1);
  // The folded file: the same stacks, whole.
  const std::string ls = Capture("ls '" + folded_dir + "' | grep '^" +
                                 name.substr(0, name.find('/')) + "_'");
  ASSERT_FALSE(ls.empty()) << "no folded file in " << folded_dir;
  const std::string folded =
      ReadFile(folded_dir + "/" + ls.substr(0, ls.find('\n')));
  EXPECT_THAT(folded, HasSubstr("(anonymous namespace)::ThreeParts() " +
                                std::to_string(int64_t{three} * kIterations)));
  EXPECT_THAT(folded, Not(HasSubstr("SetupOnly")));
}

std::string TempDir() {
  char dir_template[] = "/tmp/pc_sim_profile_XXXXXX";
  return mkdtemp(dir_template);
}

TEST(SimulatedProfile, MeasureLoopSplitsThreeToOneExactly) {
  REQUIRE_VALGRIND();
  const std::string dir = TempDir();
  Result r = Simulate(
      {"--perf_counters=instructions", "--perf_profile=instructions",
       "--perf_profile_out=" + dir, "--benchmark_filter=BM_ProfileSplit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectExactSplit(r, "BM_ProfileSplit/iterations:20", dir);
  std::system(("rm -rf '" + dir + "'").c_str());
}

// The unmodified loop's profile comes from gbench's extra run (1.9 and
// newer); before, a note says there is none.
TEST(SimulatedProfile, UnmodifiedLoopSplitsThreeToOneExactly) {
  REQUIRE_VALGRIND();
  const std::string dir = TempDir();
  Result r = Simulate({"--perf_counters=instructions", "--perf_profile=auto",
                       "--perf_profile_out=" + dir,
                       "--benchmark_filter=BM_PlainProfileSplit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string counting =
      r.json["context"].value("perfcounters.counting", "");
  if (counting.find("extra run") == std::string::npos) {
    EXPECT_THAT(r.err, HasSubstr("BM_PlainProfileSplit/iterations:20: no "
                                 "profile: it does not use "
                                 "perfcounters::Measure"));
    EXPECT_FALSE(r.Entry("BM_PlainProfileSplit/iterations:20")
                     .contains("perfcounters_profile"));
  } else {
    ExpectExactSplit(r, "BM_PlainProfileSplit/iterations:20", dir);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A plain Threads(2) loop is counted in gbench's extra run, on one thread:
// the profile says so in the JSON ("threads": 2, "threads_sampled": 1), on
// its hot: line and in a note naming it, as the sampled profile does.
TEST(SimulatedProfile, PlainThreadsLoopSaysItWasCountedOnOneThread) {
  REQUIRE_VALGRIND();
  Result r = Simulate({"--perf_counters=instructions", "--perf_profile=auto",
                       "--benchmark_filter=BM_PlainThreadsProfileSplit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string name =
      "BM_PlainThreadsProfileSplit/iterations:20/threads:2";
  const nlohmann::json& e = r.Entry(name);
  ASSERT_TRUE(e.is_object()) << r.json_text;
  const std::string counting =
      r.json["context"].value("perfcounters.counting", "");
  if (counting.find("extra run") == std::string::npos) {
    // Before gbench 1.9: no extra run, no profile of a plain loop.
    EXPECT_FALSE(e.contains("perfcounters_profile")) << e.dump();
    EXPECT_THAT(r.err, HasSubstr(name + ": no profile"));
    return;
  }
  ASSERT_TRUE(e.contains("perfcounters_profile")) << e.dump() << r.err;
  const nlohmann::json& p = e["perfcounters_profile"];
  EXPECT_EQ(p.value("source", ""), "simulated");
  EXPECT_EQ(p.value("threads", 0), 2) << p.dump();
  EXPECT_EQ(p.value("threads_sampled", 0), 1) << p.dump();
  EXPECT_THAT(r.out, HasSubstr("(instructions [simulated]) (1 of 2 threads "
                               "counted)"));
  EXPECT_THAT(r.err, HasSubstr(name + ": profiled on one thread only"));
  EXPECT_THAT(r.err, HasSubstr("is counted in gbench's extra run"));
}

// --perf_profile=L1-dcache-load-misses says where the misses are: the
// streaming pass (a miss per 64-byte line of 256 KiB, twice), not the
// loop over one warm line.
TEST(SimulatedProfile, MissesProfileNamesTheStreamingFunction) {
  REQUIRE_VALGRIND();
  Result r = Simulate({"--perf_counters=L1-dcache-load-misses",
                       "--perf_profile=L1-dcache-load-misses",
                       "--benchmark_filter=BM_ProfileMisses"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& e = r.Entry("BM_ProfileMisses/iterations:2");
  ASSERT_TRUE(e.contains("perfcounters_profile")) << e.dump() << r.err;
  const nlohmann::json& p = e["perfcounters_profile"];
  EXPECT_EQ(p.value("event", ""), "L1-dcache-load-misses");
  EXPECT_EQ(p.value("source", ""), "simulated");
  const nlohmann::json* big =
      FindFunction(p, "(anonymous namespace)::StreamBig(unsigned long const*)");
  ASSERT_NE(big, nullptr) << p.dump(1);
  const double lines = 2.0 * 256 * 1024 / 64;
  EXPECT_NEAR((*big)["samples"].get<double>(), lines, lines * 0.01);
  EXPECT_GT((*big)["self"].get<double>(), 0.98);
  EXPECT_THAT(r.out, HasSubstr("hot: StreamBig "));
  EXPECT_THAT(r.out, HasSubstr("(L1-dcache-load-misses [simulated])"));
}

// An event the simulator cannot count, or a sampling rate: an error before
// anything runs, naming what it can profile.
TEST(SimulatedProfile, RefusesEventsItCannotCountAndSamplingRates) {
  REQUIRE_VALGRIND();
  Result r =
      Simulate({"--perf_counters=instructions", "--perf_profile=cpu-clock",
                "--benchmark_filter=BM_ProfileSplit"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--perf_profile=cpu-clock: the simulator "
                               "cannot profile it"));
  EXPECT_THAT(r.err, HasSubstr("L1-dcache-load-misses"));
  EXPECT_FALSE(r.json.contains("benchmarks"));
  r = Simulate({"--perf_counters=instructions", "--perf_profile=instructions",
                "--perf_profile_period=1000",
                "--benchmark_filter=BM_ProfileSplit"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("counts every event"));
}

}  // namespace
