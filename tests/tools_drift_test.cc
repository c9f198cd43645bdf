// tools_drift_test.cc: common-mode drift is named (drift.h): synthetic run
// pairs where most times move alike, through the built command (compare,
// report) and DetectDrift itself.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compare.h"
#include "drift.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/status_matchers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::perfcounters::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::QuoteAll;
using testing::RunResult;

// 13 benchmarks of 5 repetitions. Benchmark b's times are scaled by
// times[b] (1 when absent), its instructions by instructions[b];
// `instructions_counted`: the runs have instruction counts (a PMU).
struct Shape {
  std::vector<double> times;
  std::vector<double> instructions;
  bool instructions_counted = true;
  // The fingerprint's binary.build_id ("": none) and kernel.release.
  std::string build_id;
};

std::string RunJson(const Shape& s) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "now"}};
  if (!s.build_id.empty()) {
    root["context"]["perfcounters.env.binary.build_id"] = s.build_id;
    root["context"]["perfcounters.env.kernel.release"] = "6.1.0";
  }
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (size_t b = 0; b < 13; ++b) {
    const std::string name = absl::StrCat("BM_", b);
    const double scale = b < s.times.size() ? s.times[b] : 1.0;
    const double more = b < s.instructions.size() ? s.instructions[b] : 1.0;
    for (int i = 0; i < 5; ++i) {
      const double t = (1000.0 * (b + 1) + 7 * i) * scale;
      nlohmann::ordered_json e = {{"name", name},
                                  {"run_name", name},
                                  {"run_type", "iteration"},
                                  {"repetition_index", i},
                                  {"iterations", 100},
                                  {"time_unit", "ns"},
                                  {"real_time", t},
                                  {"cpu_time", t}};
      if (s.instructions_counted) e["instructions"] = 4000.0 * (b + 1) * more;
      root["benchmarks"].push_back(e);
    }
  }
  return root.dump(2);
}

// Every time -35 %; BM_7's instructions +5 % (and its time 5 % above the
// drift).
Shape Drifted(bool counted = true) {
  Shape s;
  s.times.assign(13, 0.65);
  s.times[7] = 0.65 * 1.05;
  s.instructions.assign(13, 1.0);
  s.instructions[7] = 1.05;
  s.instructions_counted = counted;
  return s;
}

class DriftCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_));
  }
  void WritePair(const Shape& next, bool counted = true,
                 const std::string& base_build_id = "") {
    Shape base;
    base.instructions_counted = counted;
    base.build_id = base_build_id;
    std::ofstream(dir_ + "/base.json", std::ios::binary) << RunJson(base);
    std::ofstream(dir_ + "/new.json", std::ios::binary) << RunJson(next);
  }
  RunResult Compare(std::vector<std::string> args) {
    args.insert(args.begin(), {"compare", "base.json", "new.json"});
    return testing::RunTool(QuoteAll(args), dir_);
  }
  std::string dir_;
};

TEST_F(DriftCommand, UniformShiftIsNamedAndTheRealChangeStillFlagged) {
  WritePair(Drifted());
  RunResult r = Compare({"--color", "never"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith(
                         "common-mode drift: 12 of 13 benchmarks' real_time "
                         "moved -35.0 % to -35.0 % together"));
  EXPECT_THAT(r.out, HasSubstr("while their instruction counts did not: the "
                               "machine was faster in the second run"));
  EXPECT_THAT(r.out, HasSubstr("BM_7: instructions +5.0 %, real_time -31.7 % "
                               "(+5.0 % against the drift): the code "
                               "changed"));
  // Markdown: no drifted time is headlined, BM_7's neither (its raw -31.7 %
  // is mostly the machine's); its instructions are the one regression.
  r = Compare({"--format", "markdown"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("**Common-mode drift:** 12 of 13"));
  EXPECT_THAT(r.out, HasSubstr("its real_time change counts only against the "
                               "drift, not as an improvement or regression"));
  const size_t regressions = r.out.find("### Regressions (1)");
  ASSERT_NE(regressions, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("`BM_7` | instructions", regressions),
            std::string::npos);
  EXPECT_THAT(r.out, Not(HasSubstr("### Improvements"))) << r.out;
  const size_t drift = r.out.find("### Common-mode drift (the machine");
  ASSERT_NE(drift, std::string::npos) << r.out;
  const std::string drifted = r.out.substr(drift);
  EXPECT_THAT(drifted, HasSubstr("`BM_7` | real_time"));
  EXPECT_THAT(drifted, HasSubstr("`BM_0` | real_time"));
  // JSON: the members and the exception.
  r = Compare({"--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["drift"].size(), 2u);  // real_time and cpu_time
  EXPECT_EQ(j["drift"][0]["metric"], "real_time");
  EXPECT_EQ(j["drift"][0]["members"].size(), 12u);
  EXPECT_EQ(j["drift"][0]["exceptions"][0]["benchmark"], "BM_7");
  EXPECT_NEAR(j["drift"][0]["exceptions"][0]["against_drift_pct"].get<double>(),
              5.0, 0.01);
}

TEST_F(DriftCommand, GateOnADriftingTimeIsUnreliable) {
  WritePair(Drifted());
  RunResult r = Compare({"--fail-on", "real_time>+5%", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gate real_time>+5%: verdict unreliable: 12 "
                               "of 13 benchmarks' real_time moved"));
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_THAT(j.dump(), HasSubstr("verdict unreliable"));
  // A gate on instructions is not concerned.
  r = Compare({"--fail-on", "instructions>+1%"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("unreliable")));
}

TEST_F(DriftCommand, WithoutInstructionCountsTheCodeMayHaveChanged) {
  WritePair(Drifted(/*counted=*/false), /*counted=*/false);
  RunResult r = Compare({});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("13 of 13 benchmarks' real_time moved"));
  EXPECT_THAT(r.out, HasSubstr("without instruction counts (no PMU) nothing "
                               "tells the machine from the code"));
  // A time gate's note does not advise gating instructions the machine
  // cannot count: the simulated source instead.
  r = Compare({"--fail-on", "real_time>+50%"});
  EXPECT_THAT(r.err, HasSubstr("without a PMU, gate the simulated source's "
                               "instruction counts "
                               "(--perf_counters_source=simulate"));
  EXPECT_THAT(r.err, Not(HasSubstr("; gate instructions,")));
  // With instruction counts, instructions it is.
  WritePair(Drifted());
  r = Compare({"--fail-on", "real_time>+50%"});
  EXPECT_THAT(r.err, HasSubstr("; gate instructions, or rerun both builds"));
}

// Without instruction counts the binaries' build-ids tell the machine from
// the code; another binary is no environment difference.
TEST_F(DriftCommand, WithoutInstructionCountsTheBinaryTells) {
  Shape next = Drifted(/*counted=*/false);
  next.build_id = "aaaa";
  WritePair(next, /*counted=*/false, "aaaa");
  RunResult r = Compare({"--fail-on", "real_time>+5%"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("13 of 13 benchmarks' real_time moved"));
  EXPECT_THAT(r.out, HasSubstr("but the same binary ran both times (its "
                               "build-id): the machine was faster in the "
                               "second run"));
  EXPECT_THAT(r.out, Not(HasSubstr("environment differs")));
  EXPECT_THAT(r.err, HasSubstr("(common-mode drift: the machine, not the "
                               "code)"));
  // Another binary: the drift is named, what moved it cannot be told, and
  // the builds' difference neither shows as nor refuses as an environment
  // difference (the gate on times is checked).
  next.build_id = "bbbb";
  WritePair(next, /*counted=*/false, "aaaa");
  r = Compare({"--fail-on", "real_time>+5%"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("without instruction counts (no PMU) and with "
                               "another binary in the second run, whether "
                               "the code changed cannot be told"));
  EXPECT_THAT(r.out, Not(HasSubstr("environment differs")));
  EXPECT_THAT(r.err, HasSubstr("which cannot be told apart without "
                               "instruction counts"));
  EXPECT_THAT(r.err, Not(HasSubstr("refused")));
  r = Compare({"--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["drift"][0]["binary"], "different");
  EXPECT_EQ(j["environment"]["differs"], false);
  EXPECT_EQ(j["environment"]["binary"]["base_build_id"], "aaaa");
  EXPECT_EQ(j["environment"]["binary"]["new_build_id"], "bbbb");
  EXPECT_EQ(j["environment"]["binary"]["same"], "different");
  // A slower second run of another binary gates as usual: exit 1.
  Shape slower;
  slower.times.assign(13, 1.2);
  slower.instructions_counted = false;
  slower.build_id = "bbbb";
  WritePair(slower, /*counted=*/false, "aaaa");
  r = Compare({"--fail-on", "real_time>+5%"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("the machine was slower in the second run, "
                               "or the code changed alike everywhere"));
}

TEST_F(DriftCommand, AFewChangesAreNotDrift) {
  Shape s;
  s.times = {0.65, 0.65, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  WritePair(s);
  RunResult r = Compare({"--format", "markdown"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("drift")));
  EXPECT_THAT(r.out, HasSubstr("### Improvements (4)"));
  // Most times moved, with their instructions: the code changed.
  s.times.assign(13, 0.65);
  s.instructions.assign(13, 0.65);
  WritePair(s);
  r = Compare({});
  EXPECT_THAT(r.out, Not(HasSubstr("drift")));
}

TEST_F(DriftCommand, ReportNamesTheDriftAndCountsNoImprovements) {
  WritePair(Drifted());
  RunResult r = testing::RunTool(
      QuoteAll({"report", "base.json", "new.json", "-o", "r.html"}), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::Slurp(dir_ + "/r.html");
  EXPECT_THAT(html, HasSubstr("common-mode drift: 12 of 13 benchmarks&#39; "
                              "real_time"));
  // The summary headlines BM_7's instructions, not its time: no
  // improvement, one regression.
  const size_t summary = html.find("id=\"summary\"");
  ASSERT_NE(summary, std::string::npos);
  const std::string head = html.substr(summary, 3000);
  EXPECT_THAT(head, HasSubstr("1 regression in"));
  EXPECT_THAT(head, HasSubstr("0 improvements"));
  EXPECT_THAT(head, Not(HasSubstr("BM_7 real_time")));
  // real_time's section: no improvement either.
  const size_t section = html.find("id=\"m-real_time\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_THAT(html.substr(section, 2000), HasSubstr("0 improvements"));
}

TEST(DetectDrift, SlowerRunIsDriftToo) {
  Shape s;
  s.times.assign(13, 1.2);
  absl::StatusOr<BenchmarkFile> base =
      ParseBenchmarkJson(RunJson({}), "b.json");
  absl::StatusOr<BenchmarkFile> next = ParseBenchmarkJson(RunJson(s), "n.json");
  ASSERT_THAT(base, IsOk());
  ASSERT_THAT(next, IsOk());
  const std::vector<DriftMetric> d =
      DetectDrift(tools::Compare(*base, *next), 0.05);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].direction, 1);
  EXPECT_EQ(d[0].members.size(), 13u);
  EXPECT_NEAR(d[0].median_pct, 20.0, 0.01);
  EXPECT_TRUE(d[0].exceptions.empty());
  EXPECT_EQ(d[0].unchecked, 0u);
  EXPECT_EQ(d[0].binary, SameBinary::kUnknown);
}

TEST(SameBinaryOf, BuildIdsDecide) {
  Shape a, b;
  a.build_id = "0123abcd";
  b.build_id = "0123abcd";
  const auto parse = [](const Shape& s, const char* name) {
    return ParseBenchmarkJson(RunJson(s), name);
  };
  absl::StatusOr<BenchmarkFile> fa = parse(a, "a.json"),
                                fb = parse(b, "b.json"),
                                none = parse(Shape{}, "none.json");
  ASSERT_THAT(fa, IsOk());
  ASSERT_THAT(fb, IsOk());
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(SameBinaryOf(*fa, *fb), SameBinary::kSame);
  EXPECT_EQ(SameBinaryOf(*fa, *none), SameBinary::kUnknown);
  EXPECT_EQ(SameBinaryOf(*none, *none), SameBinary::kUnknown);
  b.build_id = "0123abce";
  fb = parse(b, "b.json");
  ASSERT_THAT(fb, IsOk());
  EXPECT_EQ(SameBinaryOf(*fa, *fb), SameBinary::kDifferent);
  EXPECT_FALSE(DiffEnvironments(*fa, *fb).Differs());
}

}  // namespace
}  // namespace perfcounters::tools
