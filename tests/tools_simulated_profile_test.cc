// tools_simulated_profile_test.cc: simulated profiles (benchmark_ext's
// --perf_profile under --perf_counters_source=simulate: "source":
// "simulated", "sampled": false; docs/profiles.md) in the tools.
// testdata/tools/simulated_profile.json is a real run of
// tests/e2e/simulate_bench.cc's BM_ProfileSplit (module paths shortened,
// functions without self cost left out): ThreeParts 60000 and OnePart
// 20000 of 80104 instructions.
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "compare_profile.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "profile_data.h"
#include "report_profile.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Slurp;

class SimulatedProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFCOUNTERS_REQUIRE_TESTDATA();
    text_ = Slurp(testing::kTestdata + "/simulated_profile.json");
    ASSERT_FALSE(text_.empty());
  }
  BenchmarkFile ParseText(const std::string& text, const std::string& name) {
    absl::StatusOr<BenchmarkFile> f = ParseBenchmarkJson(text, name);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : BenchmarkFile{};
  }
  std::string text_;
};

// Read without a warning (every member known), as simulated.
TEST_F(SimulatedProfileTest, ReadsTheSimulatedMembers) {
  const BenchmarkFile f = ParseText(text_, "sim.json");
  EXPECT_TRUE(f.warnings.empty()) << f.warnings[0];
  const std::vector<NamedProfile> profiles = Profiles(f);
  ASSERT_EQ(profiles.size(), 1u);
  const BenchmarkProfile& p = profiles[0].profile;
  EXPECT_TRUE(p.simulated);
  EXPECT_EQ(p.event, "instructions");
  EXPECT_EQ(p.samples, 80104);
  EXPECT_EQ(p.excluded, 465);
  ASSERT_FALSE(p.functions.empty());
  EXPECT_EQ(p.functions[0].samples, 60000);
  // A sampled profile is not simulated.
  const BenchmarkFile sampled =
      ParseText(absl::StrReplaceAll(text_, {{"\"source\": \"simulated\",", ""},
                                            {"\"sampled\": false,", ""}}),
                "sampled.json");
  EXPECT_FALSE(Profiles(sampled)[0].profile.simulated);
}

// compare: two simulated profiles are compared with no sampling noise and
// labelled simulated; a simulated and a sampled one are not compared.
TEST_F(SimulatedProfileTest, CompareLabelsSimulatedAndRefusesMixing) {
  const BenchmarkFile base = ParseText(text_, "base.json");
  const std::string next_text = absl::StrReplaceAll(
      text_, {{"\"samples\": 80104", "\"samples\": 100104"},
              {"\"samples\": 60000", "\"samples\": 80000"}});
  const BenchmarkFile next = ParseText(next_text, "new.json");
  ProfileComparison c = CompareProfiles(base, next, std::nullopt);
  ASSERT_EQ(c.benchmarks.size(), 1u);
  EXPECT_TRUE(c.benchmarks[0].simulated);
  ASSERT_FALSE(c.benchmarks[0].functions.empty());
  EXPECT_EQ(c.benchmarks[0].functions[0].noise_pp, 0.0);
  EXPECT_THAT(ProfileTableText(c),
              HasSubstr("(80104 → 100104 instructions [simulated])"));
  const nlohmann::ordered_json j = ProfileJson(c);
  EXPECT_EQ(j["benchmarks"][0]["value_kind"], "simulated");

  const BenchmarkFile sampled =
      ParseText(absl::StrReplaceAll(text_, {{"\"source\": \"simulated\",", ""},
                                            {"\"sampled\": false,", ""}}),
                "sampled.json");
  c = CompareProfiles(base, sampled, std::nullopt);
  EXPECT_TRUE(c.benchmarks.empty());
  EXPECT_EQ(c.mixed.size(), 1u);
  EXPECT_THAT(ProfileTableText(c),
              HasSubstr("1 benchmark(s) have a simulated profile (callgrind's "
                        "counts) on one side and a sampled one on the other: "
                        "not compared"));
}

// report: the profile's caption says the counts are simulated, not
// samples; the flame graph draws it as any profile.
TEST_F(SimulatedProfileTest, ReportSaysSimulated) {
  const BenchmarkFile f = ParseText(text_, "sim.json");
  const std::string html = ReportProfileSection({f}, {"sim"});
  EXPECT_THAT(html, HasSubstr("instructions [simulated]: 80104 counted"));
  EXPECT_THAT(html, Not(HasSubstr("80104 samples")));
  EXPECT_THAT(html, HasSubstr("ThreeParts() — 60000 instructions [simulated]"));
  EXPECT_THAT(html, HasSubstr("ThreeParts"));
}

}  // namespace
}  // namespace perfcounters::tools
