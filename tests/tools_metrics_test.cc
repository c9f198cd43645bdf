// tools_metrics_test.cc: the core library's table of derived metrics
// (metrics.h) in the tools. `compare` computes every metric of the table
// from crafted counters (metrics_base.json / metrics_new.json: exact ratios,
// the :u variants, gbench's libpfm spellings, a metric the file carries, a
// denominator of 0) and gates each by name; `stat` shows them in its four
// outputs; docs/tools.md lists them as the table has them.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compare.h"
#include "compare_output.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/grammar.h"
#include "perfcounters/metrics.h"
#include "stat.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::QuoteAll;
using testing::RunResult;

const std::string& kData = testing::kTestdata;
constexpr double kNotCounted = std::numeric_limits<double>::quiet_NaN();

// The table's strings for absl::StrCat (which takes no std::string_view here).
std::string S(std::string_view v) { return std::string(v); }

// One metric of one benchmark: its median in base and in new (the files'
// repetitions are identical, so the median is the ratio itself).
struct Expected {
  std::string benchmark;
  std::string metric;
  double base;
  double next;  // kNotCounted: present but not counted
};

// metrics_base.json -> metrics_new.json, computed here from the counters.
const std::vector<Expected>& ExpectedMetrics() {
  static const auto* kExpected = new std::vector<Expected>{
      {"BM_all", "IPC", 6000.0 / 3000, 6000.0 / 3090},
      {"BM_all", "cpi", 3000.0 / 6000, 3090.0 / 6000},
      {"BM_all", "branch-miss-rate", 20.0 / 1000, 22.0 / 1000},
      {"BM_all", "cache-miss-rate", 50.0 / 500, 45.0 / 500},
      {"BM_all", "L1-dcache-load-miss-rate", 40.0 / 4000, 44.0 / 4000},
      {"BM_all", "LLC-load-miss-rate", 100.0 / 200, 50.0 / 200},
      // new's dTLB-loads are 0: no rate rather than a wrong one.
      {"BM_all", "dTLB-load-miss-rate", 8.0 / 4000, kNotCounted},
      {"BM_all", "iTLB-load-miss-rate", 1.0 / 1000, 3.0 / 1000},
      {"BM_all", "frontend-stall-ratio", 600.0 / 3000, 618.0 / 3090},
      {"BM_all", "backend-stall-ratio", 900.0 / 3000, 1236.0 / 3090},
      {"BM_all", "retiring", 4000.0 / 10000, 3000.0 / 10000},
      {"BM_all", "bad-speculation", 1000.0 / 10000, 1000.0 / 10000},
      {"BM_all", "frontend-bound", 2000.0 / 10000, 2500.0 / 10000},
      {"BM_all", "backend-bound", 3000.0 / 10000, 3500.0 / 10000},
      {"BM_all", "IPC:u", 5000.0 / 2500, 5000.0 / 2000},
      {"BM_all", "cpi:u", 2500.0 / 5000, 2000.0 / 5000},
      // gbench's libpfm spellings: INSTRUCTIONS, CYCLES, BRANCH-*.
      {"BM_spell", "IPC", 1000.0 / 4000, 1000.0 / 5000},
      {"BM_spell", "cpi", 4000.0 / 1000, 5000.0 / 1000},
      {"BM_spell", "branch-miss-rate", 5.0 / 100, 5.0 / 100},
      // The file's own cpi (0.75, not cycles / instructions = 1).
      {"BM_carries", "cpi", 0.75, 0.8},
      {"BM_carries", "IPC", 1.0, 1.0},
  };
  return *kExpected;
}

Comparison CompareMetricFiles() {
  absl::StatusOr<BenchmarkFile> base =
      LoadBenchmarkJson(kData + "/metrics_base.json");
  absl::StatusOr<BenchmarkFile> next =
      LoadBenchmarkJson(kData + "/metrics_new.json");
  EXPECT_TRUE(base.ok()) << base.status();
  EXPECT_TRUE(next.ok()) << next.status();
  if (!base.ok() || !next.ok()) return {};
  return Compare(*base, *next);
}

const MetricComparison* Find(const Comparison& c, const std::string& bench,
                             const std::string& metric) {
  for (const BenchmarkComparison& b : c.benchmarks) {
    if (b.name != bench) continue;
    for (const MetricComparison& m : b.metrics) {
      if (m.metric == metric) return &m;
    }
  }
  return nullptr;
}

TEST(CompareMetrics, EveryMetricOfTheTableIsComputedExactly) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const Comparison c = CompareMetricFiles();
  for (const Expected& e : ExpectedMetrics()) {
    SCOPED_TRACE(absl::StrCat(e.benchmark, " ", e.metric));
    const MetricComparison* m = Find(c, e.benchmark, e.metric);
    ASSERT_NE(m, nullptr);
    ASSERT_TRUE(m->base.median.has_value());
    EXPECT_EQ(*m->base.median, e.base);
    EXPECT_EQ(m->base.samples.size(), 3u);
    if (std::isnan(e.next)) {
      EXPECT_TRUE(m->next.present);
      EXPECT_FALSE(m->next.median.has_value());
      EXPECT_EQ(m->next.not_counted, 3u);
      EXPECT_FALSE(m->change_pct.has_value());
      continue;
    }
    ASSERT_TRUE(m->next.median.has_value());
    EXPECT_EQ(*m->next.median, e.next);
    ASSERT_TRUE(m->change_pct.has_value());
    EXPECT_DOUBLE_EQ(*m->change_pct, (e.next - e.base) / e.base * 100);
  }
  // Every metric of the table, and nothing else derived.
  for (const Metric& metric : Metrics()) {
    EXPECT_NE(Find(c, "BM_all", CompareMetricName(metric, "")), nullptr)
        << metric.name;
  }
  std::vector<std::string> carries;
  for (const BenchmarkComparison& b : c.benchmarks) {
    if (b.name != "BM_carries") continue;
    for (const MetricComparison& m : b.metrics) carries.push_back(m.metric);
  }
  EXPECT_THAT(carries,
              ::testing::ElementsAre("real_time", "cpu_time", "instructions",
                                     "cycles", "cpi", "IPC"));
}

TEST(CompareMetrics, DirectionsFollowTheTable) {
  EXPECT_EQ(BetterDirection("IPC"), Better::kHigher);
  EXPECT_EQ(BetterDirection("ipc:u"), Better::kHigher);
  EXPECT_EQ(BetterDirection("retiring"), Better::kHigher);
  EXPECT_EQ(BetterDirection("cpi"), Better::kLower);
  EXPECT_EQ(BetterDirection("cpi:u"), Better::kLower);
  EXPECT_EQ(BetterDirection("bad-speculation"), Better::kLower);
  EXPECT_EQ(BetterDirection("branch-miss-rate"), Better::kLower);
  EXPECT_EQ(FormatValue("cpi", 3090.0 / 6000), "0.515");
  EXPECT_EQ(FormatValue("branch-miss-rate", 0.022), "0.022");
  EXPECT_EQ(FormatValue("iTLB-load-miss-rate", 0.001234), "0.00123");
}

// `perfcounters ARGS` in the test data folder.
RunResult Tool(const std::vector<std::string>& args) {
  return testing::RunTool(QuoteAll(args), kData);
}

RunResult Gate(const std::vector<std::string>& gates,
               const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"compare", "metrics_base.json",
                                   "metrics_new.json"};
  for (const std::string& g : gates) {
    args.push_back("--fail-on");
    args.push_back(g);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return Tool(args);
}

TEST(CompareMetrics, GatesAnyMetricOfTheTableByName) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  struct Case {
    std::string gate;
    int code;
  };
  // The repetitions are identical: exact, so any change beyond the
  // threshold is significant.
  const Case cases[] = {
      {"branch-miss-rate>+5%", 1},   // +10% (BM_all); BM_spell 0%
      {"branch-miss-rate>+15%", 0},  //
      {"cpi>+2%", 1},                // +3% (BM_all)
      {"BM_all:cpi>+4%", 0},         //
      {"CPI>+2%", 1},                // case-insensitive
      {"cpi:u<-15%", 1},             // -20%
      {"cpi:u<-25%", 0},             //
      {"IPC:u>+20%", 1},             // +25%
      {"=BM_spell:IPC<-15%", 1},     // -20%, CYCLES/INSTRUCTIONS
      {"retiring<-20%", 1},          // -25%
      {"backend-bound>+20%", 0},     // +16.7%
      {"frontend-stall-ratio>+0%", 0},
      {"backend-stall-ratio>+33%", 1},  // +33.3%
      {"LLC-load-miss-rate>0.3", 0},    // absolute: 0.25 in new
      {"LLC-load-miss-rate>0.2", 1},
      {"iTLB-load-miss-rate>=0.003", 1},
      {"@geomean:cache-miss-rate<-9%", 1},  // -10%
  };
  for (const Case& c : cases) {
    const RunResult r = Gate({c.gate});
    EXPECT_EQ(r.code, c.code) << c.gate << "\n" << r.out << r.err;
  }
}

TEST(CompareMetrics, AGateThatCheckedNothingFailsUnlessAllowed) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  // dTLB-load-miss-rate is not counted in new (dTLB-loads 0).
  RunResult r = Gate({"dTLB-load-miss-rate>+1%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("checked nothing"));
  r = Gate({"dTLB-load-miss-rate>+1%"}, {"--allow-unchecked-gates"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(CompareMetrics, UnknownMetricsAreErrorsNamingTheKnownOnes) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  RunResult r = Gate({"bogus-rate>+1%"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown metric 'bogus-rate'"));
  EXPECT_THAT(r.err, HasSubstr("metrics in these files: real_time, cpu_time"));
  // Only what these files have: no list of the table's derived metrics
  // whose inputs they lack (review-39 D8: a 700-character error).
  EXPECT_THAT(r.err, HasSubstr("a derived metric (IPC, cpi, miss rates, "
                               "...) is among them where the files count "
                               "both its inputs"));
  EXPECT_THAT(r.err, Not(HasSubstr("frontend-stall-ratio")));
  EXPECT_LT(r.err.size(), 450u) << r.err;
  // A metric of the table whose inputs the files lack (base.json counts
  // cycles, instructions and page-faults).
  r = Tool({"compare", "base.json", "new.json", "--fail-on",
            "branch-miss-rate>+1%"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("branch-miss-rate = branch-misses / branches "
                               "needs both counters in the files"));
  r = Tool({"compare", "base.json", "new.json", "--fail-on", "cpi:k>+1%"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cpi:k = cycles:k / instructions:k needs"));
  r = Tool(
      {"compare", "base.json", "new.json", "--fail-on", "BM_sort.*:IPC:k<-1%"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown metric 'IPC:k'"));
  EXPECT_THAT(r.err, HasSubstr("IPC:k = instructions:k / cycles:k needs"));
}

TEST(CompareMetrics, OutputsShowTheMetrics) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult json = Tool(
      {"compare", "metrics_base.json", "metrics_new.json", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  std::map<std::string, double> change;
  for (const nlohmann::json& b : j["benchmarks"]) {
    if (b["name"] != "BM_all") continue;
    for (const nlohmann::json& m : b["metrics"]) {
      if (m["change_pct"].is_number()) change[m["metric"]] = m["change_pct"];
    }
  }
  EXPECT_NEAR(change["cpi:u"], -20.0, 1e-9);
  EXPECT_NEAR(change["branch-miss-rate"], 10.0, 1e-9);
  EXPECT_NEAR(change["retiring"], -25.0, 1e-9);
  EXPECT_FALSE(change.contains("dTLB-load-miss-rate"));  // not counted in new
  const RunResult table = Tool(
      {"compare", "metrics_base.json", "metrics_new.json", "--color", "never"});
  ASSERT_EQ(table.code, 0) << table.err;
  // Ratios with 3 decimals, or 3 digits below 0.1.
  EXPECT_THAT(table.out, ::testing::ContainsRegex(
                             "\n +cpi +0\\.500 +0\\.515 +\\+3\\.00%"));
  EXPECT_THAT(table.out,
              ::testing::ContainsRegex("\n +branch-miss-rate +0\\.02 +0\\.022 "
                                       "+\\+10\\.00%"));
}

// ---- stat: a crafted result, every output.

StatSeries Series(const std::string& event, double value) {
  StatSeries s;
  absl::StatusOr<EventSpec> spec = ParseEvent(event);
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (spec.ok()) s.spec = *spec;
  s.values = {value};
  s.coverages = {1};
  s.running_ns = {1000};
  return s;
}

StatResult CraftedStat() {
  StatResult r;
  r.command = {"true"};
  r.runs_done = 1;
  r.seconds = {0.002};
  for (const auto& [event, value] : std::vector<std::pair<std::string, double>>{
           {"task-clock", 1e6},
           {"instructions", 6000},
           {"cycles", 3000},
           {"branches", 1000},
           {"branch-misses", 20},
           {"cache-references", 500},
           {"cache-misses", 50},
           {"stalled-cycles-frontend", 600},
           {"LLC-loads", 0},
           {"LLC-load-misses", 5},
           {"instructions:u", 5000},
           {"cycles:u", 2000},
       }) {
    r.series.push_back(Series(event, value));
  }
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n');
}

TEST(StatMetrics, TableShowsTheTablesMetrics) {
  const std::string out = FormatStatTable(CraftedStat());
  const std::vector<std::string> lines = Lines(out);
  auto line_of = [&](const std::string& label) -> std::string {
    for (const std::string& l : lines) {
      if (absl::StrContains(l, absl::StrCat(" ", label, " ")) ||
          absl::EndsWith(l, absl::StrCat(" ", label))) {
        return l;
      }
    }
    return "";
  };
  EXPECT_THAT(line_of("instructions"), HasSubstr("#  2.00 insn per cycle"))
      << out;
  EXPECT_THAT(line_of("branch-misses"), HasSubstr("#  2.00% of all branches"));
  EXPECT_THAT(line_of("cache-misses"),
              HasSubstr("#  10.000% of all cache refs"));
  EXPECT_THAT(line_of("stalled-cycles-frontend"),
              HasSubstr("#  20.00% frontend cycles idle"));
  EXPECT_THAT(line_of("instructions:u"), HasSubstr("#  2.50 insn per cycle"));
  // LLC-loads is 0: no rate, the per-second rate perf shows otherwise.
  EXPECT_THAT(line_of("LLC-load-misses"), Not(HasSubstr("LL-cache")));
  EXPECT_THAT(line_of("LLC-load-misses"), HasSubstr("#  5.000 K/sec"));
  // cpi (no perf comment) on the line after cycles', in the comment column.
  for (const auto& [label, cpi] : {std::pair{"cycles", "0.500 cpi"},
                                   std::pair{"cycles:u", "0.400 cpi:u"}}) {
    size_t i = 0;
    while (i < lines.size() &&
           !absl::StrContains(lines[i], absl::StrCat(" ", label, " ")))
      ++i;
    ASSERT_LT(i + 1, lines.size()) << out;
    EXPECT_EQ(lines[i + 1], absl::StrCat(std::string(51, ' '), "#  ", cpi))
        << out;
  }
}

TEST(StatMetrics, CsvAndJsonLinesCarryTheMetricsAsPerfDoes) {
  const StatResult r = CraftedStat();
  const std::vector<std::string> csv = Lines(FormatStatCsv(r, ","));
  EXPECT_THAT(csv, ::testing::Contains(
                       "6000,,instructions,1000,100.00,2.00,insn per cycle"));
  EXPECT_THAT(csv,
              ::testing::Contains("20,,branch-misses,1000,100.00,2.00,of all "
                                  "branches"));
  // perf's extra metric line: three empty fields, value, unit.
  EXPECT_THAT(csv, ::testing::Contains(",,,0.500,cpi"));
  EXPECT_THAT(csv, ::testing::Contains(",,,0.400,cpi:u"));
  const std::string jl = FormatStatJsonLines(r);
  EXPECT_THAT(jl, HasSubstr("\"metric-value\" : 2.000000, \"metric-unit\" : "
                            "\"insn per cycle\""));
  EXPECT_THAT(Lines(jl),
              ::testing::Contains(
                  "{\"metric-value\" : 0.500000, \"metric-unit\" : \"cpi\"}"));
  for (const std::string& line : Lines(jl)) {
    if (line.empty()) continue;
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  }
}

TEST(StatMetrics, JsonListsEveryMetricWhoseInputsWereCounted) {
  const nlohmann::json j = nlohmann::json::parse(FormatStatJson(CraftedStat()));
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& m : j["metrics"]) by_name[m["metric"]] = m;
  EXPECT_EQ(by_name.size(), 8u) << j["metrics"].dump(1);
  EXPECT_EQ(by_name["ipc"]["value"], 2.0);
  EXPECT_EQ(by_name["ipc"]["formula"], "instructions / cycles");
  EXPECT_EQ(by_name["ipc"]["unit"], "instructions per cycle");
  EXPECT_EQ(by_name["cpi"]["value"], 0.5);
  EXPECT_EQ(by_name["branch-miss-rate"]["value"], 20.0 / 1000);
  EXPECT_EQ(by_name["cache-miss-rate"]["value"], 50.0 / 500);
  EXPECT_EQ(by_name["frontend-stall-ratio"]["value"], 600.0 / 3000);
  EXPECT_EQ(by_name["ipc:u"]["value"], 5000.0 / 2000);
  EXPECT_EQ(by_name["cpi:u"]["value"], 2000.0 / 5000);
  EXPECT_EQ(by_name["LLC-load-miss-rate"]["status"], "not counted");
  EXPECT_FALSE(by_name["LLC-load-miss-rate"].contains("value"));
  // The instructions event keeps perf's comment as before.
  for (const nlohmann::json& e : j["events"]) {
    if (e["event"] == "instructions") {
      EXPECT_EQ(e["metric_value"], 2.0);
      EXPECT_EQ(e["metric_unit"], "insn per cycle");
    }
  }
}

// ---- docs/tools.md lists the metrics as the table has them.

// The markdown table docs/tools.md must contain, made from the table.
std::string DocsTable() {
  std::string out =
      "| metric (`compare`, `--fail-on`) | formula | unit | `stat` shows |\n"
      "|---|---|---|---|\n";
  for (const Metric& m : Metrics()) {
    const std::string stat =
        m.perf_stat.empty()
            ? absl::StrCat("`", S(m.name), "` on a line of its own under ",
                           S(m.numerator))
            : absl::StrCat("`", m.percent ? "x% " : "x ", S(m.perf_stat),
                           "` on the ", S(m.numerator), " line");
    absl::StrAppend(&out, "| `", CompareMetricName(m, ""), "`",
                    m.group.empty() ? "" : absl::StrCat(" (", S(m.group), ")"),
                    " | ", MetricFormula(m), " | ", S(m.unit), " | ", stat,
                    " |\n");
  }
  return out;
}

// docs/counters.md's table of the library's metrics, made from the table.
std::string CountersDocsTable() {
  std::string out = "| name | formula | unit |\n|---|---|---|\n";
  for (const Metric& m : Metrics()) {
    absl::StrAppend(
        &out, "| `", S(m.name), "`",
        m.group.empty() ? "" : absl::StrCat(" (group `", S(m.group), "`)"),
        " | ", MetricFormula(m), " | ", S(m.unit), " |\n");
  }
  return out;
}

// Whether docs/`name` contains `table`, printing the table when not.
void ExpectDocsList(const std::string& name, const std::string& table) {
  const std::string docs = testing::Slurp(kData + "/../../../docs/" + name);
  ASSERT_FALSE(docs.empty()) << name;
  EXPECT_THAT(docs, HasSubstr(table))
      << "docs/" << name
      << " must list the derived metrics as metrics.h has them; the table "
         "is:\n"
      << table;
}

TEST(MetricsDocs, ToolsAndCountersDocsListTheTable) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  ExpectDocsList("tools.md", DocsTable());
  ExpectDocsList("counters.md", CountersDocsTable());
}

}  // namespace
}  // namespace perfcounters::tools
