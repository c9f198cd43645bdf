// tools_env_diff_test.cc: every verdict shows what differs between the two
// runs' environments (env_diff.h, verdict_notes.h): synthetic pairs of
// files with fingerprints, through the built command (compare, report),
// and the decision table itself.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "env_diff.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::QuoteAll;
using testing::RunResult;

using Fields = std::map<std::string, std::string>;

// A fingerprint as benchmark_ext writes it (docs/environment.md).
Fields Machine() {
  return {{"cpu.vendor", "GenuineIntel"},
          {"cpu.model_name", "Intel(R) Xeon(R) Gold 6154"},
          {"cpu.microcode", "0x2007006"},
          {"cpufreq.governor", "performance"},
          {"cpufreq.boost", "off"},
          {"kernel.release", "6.1.0-18-amd64"},
          {"glibc.version", "2.36"},
          {"build.compiler", "gcc 12.2.0"},
          {"loadavg.start", "0.10 0.20 0.30"},
          {"loadavg.end", "0.40 0.50 0.60"}};
}

// Three benchmarks of five repetitions: times and cycles scaled by
// `slower`, instructions by `more` (exact counts).
std::string RunJson(const Fields& env, double slower, double more) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "now"},
                     {"library_build_type", "release"},
                     {"perfcounters.events", "cycles,instructions"}};
  for (const auto& [k, v] : env) {
    if (k != "loadavg.end") root["context"]["perfcounters.env." + k] = v;
  }
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (int b = 0; b < 3; ++b) {
    const std::string name = absl::StrCat("BM_", b);
    for (int i = 0; i < 5; ++i) {
      const double t = (1000.0 + 10 * b + i) * slower;
      root["benchmarks"].push_back({{"name", name},
                                    {"run_name", name},
                                    {"run_type", "iteration"},
                                    {"repetition_index", i},
                                    {"iterations", 100},
                                    {"time_unit", "ns"},
                                    {"real_time", t},
                                    {"cpu_time", t},
                                    {"cycles", 3 * t},
                                    {"instructions", 5000.0 * (b + 1) * more}});
    }
  }
  if (env.contains("loadavg.end")) {
    root["context_end"] = {
        {"perfcounters.env.loadavg.end", env.at("loadavg.end")}};
  }
  return root.dump(2);
}

class EnvDiffCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_));
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  // base.json on Machine(); new.json on Machine() with `changes`, times and
  // cycles +10 %, instructions as `more`.
  void WritePair(const Fields& changes, double more = 1.0) {
    Fields next = Machine();
    for (const auto& [k, v] : changes) next[k] = v;
    Write("base.json", RunJson(Machine(), 1.0, 1.0));
    Write("new.json", RunJson(next, 1.1, more));
  }
  RunResult Compare(std::vector<std::string> args) {
    args.insert(args.begin(), {"compare", "base.json", "new.json"});
    return testing::RunTool(QuoteAll(args), dir_);
  }
  std::string dir_;
};

TEST_F(EnvDiffCommand, GovernorChangeRefusesCyclesGateAndPassesInstructions) {
  WritePair({{"cpufreq.governor", "powersave"}});
  RunResult r = Compare({"--fail-on", "cycles>+5%", "--color", "never"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("environment differs (1 field"));
  EXPECT_THAT(r.out, HasSubstr("cpufreq.governor: performance -> powersave"));
  EXPECT_THAT(r.err, HasSubstr("refused"));
  EXPECT_THAT(r.err, HasSubstr("--allow-env-diff cpufreq.governor"));
  // The same runs: instructions did not change, and a governor cannot
  // move them.
  r = Compare({"--fail-on", "instructions>+1%"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // Times too are refused; allowed, the cycles gate is checked: +10 %.
  EXPECT_EQ(Compare({"--fail-on", "cpu_time>+5%"}).code, 2);
  r = Compare(
      {"--fail-on", "cycles>+5%", "--allow-env-diff", "cpufreq.governor"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
}

// history check: the diff against the history's latest run, and the same
// refusal as compare's.
TEST_F(EnvDiffCommand, HistoryCheckShowsTheDiffAndRefusesMovableGates) {
  if (!PERFCOUNTERS_TOOL_HAS_HISTORY) GTEST_SKIP() << "built without history";
  const std::string db = dir_ + "/h.db";
  // Two runs of the history on Machine(), then the new run.
  Write("h1.json", RunJson(Machine(), 1.0, 1.0));
  Write("h2.json", RunJson(Machine(), 1.001, 1.0));
  for (int i = 1; i <= 2; ++i) {
    const RunResult r = testing::RunTool(
        QuoteAll({"history", "add", "--db", db, "--machine", "m", "--branch",
                  "main", "--commit", absl::StrCat("c", i), "--time",
                  absl::StrCat("2026-01-0", i, "T00:00:00Z"),
                  absl::StrCat("h", i, ".json")}),
        dir_);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
  }
  auto check = [&](const Fields& changes, std::vector<std::string> args) {
    Fields next = Machine();
    for (const auto& [k, v] : changes) next[k] = v;
    Write("new.json", RunJson(next, 1.1, 1.0));
    args.insert(args.begin(), {"history", "check", "new.json", "--db", db,
                               "--machine", "m", "--branch", "main"});
    return testing::RunTool(QuoteAll(args), dir_);
  };
  RunResult r =
      check({{"cpufreq.governor", "powersave"}}, {"--fail-on", "cycles>+5%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("cpufreq.governor: performance -> powersave"));
  EXPECT_THAT(r.err, HasSubstr("--allow-env-diff cpufreq.governor"));
  // The verdict says the gate was refused, not that it matched nothing.
  EXPECT_THAT(r.out, HasSubstr("verdict: ERROR (1 of 1 gate(s) refused: the "
                               "environments differ"));
  // A governor cannot move instructions: gated as usual (unchanged).
  r = check({{"cpufreq.governor", "powersave"}},
            {"--fail-on", "instructions>+1%"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // Allowed, the cycles gate is checked: +10 % against the history.
  r = check(
      {{"cpufreq.governor", "powersave"}},
      {"--fail-on", "cycles>+5%", "--allow-env-diff", "cpufreq.governor"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  // The same fingerprint: no diff, the gate as usual.
  r = check({}, {"--fail-on", "cycles>+5%", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("powersave")));
  EXPECT_THAT(r.out, HasSubstr("\"environment\""));
  // An unknown field is a usage error.
  r = check({},
            {"--fail-on", "cycles>+5%", "--allow-env-diff", "cpu.nonsense"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cpu.nonsense"));
}

TEST_F(EnvDiffCommand, CompilerChangeRefusesInstructionsGate) {
  WritePair({{"build.compiler", "clang 16.0.6"}}, 1.02);
  RunResult r = Compare({"--fail-on", "instructions>+1%", "--format", "json"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["exit_code"], 2);
  const nlohmann::json& env = j["environment"];
  EXPECT_EQ(env["differs"], true);
  ASSERT_EQ(env["fields"].size(), 1u);
  EXPECT_EQ(env["fields"][0]["field"], "build.compiler");
  EXPECT_EQ(env["fields"][0]["base"], "gcc 12.2.0");
  EXPECT_EQ(env["fields"][0]["new"], "clang 16.0.6");
  EXPECT_THAT(env["fields"][0]["can_move"].dump(), HasSubstr("instructions"));
  EXPECT_EQ(env["load_average"]["new_end"], "0.40 0.50 0.60");
  // A microcode update cannot move instruction counts: the gate is checked
  // (and fails: +2 %).
  WritePair({{"cpu.microcode", "0x2007108"}}, 1.02);
  EXPECT_EQ(Compare({"--fail-on", "instructions>+1%"}).code, 1);
  // The refusal names the metric once, not "instructions such as
  // instructions"; a class other than the metric's name stays.
  WritePair({{"build.compiler", "clang 16.0.6"}}, 1.02);
  r = Compare({"--fail-on", "instructions>+1%"});
  EXPECT_THAT(r.err, HasSubstr("which can move instructions; run both"));
  EXPECT_THAT(r.err, Not(HasSubstr("such as instructions")));
  r = Compare({"--fail-on", "cycles>+1%"});
  EXPECT_THAT(r.err, HasSubstr("which can move hardware events such as "
                               "cycles; run both"));
}

TEST_F(EnvDiffCommand, IdenticalFingerprintsPrintNoDiff) {
  WritePair({});
  for (const char* format : {"table", "markdown"}) {
    RunResult r = Compare({"--format", format, "--fail-on", "cycles>+5%"});
    EXPECT_EQ(r.code, 1) << format << r.out << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("nvironment"))) << format;
    EXPECT_THAT(r.err, Not(HasSubstr("fingerprint"))) << format;
  }
  RunResult r = Compare({"--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["environment"]["differs"], false);
  EXPECT_TRUE(j["environment"]["fields"].empty());
}

TEST_F(EnvDiffCommand, FilesWithoutFingerprintsSayItOnceAndGateAsBefore) {
  Write("base.json", RunJson({}, 1.0, 1.0));
  Write("new.json", RunJson({}, 1.1, 1.0));
  RunResult r = Compare({"--fail-on", "cycles>+5%", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  size_t said = 0;
  for (size_t at = r.err.find("no environment fingerprint");
       at != std::string::npos;
       at = r.err.find("no environment fingerprint", at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("base.json and new.json"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"environment\"")));
  // One side with a fingerprint: the block says which has none.
  Write("new.json", RunJson(Machine(), 1.1, 1.0));
  r = Compare({"--fail-on", "cycles>+5%"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("no fingerprint in the base file"));
}

TEST_F(EnvDiffCommand, MarkdownBlockFollowsTheHeading) {
  WritePair({{"cpufreq.boost", "on"}, {"kernel.release", "6.12.0"}});
  RunResult r = Compare({"--format", "markdown"});
  EXPECT_EQ(r.code, 0) << r.err;
  // After the heading, above the base/new line (with what else is said
  // there: these runs' uniform +10 % is also common-mode drift).
  ASSERT_THAT(r.out, ::testing::StartsWith("## perfcounters compare\n\n"));
  const size_t block = r.out.find("**Environment differs** (2 fields");
  ASSERT_NE(block, std::string::npos) << r.out;
  EXPECT_LT(block, r.out.find("Base: `base.json`"));
  EXPECT_THAT(r.out, HasSubstr("- `cpufreq.boost`: off -> on (can move "
                               "times, hardware events)"));
}

TEST_F(EnvDiffCommand, UnknownAllowedFieldIsAUsageError) {
  WritePair({});
  RunResult r = Compare({"--allow-env-diff", "governor"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("'governor' is not a fingerprint field"));
  EXPECT_THAT(r.err, HasSubstr("cpufreq.governor"));
}

TEST_F(EnvDiffCommand, ReportShowsTheDiffAndRefusesTheGate) {
  WritePair({{"smt.active", "0"}});
  RunResult r =
      testing::RunTool(QuoteAll({"report", "base.json", "new.json", "-o",
                                 "r.html", "--fail-on", "cycles>+5%"}),
                       dir_);
  EXPECT_EQ(r.code, 2) << r.err;
  const std::string html = testing::Slurp(dir_ + "/r.html");
  EXPECT_THAT(html, HasSubstr("environment differs (1 field"));
  EXPECT_THAT(html, HasSubstr("smt.active: (not recorded) -&gt; 0"));
  EXPECT_THAT(html, HasSubstr("ERROR (environment differs)"));
  // One field a line, as on the console: newlines, not "\\n" text.
  EXPECT_THAT(html, HasSubstr("environment differs (1 field):\n  smt.active"));
  EXPECT_THAT(html, Not(HasSubstr("\\n  smt.active")));
  EXPECT_THAT(html, Not(HasSubstr("--format json")));
}

// A kernel update moves only what is counted in kernel mode: a plain
// `instructions` (user space only in a benchmark run) is gated as usual.
TEST_F(EnvDiffCommand, KernelChangeLeavesPlainInstructionsGated) {
  WritePair({{"kernel.release", "6.19.0"}}, 1.10);
  RunResult r = Compare({"--fail-on", "instructions>+5%"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("refused"))) << r.err;
  r = Compare({"--fail-on", "cycles>+5%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("refused"));
  EXPECT_THAT(r.err, HasSubstr("kernel.release"));
  // The block says what was decided: kernel-mode instructions only, not
  // the plain (user-space) instructions whose gate passed.
  EXPECT_THAT(r.out, HasSubstr("kernel.release: 6.1.0-18-amd64 -> 6.19.0 "
                               "(can move times, hardware events, "
                               "kernel-mode instructions (:k), software "
                               "events)"));
}

// A field this version does not know (a later perfcounters recorded it) is
// refused conservatively, and the --allow-env-diff the message suggests
// is accepted.
TEST_F(EnvDiffCommand, NewerFieldCanBeAllowedAsTheMessageSays) {
  WritePair({{"cpu.newthing", "2"}});
  RunResult r = Compare({"--fail-on", "cycles>+5%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("--allow-env-diff cpu.newthing"));
  r = Compare({"--fail-on", "cycles>+5%", "--allow-env-diff", "cpu.newthing"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("not a fingerprint field")));
}

TEST(EnvDiffTable, MetricClasses) {
  EXPECT_EQ(ClassifyMetric("real_time", ""), MetricClass::kTime);
  EXPECT_EQ(ClassifyMetric("task-clock", ""), MetricClass::kTime);
  EXPECT_EQ(ClassifyMetric("bytes_per_second", ""), MetricClass::kTime);
  EXPECT_EQ(ClassifyMetric("instructions:u", ""), MetricClass::kInstructions);
  EXPECT_EQ(ClassifyMetric("cycles", ""), MetricClass::kHardware);
  EXPECT_EQ(ClassifyMetric("IPC", ""), MetricClass::kHardware);
  EXPECT_EQ(ClassifyMetric("L1-dcache-load-misses", ""),
            MetricClass::kHardware);
  EXPECT_EQ(ClassifyMetric("BR_MISP_RETIRED.ALL_BRANCHES",
                           "cycles,BR_MISP_RETIRED.ALL_BRANCHES:u"),
            MetricClass::kHardware);
  EXPECT_EQ(ClassifyMetric("page-faults", ""), MetricClass::kSoftware);
  EXPECT_EQ(ClassifyMetric("sched:sched_switch", ""), MetricClass::kSoftware);
  EXPECT_EQ(ClassifyMetric("items", "cycles"), MetricClass::kOther);
}

TEST(EnvDiffTable, WhatMovesWhat) {
  EXPECT_TRUE(FieldMoves("cpufreq.governor", MetricClass::kTime, false));
  EXPECT_TRUE(FieldMoves("cpufreq.governor", MetricClass::kHardware, false));
  EXPECT_FALSE(
      FieldMoves("cpufreq.governor", MetricClass::kInstructions, false));
  EXPECT_TRUE(FieldMoves("cpu.model_name", MetricClass::kInstructions, false));
  EXPECT_TRUE(FieldMoves("glibc.version", MetricClass::kInstructions, false));
  EXPECT_FALSE(FieldMoves("cpu.microcode", MetricClass::kInstructions, false));
  // A kernel moves instructions counted in kernel mode only.
  EXPECT_TRUE(FieldMoves("kernel.release", MetricClass::kInstructions, false));
  EXPECT_FALSE(FieldMoves("kernel.release", MetricClass::kInstructions, true));
  EXPECT_FALSE(FieldMoves("loadavg.start", MetricClass::kTime, false));
  EXPECT_FALSE(FieldMoves("build.compiler", MetricClass::kOther, false));
}

TEST(EnvDiffTable, FingerprintFromContextAndContextEnd) {
  absl::StatusOr<BenchmarkFile> f =
      ParseBenchmarkJson(RunJson(Machine(), 1.0, 1.0), "f.json");
  ASSERT_TRUE(f.ok()) << f.status();
  Fingerprint fp = FingerprintOf(*f);
  Fields want = Machine();
  want["gbench.build_type"] = "release";
  EXPECT_EQ(fp, Fingerprint(want.begin(), want.end()));
  f = ParseBenchmarkJson(RunJson({}, 1.0, 1.0), "old.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(FingerprintOf(*f).empty());
}

}  // namespace
}  // namespace perfcounters::tools
