// tools_history_fingerprint_test.cc: a change of the machine's fingerprint
// is a known boundary of the history's series (history_fingerprints.h):
// `history changes` lists it as kind "environment" (not a step of the
// code), the change-point method does not span it, `history check`'s level
// starts there, and `report --db` marks it in the trend chart; on SQLite
// and on PostgreSQL (a server of the test's own, support/pg_server.h).
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/pg_server.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::PgServer;
using testing::QuoteAll;
using testing::RunResult;

using Fields = std::map<std::string, std::string>;

Fields Machine(const std::string& governor) {
  return {{"cpu.vendor", "GenuineIntel"},
          {"cpu.model_name", "Intel(R) Xeon(R) Gold 6154"},
          {"cpufreq.governor", governor},
          {"kernel.release", "6.1.0-18-amd64"},
          {"build.compiler", "gcc 12.2.0"}};
}

// One run: BM_a and BM_b, three repetitions each; cpu_time (a time) is
// 1000 (BM_b 2000) x `time_scale` x a small deterministic wiggle (run
// `run`), instructions exactly 5000 (a governor cannot move them).
std::string RunJson(const Fields& env, int run, double time_scale,
                    double b_scale = 1.0) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "now"},
                     {"library_build_type", "release"},
                     {"perfcounters.events", "instructions"}};
  for (const auto& [k, v] : env) {
    root["context"]["perfcounters.env." + k] = v;
  }
  // Different in every run (the load, another build), and never a
  // boundary.
  root["context"]["perfcounters.env.loadavg.start"] =
      absl::StrCat(run * 0.37, " 1.00 1.00");
  root["context"]["perfcounters.env.binary.build_id"] =
      absl::StrCat("b01d", run);
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (const char* name : {"BM_a", "BM_b"}) {
    const bool b = name[3] == 'b';
    const double wiggle = 1 + 0.004 * std::sin(run * 2.1 + (b ? 1 : 0));
    for (int i = 0; i < 3; ++i) {
      const double t = (b ? 2000.0 * b_scale : 1000.0) * time_scale * wiggle *
                       (1 + 0.0005 * i);
      root["benchmarks"].push_back({{"name", name},
                                    {"run_name", name},
                                    {"run_type", "iteration"},
                                    {"repetition_index", i},
                                    {"iterations", 100},
                                    {"time_unit", "ns"},
                                    {"real_time", t},
                                    {"cpu_time", t},
                                    {"instructions", 5000.0}});
    }
  }
  return root.dump(2);
}

class HistoryFingerprintTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath(absl::StrCat("fp", ++count_));
    ASSERT_TRUE(testing::MakeDirectories(dir_, /*fresh=*/true));
  }
  // A fresh store of the backend.
  std::string NewStore() {
    if (GetParam() == "postgresql") {
      if (!PgServer::Get().ok()) return "";
      return PgServer::Get().NewDatabase();
    }
    return absl::StrCat(dir_, "/h", ++stores_, ".db");
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  // Adds run `i` (commit c<i>, day i) to `db`.
  void Add(const std::string& db, int i, const std::string& json) {
    Write("run.json", json);
    const RunResult r = testing::RunTool(
        QuoteAll({"history", "add", "--db", db, "--machine", "m", "--branch",
                  "main", "--commit", absl::StrCat("c", i), "--time",
                  absl::StrFormat("2026-01-%02dT00:00:00Z", i), "run.json"}),
        dir_);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
  }
  RunResult Tool(const std::vector<std::string>& args) {
    return testing::RunTool(QuoteAll(args), dir_);
  }
  // `history changes --format json` of `db`, parsed.
  nlohmann::json Changes(const std::string& db) {
    const RunResult r = Tool({"history", "changes", "--db", db, "--format",
                              "json", "--metric", "cpu_time"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_array()) << r.out;
    return j;
  }
  std::string dir_;
  int stores_ = 0;
  static inline int count_ = 0;
};

#define SKIP_WITHOUT_SERVER()                                          \
  if (GetParam() == "postgresql" && !PgServer::Get().ok()) {           \
    GTEST_SKIP() << "SKIPPED (PostgreSQL): " << PgServer::Get().why(); \
  }

// Runs 1-6 on the performance governor, 7-16 on powersave with every time
// +20 %, and BM_b +15 % more from run 12 (the code): the governor change is
// one environment change per time series at run 7, not a step; BM_b's
// step at 12 is still found; instructions, which a governor cannot move,
// have neither. The same times with one fingerprint: a step at run 7.
TEST_P(HistoryFingerprintTest, ChangesListAFingerprintChangeAsEnvironment) {
  SKIP_WITHOUT_SERVER();
  const std::string db = NewStore(), same = NewStore();
  ASSERT_FALSE(db.empty() || same.empty()) << PgServer::Get().why();
  for (int i = 1; i <= 16; ++i) {
    const double scale = i >= 7 ? 1.2 : 1.0, b = i >= 12 ? 1.15 : 1.0;
    Add(db, i,
        RunJson(Machine(i >= 7 ? "powersave" : "performance"), i, scale, b));
    Add(same, i, RunJson(Machine("performance"), i, scale, b));
  }
  const nlohmann::json j = Changes(db);
  std::map<std::string, std::vector<nlohmann::json>> by;
  for (const nlohmann::json& c : j) {
    by[c["benchmark"].get<std::string>()].push_back(c);
  }
  ASSERT_EQ(by["BM_a"].size(), 1u) << j.dump(1);
  for (const char* name : {"BM_a", "BM_b"}) {
    const nlohmann::json& env = by[name].at(0);
    EXPECT_EQ(env["kind"], "environment") << env.dump(1);
    EXPECT_EQ(env["commit"], "c7");
    EXPECT_NEAR(env["change_percent"].get<double>(), 20, 1.5) << name;
    ASSERT_EQ(env["environment"].size(), 1u) << env.dump(1);
    EXPECT_EQ(env["environment"][0]["field"], "cpufreq.governor");
    EXPECT_EQ(env["environment"][0]["before"], "performance");
    EXPECT_EQ(env["environment"][0]["after"], "powersave");
  }
  ASSERT_EQ(by["BM_b"].size(), 2u) << j.dump(1);
  EXPECT_EQ(by["BM_b"][1]["kind"], "step");
  EXPECT_EQ(by["BM_b"][1]["commit"], "c12");
  EXPECT_NEAR(by["BM_b"][1]["change_percent"].get<double>(), 15, 1.5);
  // Instructions: no boundary, no change.
  RunResult r = Tool({"history", "changes", "--db", db, "--metric",
                      "instructions", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false),
            nlohmann::json::array())
      << r.out;
  // The table names the field.
  r = Tool({"history", "changes", "--db", db, "--metric", "cpu_time"});
  EXPECT_THAT(r.out, HasSubstr("environment: cpufreq.governor performance -> "
                               "powersave"));
  // One fingerprint: the same +20 % is a step of the series at run 7.
  const nlohmann::json s = Changes(same);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0]["kind"], "step") << s.dump(1);
  EXPECT_EQ(s[0]["commit"], "c7");
  EXPECT_THAT(s.dump(), Not(HasSubstr("environment\":[")));
}

// Twenty runs on performance, two on powersave at +20 %, a new run on
// powersave at the same level: the check's level starts at the fingerprint
// change (2 runs, too few for a change point of their own), so a +5 % gate
// passes; with one fingerprint the level is all 22 runs and the gate fails.
TEST_P(HistoryFingerprintTest, CheckStartsTheLevelAtAFingerprintChange) {
  SKIP_WITHOUT_SERVER();
  const std::string db = NewStore(), same = NewStore();
  ASSERT_FALSE(db.empty() || same.empty()) << PgServer::Get().why();
  for (int i = 1; i <= 22; ++i) {
    const double scale = i >= 21 ? 1.2 : 1.0;
    Add(db, i,
        RunJson(Machine(i >= 21 ? "powersave" : "performance"), i, scale));
    Add(same, i, RunJson(Machine("performance"), i, scale));
  }
  auto check = [&](const std::string& store, const std::string& governor) {
    Write("new.json", RunJson(Machine(governor), 23, 1.2));
    return Tool({"history", "check", "new.json", "--db", store, "--machine",
                 "m", "--branch", "main", "--fail-on", "cpu_time>+5%",
                 "--format", "json"});
  };
  RunResult r = check(db, "powersave");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_THAT(j.dump(), HasSubstr("\"history_runs\":2,")) << r.out;
  r = check(same, "performance");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_THAT(j.dump(), HasSubstr("\"history_runs\":22,")) << r.out;
}

// The trend chart of a time series marks the change (a green dotted line,
// class "cp env", its label naming the field); an instructions chart has
// no such mark.
TEST_P(HistoryFingerprintTest, TrendChartMarksTheFingerprintChange) {
  SKIP_WITHOUT_SERVER();
  const std::string db = NewStore();
  ASSERT_FALSE(db.empty()) << PgServer::Get().why();
  for (int i = 1; i <= 12; ++i) {
    Add(db, i,
        RunJson(Machine(i >= 7 ? "powersave" : "performance"), i,
                i >= 7 ? 1.2 : 1.0));
  }
  for (const char* metric : {"cpu_time", "instructions"}) {
    const std::string page = dir_ + "/" + metric + ".html";
    const RunResult r = Tool({"report", "--db", db, "--metric", metric,
                              "--benchmark", "^BM_a$", "-o", page});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string html = testing::Slurp(page);
    if (std::string(metric) == "cpu_time") {
      EXPECT_THAT(html, HasSubstr("class=\"cp env\""));
      EXPECT_THAT(html, HasSubstr("class=\"cpl env\""));
      EXPECT_THAT(html, HasSubstr(">env cpufreq.governor +2"));
      EXPECT_THAT(html, HasSubstr("1 environment change<"));
    } else {
      EXPECT_THAT(html, Not(HasSubstr("class=\"cp env\"")));
      EXPECT_THAT(html, Not(HasSubstr("environment change<")));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryFingerprintTest,
                         ::testing::Values("sqlite", "postgresql"));

}  // namespace
}  // namespace perfcounters::tools
