// tools_history_changes_test: `perfcounters history changes` and `history
// check` on both back ends (support/history_fixture.h): synthetic series
// with known change points, check's gates and baseline, and the t
// distribution the check rests on against SciPy's.
// Natively only: the emulated arm64 machine has no PostgreSQL server, and
// nothing here touches the PMU.

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history_changes.h"
#include "nlohmann/json.hpp"
#include "statistics.h"
#include "support/history_fixture.h"
#include "support/tool_runner.h"

namespace {

using perfcounters::tools::testing::Exists;
using perfcounters::tools::testing::HistoryTest;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunJson;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunShell;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Slurp;
using perfcounters::tools::testing::Write;
using ::testing::HasSubstr;

// Uniform in [-1, 1) from a fixed-seed generator (portable: the engine's
// output, not a distribution's).
struct Noise {
  std::mt19937_64 engine;
  explicit Noise(uint64_t seed) : engine(seed) {}
  double operator()() {
    return static_cast<double>(engine() >> 11) * 0x1p-53 * 2 - 1;
  }
};

std::vector<double> Level(size_t n, double level, Noise& noise) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(level * (1 + 0.0005 * noise()));
  return v;
}

TEST_P(HistoryTest, OneChangePointAtRun41) {
  Noise noise(41);
  std::vector<double> v = Level(40, 1000, noise);
  for (double x : Level(20, 1020, noise)) v.push_back(x);
  AddSeries(v);
  for (const char* method : {"otava", "robust"}) {
    SCOPED_TRACE(method);
    const nlohmann::json cps = Changes(method);
    ASSERT_EQ(cps.size(), 1u) << cps.dump(2);
    EXPECT_EQ(cps[0]["method"], method);
    EXPECT_EQ(cps[0]["kind"], "step");
    EXPECT_EQ(cps[0]["commit"], "c41");
    EXPECT_EQ(cps[0]["benchmark"], "BM_a");
    EXPECT_EQ(cps[0]["branch"], "main");
    EXPECT_NEAR(cps[0]["change_percent"].get<double>(), 2.0, 0.1);
    EXPECT_LT(cps[0]["p_value"].get<double>(), 0.001);
    EXPECT_NEAR(cps[0]["before"].get<double>(), 1000, 1);
    EXPECT_NEAR(cps[0]["after"].get<double>(), 1020, 1);
  }
  // The page marks it.
  const std::string html = ScratchPath("trends.html");
  const RunResult r = RunTool(absl::StrCat(
      "report --db ", Quote(db_), " --benchmark BM_a -o ", Quote(html)));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Slurp(html), HasSubstr("class=cp"));
  EXPECT_THAT(Slurp(html), HasSubstr("+2.0"));
}

TEST_P(HistoryTest, NoChangePointOnAFlatSeries) {
  Noise noise(7);
  AddSeries(Level(60, 1000, noise));
  EXPECT_EQ(Changes("otava"), nlohmann::json::array());
  EXPECT_EQ(Changes("robust"), nlohmann::json::array());
}

TEST_P(HistoryTest, TwoChangePointsBothFound) {
  Noise noise(3);
  std::vector<double> v = Level(40, 1000, noise);
  for (double x : Level(30, 1020, noise)) v.push_back(x);
  for (double x : Level(30, 1020 * 0.99, noise)) v.push_back(x);
  AddSeries(v);
  for (const char* method : {"otava", "robust"}) {
    SCOPED_TRACE(method);
    const nlohmann::json cps = Changes(method);
    ASSERT_EQ(cps.size(), 2u) << cps.dump(2);
    EXPECT_EQ(cps[0]["commit"], "c41");
    EXPECT_NEAR(cps[0]["change_percent"].get<double>(), 2.0, 0.1);
    EXPECT_EQ(cps[1]["commit"], "c71");
    EXPECT_NEAR(cps[1]["change_percent"].get<double>(), -1.0, 0.1);
  }
}

TEST_P(HistoryTest, CheckTripsOnOnePercentAndPassesOneHundredth) {
  Noise noise(11);
  AddSeries(Level(40, 1000, noise));
  const std::string up = Write("up.json", RunJson(1010, 1000));
  RunResult r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                                     " --branch main --fail-on "
                                     "'instructions>+0.5%' ",
                                     Quote(up)));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("FAILED"));
  const std::string same = Write("same.json", RunJson(1000.1, 1001));
  r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                           " --branch main --format json --fail-on "
                           "'instructions>+0.5%' ",
                           Quote(same)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"][0]["history_runs"], 30);  // --window's default
  // A gate that checks nothing is an error, as compare's.
  r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                           " --branch nosuchbranch --fail-on "
                           "'instructions>+0.5%' ",
                           Quote(same)));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
}

TEST_P(HistoryTest, CheckBaselineIsTheLevelSinceTheLastChange) {
  Noise noise(5);
  std::vector<double> v = Level(40, 1000, noise);
  for (double x : Level(12, 1020, noise)) v.push_back(x);
  AddSeries(v);
  // +0.1 % over the new level: passes (over the old it would be +2.1 %).
  const std::string f = Write("lvl.json", RunJson(1021, 2000));
  for (const char* method : {"otava", "robust"}) {
    SCOPED_TRACE(method);
    const RunResult r = RunTool(absl::StrCat(
        "history check --db ", Quote(db_), " --method ", method,
        " --branch main --format json --fail-on 'instructions>+0.5%' ",
        Quote(f)));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["rows"][0]["history_runs"], 12);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryTest,
                         ::testing::Values("sqlite", "postgresql"));

// The t distribution against SciPy's (an independent implementation).
TEST(HistoryStatisticsTest, StudentTMatchesScipy) {
  // The last three: p near 1, where x = df / (df + t^2) is near 1 and
  // 1 - x must keep its digits.
  const std::vector<std::pair<double, double>> cases = {
      {0.5, 3},  {2.0, 10},  {3.5, 58},   {10, 40}, {1.96, 1000},
      {0.01, 2}, {1e-6, 58}, {1e-6, 300}, {0, 5}};
  std::string script = "from scipy.stats import t\n";
  for (const auto& [x, df] : cases) {
    absl::StrAppend(&script, "print(repr(2*t.sf(", x, ",", df, ")))\n");
  }
  const std::string py = Write("t.py", script);
  const RunResult r = RunShell(absl::StrCat(
      Exists("/usr/bin/python3") ? "/usr/bin/python3 " : "python3 ",
      Quote(py)));
  if (r.code != 0) GTEST_SKIP() << "needs python3-scipy: " << r.err;
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  for (size_t i = 0; i < cases.size(); ++i) {
    const double want = std::stod(lines[i]);
    const double got =
        perfcounters::tools::StudentTwoSidedP(cases[i].first, cases[i].second);
    EXPECT_NEAR(got, want, 1e-12 + want * 1e-9) << cases[i].first;
  }
}

}  // namespace
