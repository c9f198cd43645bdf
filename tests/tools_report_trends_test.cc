// tools_report_trends_test: `perfcounters report --db`, the trend charts of
// a history store (SQLite), as issue 39 found them wanting. Change-point
// labels laid out by headless Chromium (its text boxes, not the page's own
// estimate) neither overlap nor leave the chart; runs that did not count a
// metric, or whose file has no value of it, are gaps with a marker (and
// keep their place on the axis); commits label the x axis, thinned to fit;
// the y axis has ticks in % of the level, with a least span so that noise
// stays flat; an all-zero series has the axis 0; changed series come first
// with an index; 20,000 series are no 40 MB page. The runs are put into
// the store in this process by the command's own add (AddRunText(), as
// tools_history_test does); the page is the built command's.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history.h"
#include "nlohmann/json.hpp"
#include "support/headless_chromium.h"
#include "support/tool_runner.h"

namespace {

using perfcounters::tools::RunIdentity;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunShell;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

// One benchmark of a run: its metrics; nullopt: not counted.
using Metrics = std::map<std::string, std::optional<double>>;
using StoredRun = std::map<std::string, Metrics>;

std::string RunJson(const StoredRun& run, int n) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "2026-11-30T10:00:00+00:00"},
                     {"host_name", "ci"},
                     {"num_cpus", 2},
                     {"nonce", n}};
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (const auto& [name, metrics] : run) {
    nlohmann::ordered_json e = {
        {"name", name},          {"run_name", name},  {"run_type", "iteration"},
        {"repetition_index", 0}, {"iterations", 100}, {"time_unit", "ns"}};
    for (const auto& [metric, value] : metrics) {
      if (value) {
        e[metric] = *value;
      } else {
        e[metric + ".not_counted"] = 1;
      }
    }
    root["benchmarks"].push_back(e);
  }
  return root.dump();
}

// Uniform noise in [-1, 1) from a fixed seed (the engine's own output).
struct Noise {
  uint64_t state;
  double operator()() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1p-53 * 2 - 1;
  }
};

class ReportTrendsTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    delete browser_;
    browser_ = nullptr;
  }
  // A new store with `runs` (run n: commit c<nnnn>, n minutes after 10:00).
  static std::string Store(const std::string& name,
                           const std::vector<StoredRun>& runs) {
    std::string db = ScratchPath(name + ".db");
    RunShell("rm -f " + Quote(db));
    auto store = perfcounters::tools::OpenHistoryStore(
        db, perfcounters::tools::StoreAccess::kAdd);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return db;
    for (size_t i = 0; i < runs.size(); ++i) {
      const int n = static_cast<int>(i) + 1;
      RunIdentity id;
      id.commit = absl::StrFormat("c%04d", n);
      id.branch = "main";
      id.time =
          absl::StrFormat("2026-11-30T%02d:%02d:00Z", 10 + n / 60, n % 60);
      const auto r = perfcounters::tools::AddRunText(
          **store, RunJson(runs[i], n), absl::StrCat("run", n, ".json"), id);
      EXPECT_TRUE(r.ok()) << r.status();
    }
    return db;
  }
  // `report --db db ARGS -o <name>.html`: the page.
  static std::string Page(const std::string& db, const std::string& name,
                          const std::string& args = "",
                          RunResult* result = nullptr) {
    std::string html = ScratchPath(name + ".html");
    const RunResult r = RunTool(absl::StrCat("report --db ", Quote(db), " ",
                                             args, " -o ", Quote(html)));
    EXPECT_EQ(r.code, 0) << r.err;
    if (result != nullptr) *result = r;
    return html;
  }
  // The part of `html` of the chart section of `metric` (of the first
  // benchmark that has it).
  static std::string Chart(const std::string& html, const std::string& metric) {
    const size_t at = html.find(absl::StrCat("&mdash; ", metric, "</h2>"));
    if (at == std::string::npos) return "";
    const size_t end = html.find("<h2>", at + 1);
    return html.substr(at, end == std::string::npos ? end : end - at);
  }
  // No Chromium inside the emulated arm64 machine (the native run renders).
  static bool NoBrowserHere() {
    const char* vm = std::getenv("PERFCOUNTERS_REQUIRE_HW");
    return vm != nullptr && std::string(vm) == "1" &&
           RunShell("command -v chromium >/dev/null 2>&1").code != 0;
  }
  // The boxes Chromium laid out for each chart's change-point labels
  // (text.cpl), commit labels (text.xl) and y labels (text.yl), in the
  // chart's coordinates, and the chart's width: [{width, cpl: [[x, y, w,
  // h]...], xl: [...], yl: [...]}...].
  static nlohmann::json Layout(const std::string& page) {
    if (browser_ == nullptr) {
      const std::string profile = ScratchPath("chromium-profile");
      RunShell("rm -rf " + Quote(profile));
      auto started = perfcounters::testing::HeadlessChromium::Start(
          {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile},
          ScratchPath("chromium.err"));
      if (!started.ok()) {
        ADD_FAILURE() << "chromium: " << started.status();
        return nullptr;
      }
      browser_ = started->release();
    }
    const std::string js = R"(JSON.stringify(
      [...document.querySelectorAll('svg[role=img]')].map(svg => {
        const boxes = cls => [...svg.querySelectorAll('text.' + cls)].map(t => {
          const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; });
        return {width: svg.width.baseVal.value, cpl: boxes('cpl'),
                xl: boxes('xl'), yl: boxes('yl')};
      })))";
    auto rendered = browser_->Render("file://" + page, 1000, 800, js);
    if (!rendered.ok()) {
      ADD_FAILURE() << "chromium failed: " << rendered.status();
      return nullptr;
    }
    return nlohmann::json::parse(rendered->evaluated, nullptr, false);
  }
  // Whether the boxes [x, y, w, h] `a` and `b` overlap.
  static bool Overlap(const nlohmann::json& a, const nlohmann::json& b) {
    const double ax = a[0], ay = a[1], aw = a[2], ah = a[3];
    const double bx = b[0], by = b[1], bw = b[2], bh = b[3];
    return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
  }
  // Each box of `boxes` inside [0, width] and apart from the others.
  static void ExpectApartAndInside(const nlohmann::json& boxes, double width,
                                   const std::string& what) {
    for (size_t i = 0; i < boxes.size(); ++i) {
      EXPECT_GE(boxes[i][0].get<double>(), 0) << what << " " << i;
      EXPECT_LE(boxes[i][0].get<double>() + boxes[i][2].get<double>(), width)
          << what << " " << i << " is cut at the right edge";
      for (size_t j = i + 1; j < boxes.size(); ++j) {
        EXPECT_FALSE(Overlap(boxes[i], boxes[j]))
            << what << " " << i << " and " << j
            << " overprint: " << boxes[i].dump() << " " << boxes[j].dump();
      }
    }
  }
  static perfcounters::testing::HeadlessChromium* browser_;
};
perfcounters::testing::HeadlessChromium* ReportTrendsTest::browser_ = nullptr;

// 130 runs of BM_a's cpu_time with steps at c0097, c0101 and c0121 (the
// issue's three labels) and one near the right edge (c0128).
std::vector<StoredRun> Steps() {
  std::vector<StoredRun> runs;
  Noise noise{1};
  for (int n = 1; n <= 130; ++n) {
    double level = 1000;
    if (n >= 97 && n < 101) level = 1100;
    if (n >= 121) level = 1060;
    if (n >= 128) level = 1150;
    runs.push_back({{"BM_a",
                     {{"cpu_time", level * (1 + 0.002 * noise())},
                      {"real_time", 5000.0}}}});
  }
  return runs;
}

TEST_F(ReportTrendsTest, ChangePointLabelsNeitherOverprintNorLeaveTheChart) {
  if (NoBrowserHere()) GTEST_SKIP() << "no Chromium in the emulated machine";
  const std::string db = Store("steps", Steps());
  const std::string page = Page(db, "steps");
  const nlohmann::json charts = Layout(page);
  ASSERT_TRUE(charts.is_array()) << charts.dump();
  ASSERT_EQ(charts.size(), 2u);  // cpu_time and real_time
  // The detector finds several close change points in cpu_time (their
  // number is the method's business; that they are drawn apart is ours).
  const nlohmann::json& chart =
      charts[0]["cpl"].size() >= charts[1]["cpl"].size() ? charts[0]
                                                         : charts[1];
  ASSERT_GE(chart["cpl"].size(), 3u) << Slurp(page);
  ExpectApartAndInside(chart["cpl"], chart["width"], "change-point label");
  ExpectApartAndInside(chart["xl"], chart["width"], "commit label");
}

// How often `what` occurs in `text`.
size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos;
       p = text.find(what, p + 1)) {
    ++n;
  }
  return n;
}

// The d attribute of a chart's line (one M per piece).
std::string TrendPath(const std::string& chart) {
  const size_t path = chart.find("class=trend d=\"");
  if (path == std::string::npos) return "";
  return chart.substr(path + 15, chart.find('"', path + 15) - path - 15);
}

TEST_F(ReportTrendsTest, RunsNotCountedAreGapsWithAMarker) {
  std::vector<StoredRun> runs;
  for (int n = 1; n <= 60; ++n) {
    std::optional<double> cycles = 2000.0 + n % 3;
    if (n % 10 == 3) cycles.reset();  // 6 of 60 runs
    runs.push_back({{"BM_a", {{"cycles", cycles}, {"cpu_time", 1000.0}}}});
  }
  const std::string html = Slurp(Page(Store("gaps", runs), "gaps"));
  const std::string chart = Chart(html, "cycles");
  ASSERT_FALSE(chart.empty()) << html;
  const size_t markers = Occurrences(chart, "class=nc");
  const std::string d = TrendPath(chart);
  const size_t segments = Occurrences(d, "M");
  EXPECT_EQ(markers, 6u);
  EXPECT_EQ(segments, 7u) << d;  // the line breaks at each of them
  EXPECT_THAT(chart, HasSubstr("6 of 60 runs did not count cycles"));
  EXPECT_THAT(chart, HasSubstr("c0003 2026-11-30T10:03:00Z: cycles not "
                               "counted in this run"));
}

// The x of the point (class=pt) of `commit` in `chart`; NAN without one.
double PointX(const std::string& chart, const std::string& commit) {
  const size_t title = chart.find("class=pt><title>" + commit + " ");
  if (title == std::string::npos) return NAN;
  const size_t circle = chart.rfind("<circle cx=", title);
  if (circle == std::string::npos) return NAN;
  return std::atof(chart.c_str() + circle + 11);
}

// Review-39 D7: a run whose file has no cycles at all (no key, no
// .not_counted) kept its place on the axis: a marker there, the line
// broken, and the points after it where a run later (c0004 and c0006 two
// runs apart, not one). A benchmark first run at c0031 gets no markers
// for the runs before it.
TEST_F(ReportTrendsTest, RunsWithoutTheMetricKeepTheirPlace) {
  std::vector<StoredRun> runs;
  for (int n = 1; n <= 60; ++n) {
    StoredRun run = {{"BM_a", {{"cpu_time", 1000.0}}}};
    if (n % 15 != 5) run["BM_a"]["cycles"] = 2000.0 + n % 3;  // 4 absent
    if (n > 30) run["BM_late"] = {{"items", 10.0 + n % 2}, {"cpu_time", 9.0}};
    runs.push_back(run);
  }
  const std::string html = Slurp(Page(Store("absent", runs), "absent"));
  const std::string chart = Chart(html, "cycles");
  ASSERT_FALSE(chart.empty()) << html;
  const size_t markers = Occurrences(chart, "class=ab");
  const std::string d = TrendPath(chart);
  const size_t segments = Occurrences(d, "M");
  EXPECT_EQ(markers, 4u);
  EXPECT_EQ(segments, 5u) << d;
  EXPECT_THAT(chart, HasSubstr("60 runs"));
  EXPECT_THAT(chart, HasSubstr("4 of 60 runs have no cycles"));
  EXPECT_THAT(chart, Not(HasSubstr("did not count")));
  EXPECT_THAT(chart, HasSubstr("c0005 2026-11-30T10:05:00Z: no cycles in "
                               "this run"));
  // 60 runs evenly spaced (positions are rounded to 0.1 px).
  const double step = (PointX(chart, "c0060") - PointX(chart, "c0001")) / 59;
  ASSERT_GT(step, 0) << chart;
  EXPECT_NEAR(PointX(chart, "c0002") - PointX(chart, "c0001"), step, 0.15);
  EXPECT_NEAR(PointX(chart, "c0006") - PointX(chart, "c0004"), 2 * step, 0.15);
  const std::string late = Chart(html, "items");
  ASSERT_FALSE(late.empty()) << html;
  EXPECT_THAT(late, Not(HasSubstr("class=ab")));
  EXPECT_THAT(late, HasSubstr("30 runs"));
}

// Commit labels thinned to fit, more than two y ticks, the y axis in % of
// the level with a least span: a flat series at +-0.05 % stays flat.
TEST_F(ReportTrendsTest, AxesLabelCommitsAndPercentOfTheLevel) {
  std::vector<StoredRun> runs;
  Noise noise{7};
  for (int n = 1; n <= 60; ++n) {
    runs.push_back({{"BM_a", {{"real_time", 5000 * (1 + 0.0005 * noise())}}}});
  }
  const std::string html = Slurp(Page(Store("flat", runs), "flat"));
  const std::string chart = Chart(html, "real_time");
  ASSERT_FALSE(chart.empty()) << html;
  std::vector<std::string> commits, ticks;
  for (size_t p = chart.find("class=xl"); p != std::string::npos;
       p = chart.find("class=xl", p + 1)) {
    const size_t text = chart.find('>', p) + 1;
    commits.push_back(chart.substr(text, chart.find('<', text) - text));
  }
  for (size_t p = chart.find("class=yl"); p != std::string::npos;
       p = chart.find("class=yl", p + 1)) {
    const size_t text = chart.find('>', p) + 1;
    ticks.push_back(chart.substr(text, chart.find('<', text) - text));
  }
  EXPECT_GE(commits.size(), 5u);
  EXPECT_LT(commits.size(), 60u);  // thinned
  ASSERT_FALSE(commits.empty());
  EXPECT_EQ(commits[0], "c0001");
  EXPECT_GE(ticks.size(), 3u);
  for (const std::string& t : ticks) EXPECT_THAT(t, HasSubstr("%")) << t;
  EXPECT_THAT(ticks, ::testing::Contains("0%"));
  EXPECT_THAT(chart, HasSubstr("y: % of the level 5.000 us"));
  // The points span at most a tenth of the plot's height (0.1 % of a
  // least span of 2 %: a twentieth).
  auto attr = [&](const std::string& name) {
    const size_t at = chart.find(name + "=");
    return at == std::string::npos
               ? NAN
               : std::atof(chart.c_str() + at + name.size() + 1);
  };
  const double top = attr("data-plot-top"), bottom = attr("data-plot-bottom");
  ASSERT_TRUE(std::isfinite(top) && std::isfinite(bottom)) << chart;
  double lo = 1e9, hi = -1e9;
  for (size_t p = chart.find("<circle cx="); p != std::string::npos;
       p = chart.find("<circle cx=", p + 1)) {
    const double cy = std::atof(chart.c_str() + chart.find("cy=", p) + 3);
    lo = std::min(lo, cy);
    hi = std::max(hi, cy);
  }
  EXPECT_LT(hi - lo, (bottom - top) / 10) << lo << " " << hi;
}

TEST_F(ReportTrendsTest, AllZeroSeriesHasTheAxisZero) {
  std::vector<StoredRun> runs;
  for (int n = 1; n <= 20; ++n) {
    runs.push_back({{"BM_a", {{"page-faults", 0.0}, {"cpu_time", 1000.0}}}});
  }
  const std::string html = Slurp(Page(Store("zero", runs), "zero"));
  const std::string chart = Chart(html, "page-faults");
  ASSERT_FALSE(chart.empty()) << html;
  EXPECT_THAT(chart, Not(HasSubstr("e-0")));
  EXPECT_THAT(chart, HasSubstr("class=yl text-anchor=end>0</text>"));
  EXPECT_THAT(chart, HasSubstr("Every counted run is 0."));
}

TEST_F(ReportTrendsTest, ChangedSeriesFirstWithAnIndex) {
  std::vector<StoredRun> runs;
  for (int n = 1; n <= 40; ++n) {
    runs.push_back({{"BM_a", {{"cpu_time", 1000.0 + n % 2}}},
                    {"BM_z", {{"cpu_time", n <= 20 ? 1000.0 : 1100.0}}}});
  }
  const std::string html = Slurp(Page(Store("order", runs), "order"));
  const size_t a = html.find("<h2>BM_a &mdash; cpu_time</h2>");
  const size_t z = html.find("<h2>BM_z &mdash; cpu_time</h2>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(z, std::string::npos);
  EXPECT_LT(z, a) << "the changed series comes first";
  // The index links to every chart, before the first.
  const size_t index = html.find("<nav id=index>");
  ASSERT_NE(index, std::string::npos);
  EXPECT_LT(index, z);
  for (const char* id : {"s-0", "s-1"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<a href=\"#", id, "\">")));
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<section id=\"", id, "\"")));
  }
  EXPECT_THAT(html, HasSubstr("BM_z &mdash; cpu_time</a> <span "
                              "class=changed>1 change point, largest "
                              "+10.00%</span>"));
}

// --method and --cp-min-sigmas as `history changes` has them: a drift is one
// finding (robust) or a staircase (otava); a step of ~6 sigma is gone at
// --cp-min-sigmas 10; the page names the method; with RUN files, an error.
TEST_F(ReportTrendsTest, MethodAndMinSigmasAsHistoryChangesHasThem) {
  std::vector<StoredRun> runs;
  for (int n = 1; n <= 40; ++n) {
    runs.push_back(
        {{"BM_drift", {{"cpu_time", 1000.0 + 5 * n + n % 2}}},
         {"BM_step", {{"cpu_time", 1000.0 + n % 2 + 6 * (n > 20)}}}});
  }
  const std::string db = Store("method", runs);
  const std::string drift =
      "BM_drift &mdash; cpu_time</a> <span class=changed>";
  const std::string step = "BM_step &mdash; cpu_time</a> <span class=changed>";
  const std::string robust = Slurp(Page(db, "method-robust"));
  EXPECT_THAT(robust, HasSubstr(drift + "1 change point,"));
  EXPECT_THAT(robust, HasSubstr(step + "1 change point,"));
  EXPECT_THAT(robust, HasSubstr("the robust method of docs/history.md"));
  const std::string otava = Slurp(Page(db, "method-otava", "--method otava"));
  EXPECT_THAT(otava, HasSubstr(drift));
  EXPECT_THAT(otava, Not(HasSubstr(drift + "1 change point,")));
  EXPECT_THAT(otava, HasSubstr("the otava method of docs/history.md"));
  const std::string strict =
      Slurp(Page(db, "method-strict", "--cp-min-sigmas 10"));
  EXPECT_THAT(strict, HasSubstr(drift + "1 change point,"));
  EXPECT_THAT(strict, Not(HasSubstr(step)));
  const RunResult bad =
      RunTool(absl::StrCat("report --db ", Quote(db), " --method nope -o ",
                           Quote(ScratchPath("method-bad.html"))));
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.err, HasSubstr("--method"));
  const RunResult runs_only =
      RunTool(absl::StrCat("report a.json --method otava -o ",
                           Quote(ScratchPath("method-runs.html"))));
  EXPECT_NE(runs_only.code, 0);
  EXPECT_THAT(runs_only.err, HasSubstr("--db"));
}

// --max-series that is no count of charts is refused, naming what is
// right; 0 stays every series (as --help, docs/tools.md and the page's
// own note say). Before: -3 charted every series, exit 0.
TEST_F(ReportTrendsTest, MaxSeriesIsACount) {
  std::vector<StoredRun> runs(3);
  for (StoredRun& run : runs) {
    run["BM_a"] = {{"cpu_time", 1000.0}};
    run["BM_b"] = {{"cpu_time", 2000.0}};
  }
  const std::string db = Store("max-series", runs);
  for (const char* bad : {"-3", "-1", "abc", "1.5", "''"}) {
    const std::string html = ScratchPath("max-series-bad.html");
    const RunResult r = RunTool(absl::StrCat(
        "report --db ", Quote(db), " --max-series ", bad, " -o ", Quote(html)));
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("--max-series")) << bad;
    EXPECT_FALSE(perfcounters::tools::testing::Exists(html)) << bad;
  }
  const RunResult minus =
      RunTool(absl::StrCat("report --db ", Quote(db), " --max-series -3 -o ",
                           Quote(ScratchPath("max-series-bad.html"))));
  EXPECT_THAT(minus.err, HasSubstr("is no count of charts: a whole number, "
                                   "1 or more (0: every series)"));
  EXPECT_THAT(Slurp(Page(db, "max-series-0", "--max-series 0")),
              HasSubstr("BM_b &mdash; cpu_time"));
  EXPECT_THAT(Slurp(Page(db, "max-series-1", "--max-series 1")),
              HasSubstr("1 of 2 series are not charted"));
}

// 5,000 benchmarks x 4 metrics x 8 runs: the page charts --max-series (200)
// series, says how many it left out and how to see them, and stays small
// (main's 2,000 charts were 2 MB here, 40 MB with 60-run series);
// --benchmark and --metric narrow it.
TEST_F(ReportTrendsTest, TwentyThousandSeriesAreNoFortyMegabytePage) {
  std::vector<StoredRun> runs(8);
  for (int b = 0; b < 5000; ++b) {
    for (StoredRun& run : runs) {
      run[absl::StrFormat("BM_%04d", b)] = {{"cpu_time", 1000.0 + b},
                                            {"real_time", 1001.0 + b},
                                            {"tok_rate", 3000.0},
                                            {"items", 2000.0}};
    }
  }
  const std::string db = Store("many", runs);
  RunResult r;
  const std::string page = Page(db, "many", "", &r);
  const std::string html = Slurp(page);
  EXPECT_LT(html.size(), 1u << 20) << "a page of " << html.size() << " bytes";
  EXPECT_THAT(html, HasSubstr("data-left-out=19800><b>19800 of 20000 series "
                              "are not charted</b>"));
  EXPECT_THAT(html, HasSubstr("--max-series 0 (every series)"));
  EXPECT_THAT(r.err, HasSubstr("19800 of 20000 series not charted"));
  size_t charts = 0;
  for (size_t p = html.find("class=series"); p != std::string::npos;
       p = html.find("class=series", p + 1)) {
    ++charts;
  }
  EXPECT_EQ(charts, 200u);
  const std::string one = Slurp(Page(
      db, "one", "--benchmark '^BM_0042$' --metric tok_rate --max-series 5"));
  EXPECT_THAT(one, HasSubstr("<h2>BM_0042 &mdash; tok_rate</h2>"));
  EXPECT_THAT(one, Not(HasSubstr("left-out")));
  EXPECT_THAT(one, Not(HasSubstr("cpu_time")));
}

}  // namespace
