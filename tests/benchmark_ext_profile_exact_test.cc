// --perf_profile, exact: in the emulated arm64 machine user-space
// instructions are counted exactly and deterministically, and `cycles` are
// instructions x 2^shift exactly, so samples every N cycles fall on each
// function in proportion to the instructions it retires. (Sampling on
// `instructions` itself is not precise there: QEMU delivers that counter's
// overflow interrupt only at the next exception, a timer tick or the
// sampler's own ioctl, so the samples land there; measured: 19 of 219
// samples in the loop, 200 at the pause's ioctl. Its counting is exact.)
// tests/e2e/profile_bench.cc's BM_ExactThreeToOne calls two noinline functions
// of 300,000 and 100,000 instructions (inline asm loops, independent of the
// optimizer): they must read 75 % and 25 % within 1 percentage point; its setup
// before the loop and the function between PauseTiming and ResumeTiming get no
// sample at all; BM_ExactInlined's always-inline helper is an inlined frame of
// its caller (DWARF: profile_bench keeps its debug sections in the machine);
// and the counters per iteration are identical with and without --perf_profile.
// Natively (no exact PMU) the test skips with the reason.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/hw.h"

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using testing::PerIteration;
using testing::Result;
using testing::RunBench;
using testing::RunOptions;

// A prime, so that the sample points do not lock onto the loops' period.
constexpr char kPeriod[] = "--perf_profile_period=10007";
constexpr char kEvent[] = "cycles";

Result RunExact(bool profiled) {
  RunOptions o;
  o.binary = "perfcounters_profile_bench";
  std::vector<std::string> args = {"--perf_counters=instructions",
                                   "--benchmark_filter=^BM_Exact"};
  if (profiled) {
    args.push_back(std::string("--perf_profile=") + kEvent);
    args.push_back(kPeriod);
  }
  return RunBench(args, o);
}

// Self samples of the function named exactly `name`.
uint64_t Self(const nlohmann::json& profile, const std::string& name) {
  uint64_t n = 0;
  for (const nlohmann::json& f : profile["functions"]) {
    if (f["name"] == name) n += f["samples"].get<uint64_t>();
  }
  return n;
}

void SkipUnlessExact() {
  if (!testing::ExactUserInstructions()) {
    GTEST_SKIP() << "instructions are counted exactly only in the emulated "
                    "arm64 machine (tests/arm64); a real PMU's samples skid";
  }
}

TEST(BenchmarkExtProfileExact, SharesAreTheInstructionsOnlyTheTimedRegion) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  SkipUnlessExact();
  Result r = RunExact(/*profiled=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& row = r.Entry("BM_ExactThreeToOne/iterations:200");
  ASSERT_TRUE(row.contains("perfcounters_profile")) << r.json_text << r.err;
  const nlohmann::json& p = row["perfcounters_profile"];
  EXPECT_EQ(p["event"], kEvent);
  EXPECT_EQ(p["period"], 10007);
  EXPECT_EQ(p["lost"], 0);
  const double samples = p["samples"].get<double>();
  // 200 iterations of 400,000 instructions: about 8,000 samples.
  ASSERT_GT(samples, 4000) << p.dump();
  const double three = Self(p, "profiled::ExactThree()") / samples;
  const double one = Self(p, "profiled::ExactOne()") / samples;
  std::printf(
      "BM_ExactThreeToOne: %.0f samples: ExactThree %.4f, ExactOne "
      "%.4f\n",
      samples, three, one);
  EXPECT_NEAR(three, 0.75, 0.01) << p.dump();
  EXPECT_NEAR(one, 0.25, 0.01) << p.dump();
  EXPECT_EQ(Self(p, "profiled::ExactSetup()"), 0u) << p.dump();
  EXPECT_EQ(Self(p, "profiled::ExactPaused()"), 0u) << p.dump();
}

TEST(BenchmarkExtProfileExact, AlwaysInlineHelperIsAnInlinedFrameOfItsCaller) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  SkipUnlessExact();
  Result r = RunExact(/*profiled=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& p =
      r.Entry("BM_ExactInlined/iterations:200")["perfcounters_profile"];
  ASSERT_TRUE(p.is_object()) << r.json_text;
  bool found = false;
  for (const nlohmann::json& f : p["functions"]) {
    if (f["name"] != "profiled::ExactInlinedHelper()") continue;
    found = true;
    EXPECT_TRUE(f["inlined"].get<bool>()) << f.dump();
    EXPECT_THAT(f.value("file", std::string()), HasSubstr("profile_bench.cc"))
        << f.dump();
    EXPECT_GT(f["self"].get<double>(), 0.9) << f.dump();
  }
  EXPECT_TRUE(found) << p.dump();
  // Its caller is the next frame out.
  bool stacked = false;
  for (const nlohmann::json& s : p["stacks"]) {
    const std::string stack = s["stack"].get<std::string>();
    const std::string tail =
        "profiled::ExactCallsInlined();profiled::ExactInlinedHelper()";
    stacked |=
        stack.size() >= tail.size() &&
        stack.compare(stack.size() - tail.size(), tail.size(), tail) == 0 &&
        s["samples"].get<double>() > 0.9 * p["samples"].get<double>();
  }
  EXPECT_TRUE(stacked) << p.dump();
}

TEST(BenchmarkExtProfileExact, CountersAreIdenticalWithAndWithoutProfiles) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  SkipUnlessExact();
  Result plain = RunExact(/*profiled=*/false);
  Result profiled = RunExact(/*profiled=*/true);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  for (const std::string name : {"BM_ExactThreeToOne/iterations:200",
                                 "BM_ExactInlined/iterations:200"}) {
    const nlohmann::json& a = plain.Entry(name);
    const nlohmann::json& b = profiled.Entry(name);
    ASSERT_TRUE(a.is_object() && b.is_object()) << name;
    EXPECT_FALSE(a.contains("perfcounters_profile"));
    EXPECT_TRUE(b.contains("perfcounters_profile"));
    const double without = PerIteration(a, "instructions");
    const double with = PerIteration(b, "instructions");
    std::printf(
        "%s: instructions per iteration %.4f without, %.4f with "
        "--perf_profile\n",
        name.c_str(), without, with);
    // 300,000 + 100,000 (+ the calls) and 100,000 (+ the call).
    EXPECT_GT(without, name.find("Three") != std::string::npos ? 4e5 : 1e5);
    EXPECT_EQ(without, with) << name;
  }
}

}  // namespace
}  // namespace perfcounters
