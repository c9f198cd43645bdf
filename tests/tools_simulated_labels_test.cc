// tools_simulated_labels_test: the simulator's values are never shown as
// measured ones. `compare` and `history` (check, changes, export) tag every
// value of a simulated run (counting_source.h's kinds: [simulated],
// [estimate] for est_cycles/est_ipc, [valgrind's time]) in tables, markdown
// and JSON, and a measured run gets no tag. The runs are a real simulated
// gbench file (testdata/tools/simulated.json, the gate bench's output) and
// copies of it with est_cycles and instructions raised.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/tool_runner.h"

namespace {

using perfcounters::tools::testing::kTestdata;
using perfcounters::tools::testing::MakeDirectories;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

// The simulated run with instructions and est_cycles scaled by `factor`,
// dated `date`.
std::string Scaled(double factor, const std::string& date) {
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(Slurp(kTestdata + "/simulated.json"));
  j["context"]["date"] = date;
  for (auto& b : j["benchmarks"]) {
    for (const char* key : {"instructions", "est_cycles"}) {
      b[key] = b[key].get<double>() * factor;
    }
  }
  return j.dump(2);
}

class SimulatedLabelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFCOUNTERS_REQUIRE_TESTDATA();
    dir_ = ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(MakeDirectories(dir_, true));
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

// The lines of `text` that contain `needle`.
std::vector<std::string> LinesWith(const std::string& text,
                                   const std::string& needle) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, needle)) out.emplace_back(line);
  }
  return out;
}

TEST_F(SimulatedLabelsTest, CompareTagsEverySimulatedValue) {
  const std::string base = Write("base.json", Scaled(1.0, "2026-12-01"));
  const std::string next = Write("new.json", Scaled(1.1, "2026-12-02"));
  const RunResult table =
      RunTool(absl::StrCat("compare ", Quote(base), " ", Quote(next),
                           " --color never --fail-on 'est_cycles>+5%'"));
  EXPECT_EQ(table.code, 1) << table.out << table.err;
  // Every row of est_cycles and est_ipc says it is an estimate: 5
  // benchmarks, and the geometric means' lines.
  for (const char* metric : {"est_cycles", "est_ipc"}) {
    const std::vector<std::string> rows = LinesWith(table.out, metric);
    ASSERT_GE(rows.size(), 6u) << table.out;
    for (const std::string& row : rows) {
      if (absl::StrContains(row, "gate ") || absl::StrContains(row, "FAIL") ||
          absl::StartsWith(row, "Note:")) {
        continue;  // the gate's own text, the note's legend
      }
      EXPECT_THAT(row, HasSubstr(absl::StrCat(metric, " [estimate]")));
    }
  }
  EXPECT_EQ(LinesWith(table.out, "instructions [simulated]").size(), 6u)
      << table.out;
  EXPECT_THAT(table.out, HasSubstr("real_time [valgrind's time]"));
  EXPECT_THAT(table.out,
              HasSubstr("Note: counted by the simulator, not the PMU "
                        "(simulate: valgrind-3.19.0 callgrind"));

  const RunResult md = RunTool(absl::StrCat("compare ", Quote(base), " ",
                                            Quote(next), " --format markdown"));
  EXPECT_EQ(md.code, 0) << md.err;
  EXPECT_THAT(md.out, HasSubstr("| est_cycles [estimate] |"));
  EXPECT_THAT(md.out, HasSubstr("| instructions [simulated] |"));

  const RunResult json =
      RunTool(absl::StrCat("compare ", Quote(base), " ", Quote(next),
                           " --format json --fail-on 'est_cycles>+5%'"));
  EXPECT_EQ(json.code, 1) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["counting_source"], "simulate");
  EXPECT_THAT(j["source_description"].get<std::string>(),
              HasSubstr("valgrind-3.19.0"));
  int estimates = 0;
  for (const auto& b : j["benchmarks"]) {
    for (const auto& m : b["metrics"]) {
      const std::string metric = m["metric"];
      const std::string kind = m["value_kind"];
      if (metric == "est_cycles" || metric == "est_ipc") {
        EXPECT_EQ(kind, "estimate") << metric;
        ++estimates;
      } else if (metric == "real_time" || metric == "cpu_time") {
        EXPECT_EQ(kind, "valgrind_time") << metric;
      } else {
        EXPECT_EQ(kind, "simulated") << metric;
      }
    }
  }
  EXPECT_EQ(estimates, 10);
  for (const auto& g : j["geomean"]) {
    if (g["metric"] == "est_cycles") {
      EXPECT_EQ(g["value_kind"], "estimate");
    }
  }
}

// One run a side: a simulated exact count (instructions) is "exact",
// decided without repetitions, and neither the one-sample note nor the
// gate line asks for more; the simulator's models, estimates and
// valgrind's times keep the caveat, and so does a measured instructions
// count of one sample.
TEST_F(SimulatedLabelsTest, CompareCallsSimulatedExactCountsExact) {
  const std::string base = Write("base.json", Scaled(1.0, "2026-12-01"));
  const std::string next = Write("new.json", Scaled(1.01, "2026-12-02"));
  const std::string gate = " --fail-on 'instructions>+0.5%'";
  const RunResult json = RunTool(absl::StrCat(
      "compare ", Quote(base), " ", Quote(next), " --format json", gate));
  EXPECT_EQ(json.code, 1) << json.err;
  size_t exact = 0, one_sample = 0;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  for (const auto& b : j["benchmarks"]) {
    for (const auto& m : b["metrics"]) {
      const std::string metric = m["metric"];
      const std::string evidence = m["evidence"];
      EXPECT_EQ(evidence, metric == "instructions" ? "exact" : "one_sample")
          << metric;
      exact += evidence == "exact";
      one_sample += evidence == "one_sample";
    }
  }
  EXPECT_EQ(exact, 5u);
  EXPECT_EQ(one_sample, 20u);  // real_time, cpu_time, est_cycles, est_ipc
  const RunResult table = RunTool(absl::StrCat(
      "compare ", Quote(base), " ", Quote(next), " --color never", gate));
  EXPECT_EQ(table.code, 1) << table.err;
  EXPECT_THAT(table.out, HasSubstr("20 comparison(s) have one sample"));
  EXPECT_THAT(table.out, Not(HasSubstr("resting on one sample")));
  for (const std::string& row : LinesWith(table.out, "instructions [")) {
    if (absl::StartsWith(row, "BM_")) {
      EXPECT_THAT(row, HasSubstr("exact"));
    }
  }
  // The same run twice: unchanged, exactly, and the gate passes.
  const RunResult same = RunTool(absl::StrCat(
      "compare ", Quote(base), " ", Quote(base), " --color never", gate));
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_THAT(same.out, Not(HasSubstr("resting on one sample")));

  // Measured (no perfcounters.source): one sample stays one sample.
  const auto measured = [&](double factor, const char* name) {
    nlohmann::ordered_json j =
        nlohmann::ordered_json::parse(Scaled(factor, "2026-12-01"));
    j["context"].erase("perfcounters.source");
    return Write(name, j.dump(2));
  };
  const RunResult pmu = RunTool(
      absl::StrCat("compare ", Quote(measured(1.0, "m1.json")), " ",
                   Quote(measured(1.01, "m2.json")), " --color never", gate));
  EXPECT_EQ(pmu.code, 1) << pmu.err;
  EXPECT_THAT(pmu.out, HasSubstr("25 comparison(s) have one sample"));
  EXPECT_THAT(pmu.out, HasSubstr("5 resting on one sample each"));
}

TEST_F(SimulatedLabelsTest, MeasuredCompareHasNoTags) {
  const RunResult r =
      RunTool(absl::StrCat("compare ", Quote(kTestdata + "/base.json"), " ",
                           Quote(kTestdata + "/new.json"), " --color never"));
  EXPECT_NE(r.code, 2) << r.err;
  for (const char* tag :
       {"[simulated]", "[estimate]", "valgrind", "counted by the simulator"}) {
    EXPECT_THAT(r.out, Not(HasSubstr(tag)));
  }
  const RunResult json =
      RunTool(absl::StrCat("compare ", Quote(kTestdata + "/base.json"), " ",
                           Quote(kTestdata + "/new.json"), " --format json"));
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["counting_source"], "pmu");
  for (const auto& b : j["benchmarks"]) {
    for (const auto& m : b["metrics"]) EXPECT_EQ(m["value_kind"], "measured");
  }
}

// The summary section of a report page.
std::string SummaryOf(const std::string& html) {
  const size_t at = html.find("<section id=\"summary\">");
  if (at == std::string::npos) return "(no summary)";
  return html.substr(at, html.find("</section>", at) - at);
}

// The <li class="`css`"> line of `summary`, or "" when it has none.
std::string SummaryLine(const std::string& summary, const std::string& css) {
  const size_t at = summary.find(absl::StrCat("<li class=\"", css, "\""));
  if (at == std::string::npos) return "";
  return summary.substr(at, summary.find("</li>", at) - at);
}

// The report's summary names each changed estimate and simulated count
// with its tag, and puts valgrind's times (here 20 % slower and 30 %
// faster) on a line of their own, never among the regressions or
// improvements; a measured page's summary has no tags.
TEST_F(SimulatedLabelsTest, ReportSummaryTagsWhatIsNotMeasured) {
  nlohmann::ordered_json next =
      nlohmann::ordered_json::parse(Scaled(1.25, "2026-12-02"));
  for (auto& b : next["benchmarks"]) {
    b["real_time"] = b["real_time"].get<double>() * 1.2;
    b["cpu_time"] = b["cpu_time"].get<double>() * 0.7;
  }
  const std::string base = Write("base.json", Scaled(1.0, "2026-12-01"));
  const std::string next_file = Write("new.json", next.dump(2));
  const std::string page = dir_ + "/sim.html";
  const RunResult r = RunTool(absl::StrCat(
      "report ", Quote(base), " ", Quote(next_file), " -o ", Quote(page)));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string summary = SummaryOf(Slurp(page));
  const std::string worse = SummaryLine(summary, "worse");
  // 5 benchmarks x (instructions, est_cycles) up, est_ipc unchanged.
  EXPECT_THAT(worse, HasSubstr("data-count=\"10\"")) << summary;
  EXPECT_THAT(worse, HasSubstr("instructions [simulated]</a> +25.00%"));
  EXPECT_THAT(worse, HasSubstr("est_cycles [estimate]</a> +25.00%"));
  // Every named item of the page's summary carries a tag.
  size_t named = 0;
  for (size_t at = summary.find("<a href=\"#m-"); at != std::string::npos;
       at = summary.find("<a href=\"#m-", at + 1)) {
    const std::string item = summary.substr(at, summary.find("</a>", at) - at);
    EXPECT_THAT(item, HasSubstr(" [")) << item;
    ++named;
  }
  EXPECT_GE(named, 10u) << summary;
  for (const char* time : {"real_time", "cpu_time"}) {
    EXPECT_THAT(worse, Not(HasSubstr(time)));
    EXPECT_THAT(SummaryLine(summary, "better"), Not(HasSubstr(time)));
  }
  const std::string valgrind = SummaryLine(summary, "valgrind");
  EXPECT_THAT(valgrind, HasSubstr("data-count=\"10\"")) << summary;
  // 5 real_time and 5 cpu_time, the largest 5 named.
  EXPECT_THAT(valgrind, HasSubstr("cpu_time [valgrind&#39;s time]</a> "
                                  "-30.00%"));
  EXPECT_THAT(summary, HasSubstr("<b>0 improvements</b>"));

  // A measured page: no tags, its times are regressions as ever.
  const std::string measured = dir_ + "/measured.html";
  const RunResult m = RunTool(
      absl::StrCat("report ", Quote(kTestdata + "/base.json"), " ",
                   Quote(kTestdata + "/new.json"), " -o ", Quote(measured)));
  ASSERT_EQ(m.code, 0) << m.err;
  const std::string measured_summary = SummaryOf(Slurp(measured));
  EXPECT_THAT(measured_summary, HasSubstr("<li class=\"worse\""));
  for (const char* tag : {"[simulated]", "[estimate]", "valgrind"}) {
    EXPECT_THAT(measured_summary, Not(HasSubstr(tag)));
  }
}

#if PERFCOUNTERS_TOOL_HAS_HISTORY
// Twelve simulated runs into a fresh SQLite store: six at the file's
// values, six with instructions and est_cycles 10 % higher (a step).
class SimulatedHistoryTest : public SimulatedLabelsTest {
 protected:
  void SetUp() override {
    SimulatedLabelsTest::SetUp();
    if (IsSkipped()) return;
    db_ = dir_ + "/h.db";
    for (int i = 0; i < 12; ++i) {
      // Noise of a part in 10^6 keeps the series' noise scale above 0.
      const double factor = (i < 6 ? 1.0 : 1.1) + (i % 3) * 1e-6;
      const std::string f = Write(
          absl::StrCat("r", i, ".json"),
          Scaled(factor, absl::StrCat("2026-12-01T10:", 10 + i, ":00+00:00")));
      const RunResult r =
          RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f),
                               " --commit c", i, " --branch main"));
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  std::string db_;
};

TEST_F(SimulatedHistoryTest, ChangesTagEstimatesAndSimulatedValues) {
  const std::string q = absl::StrCat("history changes --db ", Quote(db_),
                                     " --benchmark BM_GateStartStop");
  const RunResult table = RunTool(q);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("est_cycles [estimate]"));
  EXPECT_THAT(table.out, HasSubstr("instructions [simulated]"));
  const RunResult md = RunTool(q + " --format markdown");
  EXPECT_THAT(md.out, HasSubstr("| est_cycles [estimate] |"));
  const RunResult json = RunTool(q + " --format json");
  ASSERT_EQ(json.code, 0) << json.err;
  int seen = 0;
  for (const auto& c : nlohmann::json::parse(json.out)) {
    const std::string metric = c["metric"];
    EXPECT_EQ(c["value_kind"],
              metric == "est_cycles" ? "estimate" : "simulated")
        << metric;
    seen += metric == "est_cycles" || metric == "instructions";
  }
  EXPECT_EQ(seen, 2) << json.out;
}

TEST_F(SimulatedHistoryTest, CheckTagsItsRowsAndGates) {
  const std::string run = Write("next.json", Scaled(1.3, "2026-12-02"));
  const std::string q =
      absl::StrCat("history check --db ", Quote(db_), " ", Quote(run),
                   " --branch main --fail-on 'est_cycles>+5%' --fail-on "
                   "'instructions>+5%'");
  const RunResult table = RunTool(q);
  EXPECT_EQ(table.code, 1) << table.out << table.err;
  EXPECT_THAT(table.out, HasSubstr("counted by the simulator, not the PMU"));
  EXPECT_THAT(table.out, HasSubstr("BM_GateStartStop/iterations:200 "
                                   "est_cycles [estimate] +"));
  EXPECT_EQ(LinesWith(table.out, "est_cycles [estimate]").size(),
            LinesWith(table.out, "est_cycles").size() - 1)  // the gate line
      << table.out;
  EXPECT_THAT(table.out, HasSubstr("instructions [simulated]"));
  const RunResult json = RunTool(q + " --format json");
  EXPECT_EQ(json.code, 1) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["counting_source"], "simulate");
  ASSERT_EQ(j["rows"].size(), 10u) << json.out;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["value_kind"],
              row["metric"] == "est_cycles" ? "estimate" : "simulated");
  }
}

TEST_F(SimulatedHistoryTest, ExportNamesEstimatesAndSimulatedValues) {
  const RunResult bmf =
      RunTool(absl::StrCat("history export --format bmf --db ", Quote(db_)));
  ASSERT_EQ(bmf.code, 0) << bmf.err;
  const nlohmann::json b = nlohmann::json::parse(bmf.out);
  const auto& row = b["BM_GateStartStop/iterations:200"];
  EXPECT_TRUE(row.contains("est_cycles [estimate]")) << bmf.out;
  EXPECT_TRUE(row.contains("est_ipc [estimate]")) << bmf.out;
  EXPECT_TRUE(row.contains("instructions [simulated]")) << bmf.out;
  EXPECT_FALSE(row.contains("est_cycles")) << bmf.out;
  const RunResult csv = RunTool(absl::StrCat(
      "history export --format csv --benchmark BM_GateStartStop --db ",
      Quote(db_)));
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  // Every metric column of a simulated series says what its values are,
  // and a simulated row says so in its machine column.
  const std::vector<std::string> columns = absl::StrSplit(header, ',');
  ASSERT_GT(columns.size(), 4u) << header;
  EXPECT_EQ(columns[2], "machine");
  for (size_t i = 4; i < columns.size(); ++i) {
    const std::string& c = columns[i];
    const bool tagged = absl::EndsWith(c, " [simulated]") ||
                        absl::EndsWith(c, " [estimate]") ||
                        absl::EndsWith(c, " [valgrind's time]");
    EXPECT_TRUE(tagged) << c;
  }
  for (const char* column :
       {"BM_GateStartStop/iterations:200.est_cycles [estimate]",
        "BM_GateStartStop/iterations:200.est_ipc [estimate]",
        "BM_GateStartStop/iterations:200.instructions [simulated]",
        "BM_GateStartStop/iterations:200.cpu_time [valgrind's time]",
        "BM_GateStartStop/iterations:200.real_time [valgrind's time]"}) {
    EXPECT_THAT(columns, ::testing::Contains(column)) << header;
  }
  EXPECT_THAT(csv.out, HasSubstr(",c11,vm / AMD EPYC [simulate],main,"));
}

// A measured run of the same host beside the simulated series: one CSV of
// both would mix them (the runs' cpu_time are valgrind's and native
// times), so the export refuses and names the --machine of each; each on
// its own exports whole, measured columns untagged.
TEST_F(SimulatedHistoryTest, CsvExportNeverMixesSimulatedAndMeasured) {
  nlohmann::ordered_json measured =
      nlohmann::ordered_json::parse(Slurp(kTestdata + "/simulated.json"));
  measured["context"].erase("perfcounters.source");
  measured["context"]["date"] = "2026-12-01T11:00:00+00:00";
  const std::string f = Write("measured.json", measured.dump(2));
  const RunResult add =
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f),
                           " --commit m1 --branch main"));
  ASSERT_EQ(add.code, 0) << add.err;
  const std::string q = absl::StrCat(
      "history export --format csv --metric cpu_time --benchmark "
      "BM_GateStartStop --db ",
      Quote(db_));
  const RunResult mixed = RunTool(q);
  EXPECT_EQ(mixed.code, 2) << mixed.out;
  EXPECT_EQ(mixed.out, "");
  EXPECT_THAT(mixed.err,
              HasSubstr("simulated values (machine vm / AMD EPYC [simulate])"
                        " and measured ones (machine vm / AMD EPYC)"));
  const RunResult sim = RunTool(q + " --machine 'vm / AMD EPYC [simulate]'");
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr(".cpu_time [valgrind's time]"));
  EXPECT_EQ(LinesWith(sim.out, "[simulate],main,").size(), 12u) << sim.out;
  const RunResult native = RunTool(q + " --machine 'vm / AMD EPYC'");
  ASSERT_EQ(native.code, 0) << native.err;
  EXPECT_EQ(LinesWith(native.out, ",m1,vm / AMD EPYC,").size(), 1u)
      << native.out;
  EXPECT_THAT(native.out, Not(HasSubstr("valgrind")));
  EXPECT_THAT(native.out, Not(HasSubstr("simulate")));
  EXPECT_THAT(native.out,
              HasSubstr("BM_GateStartStop/iterations:200.cpu_time"));
}
#endif  // PERFCOUNTERS_TOOL_HAS_HISTORY

}  // namespace
