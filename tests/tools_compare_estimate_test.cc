// tools_compare_estimate_test.cc: multiplexed values (benchmark_ext's
// "<label>.coverage" and "<label>.mux_intervals" keys) are flagged as
// estimates by `compare` in every format, by `report`'s tables, and by
// `report --db`'s trend charts: exactly those values (and the derived
// metrics resting on them), never the ones on the PMU the whole time. The
// built command runs on the sample files (testdata base.json, new.json)
// with the keys benchmark_ext writes added to some of their counters.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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
using testing::Slurp;

// (benchmark, metric, side) of a flagged value; side "base" or "new".
using Flag = std::tuple<std::string, std::string, std::string>;

// What the modified files flag: new's BM_sort/1024 instructions were on the
// PMU 40 % of the batch over 3.2 multiplexing intervals (IPC rests on
// them, and so does cpi); base's BM_copy instructions 80 % over many
// intervals (no .mux_intervals key). BM_copy's base IPC and cpi are not
// counted (cycles are not): no value, nothing to flag.
const std::set<Flag> kFlagged = {{"BM_sort/1024", "instructions", "new"},
                                 {"BM_sort/1024", "IPC", "new"},
                                 {"BM_sort/1024", "cpi", "new"},
                                 {"BM_copy", "instructions", "base"}};

// The sample file `name` with `keys` added to every iteration row of
// benchmark `bench`.
std::string WithKeys(const std::string& name, const std::string& bench,
                     const std::map<std::string, double>& keys) {
  nlohmann::ordered_json root =
      nlohmann::ordered_json::parse(Slurp(testing::kTestdata + "/" + name));
  for (auto& e : root["benchmarks"]) {
    if (e["run_name"] != bench || e["run_type"] != "iteration") continue;
    for (const auto& [k, v] : keys) e[k] = v;
  }
  return root.dump();
}

class Estimates : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFCOUNTERS_REQUIRE_TESTDATA();
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_, /*fresh=*/true));
    std::ofstream(dir_ + "/base.json")
        << WithKeys("base.json", "BM_copy", {{"instructions.coverage", 0.8}});
    std::ofstream(dir_ + "/new.json") << WithKeys(
        "new.json", "BM_sort/1024",
        {{"instructions.coverage", 0.4}, {"instructions.mux_intervals", 3.2}});
  }
  RunResult Run(const std::vector<std::string>& args) {
    return testing::RunTool(QuoteAll(args), dir_);
  }
  std::string dir_;
};

const std::vector<std::string> kGates = {"--fail-on", "instructions>+0.5%",
                                         "--fail-on", "cpu_time>+50%"};

std::vector<std::string> Args(const std::string& format) {
  std::vector<std::string> args = {"compare", "base.json", "new.json",
                                   "--format", format};
  args.insert(args.end(), kGates.begin(), kGates.end());
  return args;
}

TEST_F(Estimates, JsonFlagsExactlyTheMultiplexedSides) {
  const RunResult r = Run(Args("json"));
  ASSERT_EQ(r.code, 1) << r.err;  // instructions +1.00% on BM_sort/1024
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::set<Flag> flagged;
  size_t sides = 0;
  for (const auto& b : j["benchmarks"]) {
    for (const auto& m : b["metrics"]) {
      for (const char* side : {"base", "new"}) {
        ++sides;
        ASSERT_TRUE(m[side]["estimated"].is_boolean()) << m.dump();
        if (!m[side]["estimated"].get<bool>()) {
          EXPECT_FALSE(m[side].contains("coverage")) << m.dump();
          continue;
        }
        flagged.insert({b["name"], m["metric"], side});
      }
      // The side key is no metric of its own.
      EXPECT_EQ(m["metric"].get<std::string>().find(".mux_intervals"),
                std::string::npos);
    }
  }
  EXPECT_GT(sides, 20u);
  EXPECT_EQ(flagged, kFlagged);
  // The coverage and intervals as written (IPC: of its inputs).
  for (const auto& b : j["benchmarks"]) {
    for (const auto& m : b["metrics"]) {
      if (b["name"] == "BM_sort/1024" &&
          (m["metric"] == "instructions" || m["metric"] == "IPC")) {
        EXPECT_EQ(m["new"]["coverage"], 0.4);
        EXPECT_EQ(m["new"]["mux_intervals"], 3.2);
      }
      if (b["name"] == "BM_copy" && m["metric"] == "instructions") {
        EXPECT_EQ(m["base"]["coverage"], 0.8);
        EXPECT_FALSE(m["base"].contains("mux_intervals"));
      }
    }
  }
  // Gates: the instructions gate checked two estimates (one side each) and
  // its violation is one; the time gate none.
  ASSERT_EQ(j["gates"].size(), 2u);
  EXPECT_EQ(j["gates"][0]["estimated"], 2);
  ASSERT_EQ(j["gates"][0]["violations"].size(), 1u);
  EXPECT_EQ(j["gates"][0]["violations"][0]["estimated"], true);
  EXPECT_EQ(j["gates"][1]["estimated"], 0);
  for (const auto& v : j["gates"][1]["violations"]) {
    EXPECT_EQ(v["estimated"], false);
  }
}

TEST_F(Estimates, TableMarksExactlyTheMultiplexedValues) {
  std::vector<std::string> args = Args("table");
  args.push_back("--color");
  args.push_back("never");
  const RunResult r = Run(args);
  ASSERT_EQ(r.code, 1) << r.err;
  std::set<Flag> flagged;
  std::string bench;
  size_t rows = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (line.empty() || absl::StartsWith(line, "Benchmark")) continue;
    if (absl::StartsWith(line, "gate ") || absl::StartsWith(line, "verdict"))
      break;
    const bool continued = line.front() == ' ';
    std::vector<std::string> cells =
        absl::StrSplit(absl::StripLeadingAsciiWhitespace(line),
                       absl::ByString("  "), absl::SkipEmpty());
    // Cells split at runs of spaces: [benchmark,] metric, base, new, ...
    std::vector<std::string> c;
    for (std::string& x : cells) {
      c.push_back(std::string(absl::StripAsciiWhitespace(x)));
    }
    if (!continued) {
      bench = c[0];
      c.erase(c.begin());
    }
    if (c.size() < 3 || absl::StartsWith(c[0], "(")) continue;  // a note
    ++rows;
    if (absl::StartsWith(c[1], "~")) flagged.insert({bench, c[0], "base"});
    if (absl::StartsWith(c[2], "~")) flagged.insert({bench, c[0], "new"});
  }
  EXPECT_GT(rows, 10u) << r.out;
  EXPECT_EQ(flagged, kFlagged) << r.out;
  EXPECT_THAT(r.out, HasSubstr("~: multiplexed, an estimate"));
  // The gate lines say what they rest on.
  EXPECT_THAT(r.out, HasSubstr("gate instructions>+0.5%: FAILED (2 checked, 1 "
                               "violated, 2 on multiplexed estimates"));
  // The time gate rests on no estimate: its line says none.
  const size_t time_gate = r.out.find("gate cpu_time>+50%: passed (2 checked");
  ASSERT_NE(time_gate, std::string::npos) << r.out;
  EXPECT_THAT(r.out.substr(time_gate, r.out.find('\n', time_gate) - time_gate),
              Not(HasSubstr("multiplexed")));
  EXPECT_THAT(r.out, Not(HasSubstr("mux_intervals")));
}

TEST_F(Estimates, MarkdownMarksExactlyTheMultiplexedValues) {
  const RunResult r = Run(Args("markdown"));
  ASSERT_EQ(r.code, 1) << r.err;
  std::set<Flag> flagged;
  size_t rows = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (!absl::StartsWith(line, "| `")) continue;
    const std::vector<std::string> c = absl::StrSplit(line, " | ");
    if (c.size() < 4 || absl::StrContains(c[0], "Gate")) continue;
    const std::string bench(absl::StripSuffix(
        absl::StripPrefix(absl::StripPrefix(c[0], "| "), "`"), "`"));
    if (c[1] == "passed" || absl::StartsWith(c[1], "**")) continue;  // gates
    ++rows;
    // The marker is escaped: GitHub reads ~x~ as struck through.
    if (absl::StartsWith(c[2], "\\~")) flagged.insert({bench, c[1], "base"});
    if (absl::StartsWith(c[3], "\\~")) flagged.insert({bench, c[1], "new"});
    EXPECT_FALSE(absl::StartsWith(c[2], "~") || absl::StartsWith(c[3], "~"))
        << line;
  }
  EXPECT_GT(rows, 5u) << r.out;
  EXPECT_EQ(flagged, kFlagged) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\\~: multiplexed, an estimate"));
  EXPECT_THAT(r.out, HasSubstr("`instructions>+0.5%`: 2 checked value(s) on "
                               "multiplexed estimates"));
  EXPECT_THAT(r.out, Not(HasSubstr("`cpu_time>+50%`: ")));
}

TEST_F(Estimates, NothingFlaggedWithoutMultiplexing) {
  for (const char* format : {"table", "markdown", "json"}) {
    const RunResult r = testing::RunTool(
        QuoteAll({"compare", "base.json", "new.json", "--format", format,
                  "--fail-on", "instructions>+0.5%"}),
        testing::kTestdata);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("~"))) << format;
    EXPECT_THAT(r.out, Not(HasSubstr("multiplexed"))) << format;
    EXPECT_THAT(r.out, Not(HasSubstr("\"estimated\": true"))) << format;
  }
}

// (metric, benchmark) -> the runs (columns) whose cell is marked, from the
// report's tables.
std::set<Flag> ReportFlags(const std::string& html, size_t* cells) {
  std::set<Flag> flagged;
  const std::regex section(
      "<section id=\"m-[^\"]*\" class=\"metric\" "
      "data-metric=\"([^\"]*)\"");
  const std::regex row("<tr data-benchmark=\"([^\"]*)\">([\\s\\S]*?)</tr>");
  const std::regex td(
      "<td( data-estimated)?( class=\"[^\"]*\")?( "
      "title=\"[^\"]*\")?>");
  std::vector<std::pair<size_t, std::string>> sections;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), section);
       it != std::sregex_iterator(); ++it) {
    sections.emplace_back(it->position(), (*it)[1]);
  }
  for (size_t s = 0; s < sections.size(); ++s) {
    const size_t end =
        s + 1 < sections.size() ? sections[s + 1].first : html.size();
    const std::string part =
        html.substr(sections[s].first, end - sections[s].first);
    for (auto it = std::sregex_iterator(part.begin(), part.end(), row);
         it != std::sregex_iterator(); ++it) {
      const std::string body = (*it)[2];
      size_t column = 0;
      // Cells: name, one per run, then Δ, p, chart.
      for (auto c = std::sregex_iterator(body.begin(), body.end(), td);
           c != std::sregex_iterator(); ++c, ++column) {
        if (column == 0 || column > 2) continue;
        ++*cells;
        if ((*c)[1].matched) {
          flagged.insert(
              {(*it)[1], sections[s].second, column == 1 ? "base" : "new"});
        }
      }
    }
  }
  return flagged;
}

TEST_F(Estimates, ReportMarksExactlyTheMultiplexedCells) {
  const RunResult r =
      Run({"report", "base.json", "new.json", "-o", "report.html"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(dir_ + "/report.html");
  size_t cells = 0;
  EXPECT_EQ(ReportFlags(html, &cells), kFlagged);
  EXPECT_GT(cells, 20u);
  EXPECT_THAT(html, HasSubstr("on the PMU 40.0% of the batch, over 3.2 "
                              "multiplexing intervals (fewer than 25): a "
                              "rough estimate"));
  EXPECT_THAT(html, HasSubstr("on the PMU 80.0% of the batch, an estimate"));
  // Four marked cells; the legend in the sections with one (instructions,
  // IPC, cpi) only.
  EXPECT_EQ(std::count(html.begin(), html.end(), '~'), 4 + 3);
  // The sample files alone: nothing marked.
  const RunResult plain = testing::RunTool(
      QuoteAll({"report", "base.json", "new.json", "-o", dir_ + "/plain.html"}),
      testing::kTestdata);
  ASSERT_EQ(plain.code, 0) << plain.err;
  cells = 0;
  EXPECT_EQ(ReportFlags(Slurp(dir_ + "/plain.html"), &cells), std::set<Flag>{});
  EXPECT_GT(cells, 20u);
  EXPECT_THAT(Slurp(dir_ + "/plain.html"), Not(HasSubstr("data-estimated")));
}

TEST_F(Estimates, TrendChartsMarkMultiplexedPoints) {
  if (!PERFCOUNTERS_TOOL_HAS_HISTORY) {
    GTEST_SKIP() << "the command is built without the history store "
                    "(PERFCOUNTERS_WITH_HISTORY=OFF or no libsqlite3/libpq)";
  }
  const std::string db = dir_ + "/history.sqlite";
  int n = 0;
  for (const char* f : {"base.json", "new.json"}) {
    ++n;
    const RunResult r = Run({"history", "add", "--db", db, "--branch", "main",
                             "--commit", absl::StrCat("c", n), "--time",
                             absl::StrCat("2026-11-30T12:0", n, ":00Z"), f});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const RunResult r = Run({"report", "--db", db, "-o", "trends.html"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(dir_ + "/trends.html");
  // Per chart ("<h2>BENCHMARK &mdash; METRIC</h2>"): its hollow points.
  std::map<std::pair<std::string, std::string>, size_t> marked;
  size_t charts = 0;
  const std::vector<std::string> parts = absl::StrSplit(html, "<h2>");
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string heading = parts[i].substr(0, parts[i].find("</h2>"));
    if (heading == "Index") continue;  // the page's index of its charts
    const std::vector<std::string> title = absl::StrSplit(heading, " &mdash; ");
    ASSERT_EQ(title.size(), 2u) << parts[i];
    ++charts;
    size_t points = 0;
    for (size_t at = 0;
         (at = parts[i].find("class=\"pt mux\"", at)) != std::string::npos;
         ++at) {
      ++points;
    }
    if (points > 0) marked[{title[0], title[1]}] = points;
  }
  EXPECT_GT(charts, 6u);
  const std::map<std::pair<std::string, std::string>, size_t> expected = {
      {{"BM_sort/1024", "instructions"}, 1},
      {{"BM_sort/1024", "IPC"}, 1},
      {{"BM_sort/1024", "cpi"}, 1},
      {{"BM_copy", "instructions"}, 1}};
  EXPECT_EQ(marked, expected);
  EXPECT_THAT(html, HasSubstr("data-coverage=0.4"));
  EXPECT_THAT(html, HasSubstr("data-coverage=0.8"));
  EXPECT_THAT(html, HasSubstr("1 of 2 points (hollow) were multiplexed"));
}

}  // namespace
}  // namespace perfcounters::tools
