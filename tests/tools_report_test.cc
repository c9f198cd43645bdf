// tools_report_test.cc: `perfcounters report` — golden HTML, and pages
// rendered in headless Chromium at 1400 px: a 2-run report of the sample
// files and a 200-benchmark report with known changes. The screenshots show
// the bars (the runs' colours cover many pixels) and the DOM holds every
// benchmark, sorted by the size of its change, with Δ%, p, error bars, a
// unit on every axis, the not-counted metric once with its reason, and the
// gate results at the top. Also: output files (never over an input, - for
// stdout, the reason when a path cannot be written) and same-named inputs.
#include <png.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "report.h"
#include "support/headless_chromium.h"
#include "support/tool_runner.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::Slurp;

const std::string& kData = perfcounters::tools::testing::kTestdata;

int Shell(const std::string& cmd) {
  return perfcounters::tools::testing::RunShell(cmd).code;
}

RunResult Tool(const std::string& args, const std::string& dir) {
  return perfcounters::tools::testing::RunTool(args, dir);
}

// 200 benchmarks x 5 repetitions. In `next`, benchmark i changes by
// change(i) % (fully separated, so p = 0.008); cycles are not counted
// (with the reason in the context, as benchmark_ext writes it).
double Change(int i) {
  const int step = i / 20;             // whole steps of 1 %
  if (i % 20 == 3) return 4.0 + step;  // +4 % .. +13 %
  if (i % 25 == 7) return -3.0;
  return 0;
}
std::string TwoHundred(bool next) {
  nlohmann::ordered_json root;
  root["context"] = {
      {"date", "2026-11-30"},
      {"host_name", "ci"},
      {"perfcounters.unavailable",
       "cycles: not supported by this machine's PMU (ENOENT): no hardware "
       "PMU in sysfs"}};
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (int i = 0; i < 200; ++i) {
    const std::string name =
        i % 9 == 0 ? absl::StrCat(
                         "BM_Sort<std::vector<std::pair<int, "
                         "std::string>>>/range:",
                         i, "/threads:1/real_time/iterations:1000")
                   : absl::StrCat("BM_hash/", i);
    const double factor = next ? 1 + Change(i) / 100 : 1;
    for (int r = 0; r < 5; ++r) {
      const double t = (1000 + 10 * i) * factor * (1 + 0.002 * r);
      root["benchmarks"].push_back({{"name", name},
                                    {"run_name", name},
                                    {"run_type", "iteration"},
                                    {"repetition_index", r},
                                    {"iterations", 1000},
                                    {"real_time", t * 1.01},
                                    {"cpu_time", t},
                                    {"time_unit", "ns"},
                                    {"instructions", 3000.0 * factor},
                                    {"task-clock", t * 0.99},
                                    {"cycles.not_counted", 1}});
    }
  }
  return root.dump();
}

// 13 tokenizer benchmarks x 5 repetitions, as issue 39 found them: in
// `next`, BM_Tokenize/4096's user counter tok_rate falls by 87 % (fully
// separated: p 0.008), BM_Tokenize/7's time rises by 10 % and
// BM_Tokenize/9's falls by 5 %; page-faults is 0 everywhere; cycles and
// instructions are not counted, for one reason, in both files.
std::string Tokenizer(bool next) {
  nlohmann::ordered_json root;
  root["context"] = {
      {"date", "2026-11-30"},
      {"host_name", "ci"},
      {"perfcounters.unavailable",
       "cycles, instructions: not supported by this machine's PMU (ENOENT): "
       "no hardware PMU in sysfs"}};
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (int i = 1; i <= 13; ++i) {
    const std::string name = absl::StrCat("BM_Tokenize/", i == 13 ? 4096 : i);
    const double time_factor = !next ? 1 : i == 7 ? 1.10 : i == 9 ? 0.95 : 1;
    const double rate_factor = next && i == 13 ? 0.13 : 1;
    for (int r = 0; r < 5; ++r) {
      const double t = (500 + 10 * i) * time_factor * (1 + 0.002 * r);
      root["benchmarks"].push_back(
          {{"name", name},
           {"run_name", name},
           {"run_type", "iteration"},
           {"repetition_index", r},
           {"iterations", 1000},
           {"real_time", t},
           {"cpu_time", t},
           {"time_unit", "ns"},
           {"tok_rate", 1e6 * rate_factor * (1 + 0.001 * r)},
           {"page-faults", 0.0},
           {"cycles.not_counted", 1},
           {"instructions.not_counted", 1}});
    }
  }
  return root.dump();
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(
        perfcounters::tools::testing::ScratchPath("report_test"));
    ASSERT_EQ(Shell("rm -rf " + *dir_ + " && mkdir -p " + *dir_ + "/a " +
                    *dir_ + "/b"),
              0);
    std::ofstream(*dir_ + "/base200.json") << TwoHundred(false);
    std::ofstream(*dir_ + "/new200.json") << TwoHundred(true);
    std::ofstream(*dir_ + "/a/results.json") << TwoHundred(false);
    std::ofstream(*dir_ + "/b/results.json") << TwoHundred(true);
    std::ofstream(*dir_ + "/tok_base.json") << Tokenizer(false);
    std::ofstream(*dir_ + "/tok_new.json") << Tokenizer(true);
  }
  void SetUp() override { PERFCOUNTERS_REQUIRE_TESTDATA(); }
  // The 2-run report of the sample files.
  static std::string TwoRuns() {
    std::string path = *dir_ + "/report.html";
    const RunResult r =
        Tool(absl::StrCat("report base.json new.json -o ", Quote(path)), kData);
    EXPECT_EQ(r.code, 0) << r.err;
    return path;
  }
  // The 200-benchmark report with two gates (one fails).
  static std::string TwoHundredRuns() {
    std::string path = *dir_ + "/report200.html";
    const RunResult r = Tool(
        "report base200.json new200.json -o report200.html --fail-on "
        "'cpu_time>+10%' --fail-on 'instructions>+20%'",
        *dir_);
    EXPECT_EQ(r.code, 1) << r.err;  // the cpu_time gate fails
    return path;
  }
  // The report of the tokenizer files, without --fail-on.
  static std::string TokenizerPage() {
    const RunResult r =
        Tool("report tok_base.json tok_new.json -o tok.html", *dir_);
    EXPECT_EQ(r.code, 0) << r.err;
    return Slurp(*dir_ + "/tok.html");
  }
  // The part of `html` from `<section id="<id>"` to its end.
  static std::string Section(const std::string& html, const std::string& id) {
    const size_t begin = html.find(absl::StrCat("<section id=\"", id, "\""));
    if (begin == std::string::npos) return "";
    return html.substr(begin, html.find("</section>", begin) - begin);
  }
  // Natively Chromium must be there (scripts/deps.sh installs it), so a
  // missing browser fails. Inside the emulated arm64 machine
  // (PERFCOUNTERS_REQUIRE_HW=1) there is no browser; the native run of this
  // test renders the report.
  static bool NoBrowserHere() {
    const char* vm = std::getenv("PERFCOUNTERS_REQUIRE_HW");
    return vm != nullptr && std::string(vm) == "1" &&
           Shell("command -v chromium >/dev/null 2>&1") != 0;
  }
  // One headless Chromium for the test binary, started by the first page
  // it renders (its start-up is most of a page's cost) and closed after the
  // last test.
  static void TearDownTestSuite() {
    delete browser_;
    browser_ = nullptr;
  }
  // `page` rendered in headless Chromium at 1400 x `height` px: its DOM
  // after the load event (as --dump-dom prints it) and its screenshot's
  // pixels per colour. The screenshot is kept in $PERFCOUNTERS_SCREENSHOTS
  // (a directory) when that is set.
  struct Rendered {
    std::string dom;
    std::map<std::string, size_t> colours;
  };
  static Rendered Render(const std::string& page, int height,
                         const std::string& name) {
    Rendered out;
    const std::string log = *dir_ + "/chromium.err";
    if (browser_ == nullptr) {
      const std::string profile = *dir_ + "/profile";
      Shell("rm -rf " + profile);
      auto started = perfcounters::testing::HeadlessChromium::Start(
          {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           "--user-data-dir=" + profile},
          log);
      if (!started.ok()) {
        ADD_FAILURE() << "chromium: " << started.status();
        return out;
      }
      browser_ = started->release();
    }
    auto rendered = browser_->Render("file://" + page, 1400, height);
    if (!rendered.ok()) {
      ADD_FAILURE() << "chromium failed (scripts/deps.sh installs it): "
                    << rendered.status() << "\n"
                    << Slurp(log);
      return out;
    }
    out.dom = rendered->dom;
    const std::string png = *dir_ + "/" + name;
    std::ofstream(png, std::ios::binary) << rendered->png;
    if (const char* keep = std::getenv("PERFCOUNTERS_SCREENSHOTS")) {
      Shell(absl::StrCat("cp ", Quote(png), " ", Quote(keep)));
    }
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, png.c_str())) {
      ADD_FAILURE() << "no screenshot: " << image.message;
      return out;
    }
    image.format = PNG_FORMAT_RGB;
    std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
    EXPECT_TRUE(
        png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr));
    EXPECT_EQ(image.width, 1400u);
    EXPECT_EQ(image.height, static_cast<unsigned>(height));
    size_t not_white = 0;
    for (size_t i = 0; i + 2 < pixels.size(); i += 3) {
      const int r = pixels[i], g = pixels[i + 1], b = pixels[i + 2];
      if (r < 250 || g < 250 || b < 250) ++not_white;
      out.colours[absl::StrFormat("#%02X%02X%02X", r, g, b)]++;
    }
    EXPECT_GT(not_white, pixels.size() / 3 / 20) << "the page looks blank";
    return out;
  }
  static perfcounters::testing::HeadlessChromium* browser_;
  static std::string* dir_;
};
std::string* ReportTest::dir_ = nullptr;
perfcounters::testing::HeadlessChromium* ReportTest::browser_ = nullptr;

TEST_F(ReportTest, GoldenAndSelfContained) {
  const std::string html = Slurp(TwoRuns());
  perfcounters::tools::testing::ExpectGolden(html, "report.html");
  EXPECT_THAT(html, Not(HasSubstr("http:")));
  EXPECT_THAT(html, Not(HasSubstr("https:")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
}

TEST_F(ReportTest, TwoRunsInChromium) {
  if (NoBrowserHere()) {
    GTEST_SKIP() << "no Chromium in the emulated arm64 machine; the native run "
                    "renders the report";
  }
  const Rendered rendered = Render(TwoRuns(), 1600, "report2.png");
  const std::string& dom = rendered.dom;
  ASSERT_THAT(dom, HasSubstr("<section id=\"m-IPC\" class=\"metric\""));
  // IPC of BM_sort/1024: 6000/3000 in base, 6060/3300 in new (-8.18 %, p
  // 0.1 with 3 vs 3).
  EXPECT_THAT(dom,
              HasSubstr(absl::StrCat("data-run=\"new.json\" data-value=\"",
                                     absl::StrFormat("%.17g", 6060.0 / 3300.0),
                                     "\" data-change=\"-8.18182\"")));
  EXPECT_THAT(dom, HasSubstr("<td data-change=\"\">-8.18%</td><td>0.100</td>"));
  // cycles were not counted for BM_copy in base: said, not drawn.
  EXPECT_THAT(dom, HasSubstr("<td class=\"na\">not counted</td>"));
  // Units: times with their unit in every cell, the axis in %.
  EXPECT_THAT(dom, HasSubstr("1.000 us"));
  EXPECT_THAT(dom, HasSubstr("Δ median vs base.json (%)"));
  // The new run's colour (Okabe-Ito orange) fills the bars.
  EXPECT_GT(rendered.colours.at("#E69F00"), 3000u);
}

TEST_F(ReportTest, TwoHundredBenchmarksInChromium) {
  if (NoBrowserHere()) {
    GTEST_SKIP() << "no Chromium in the emulated arm64 machine; the native run "
                    "renders the report";
  }
  const Rendered rendered = Render(TwoHundredRuns(), 2400, "report200.png");
  const std::string& dom = rendered.dom;
  // The gates head the page, with the verdict the exit status gave.
  const size_t gates = dom.find("<section id=\"gates\">");
  const size_t first_metric = dom.find("<section id=\"m-");
  ASSERT_NE(gates, std::string::npos);
  EXPECT_LT(gates, first_metric);
  EXPECT_THAT(dom, HasSubstr("data-exit-code=\"1\">FAILED: a gate was "
                             "violated (exit 1)"));
  // cycles: one line with the reason, no chart; IPC likewise (its input).
  EXPECT_THAT(dom, HasSubstr("<b>cycles, IPC, cpi</b> (every run): not "
                             "supported by this machine's PMU (ENOENT)"));
  EXPECT_THAT(dom, Not(HasSubstr("id=\"m-cycles\"")));
  // Every benchmark is in every metric's section, the first 50 in the open
  // table and the rest in collapsed pages; the largest change comes first.
  for (const char* metric :
       {"real_time", "cpu_time", "instructions", "task-clock"}) {
    SCOPED_TRACE(metric);
    const size_t begin = dom.find(absl::StrCat("<section id=\"m-", metric));
    ASSERT_NE(begin, std::string::npos);
    const size_t end = dom.find("</section>", begin);
    const std::string section = dom.substr(begin, end - begin);
    size_t rows = 0;
    for (size_t p = section.find("<tr data-benchmark="); p != std::string::npos;
         p = section.find("<tr data-benchmark=", p + 1)) {
      ++rows;
    }
    EXPECT_EQ(rows, 200u);
    EXPECT_THAT(section, HasSubstr("<summary>Benchmarks 51–200 of 200"));
    // The largest change: i = 183 (+13 %).
    const size_t first_row = section.find("<tr data-benchmark=\"");
    EXPECT_EQ(section.substr(first_row, 33),
              "<tr data-benchmark=\"BM_hash/183\">");
    EXPECT_THAT(section, HasSubstr("+13.00%"));
    // Error bars.
    EXPECT_THAT(section, HasSubstr("class=\"whisker\""));
  }
  // Full names in the cell and on hover.
  EXPECT_THAT(dom, HasSubstr("title=\"BM_Sort&lt;std::vector&lt;std::pair&lt;"
                             "int, std::string&gt;&gt;&gt;/range:0/threads:1/"
                             "real_time/iterations:1000\">"));
  // task-clock is a time.
  EXPECT_THAT(dom, HasSubstr("task-clock <span class=\"unit\">(time per "
                             "iteration)</span>"));
  EXPECT_GT(rendered.colours.at("#E69F00"), 3000u);
}

// The flame graphs of the profile sample files (tools_profile_test checks
// their SVG): drawn, in the frames' own colours.
TEST_F(ReportTest, FlameGraphsInChromium) {
  if (NoBrowserHere()) {
    GTEST_SKIP() << "no Chromium in the emulated arm64 machine; the native run "
                    "renders the report";
  }
  const std::string page = *dir_ + "/profiles.html";
  const RunResult r =
      Tool(absl::StrCat("report profile_base.json profile_new.json -o ",
                        Quote(page)),
           kData);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(page);
  // The fill of a frame, upper-case as Render() counts colours.
  auto fill = [&](const std::string& name) {
    const size_t g = html.find(absl::StrCat("data-name=\"", name, "\""));
    EXPECT_NE(g, std::string::npos) << name;
    const size_t at = html.find("fill=\"", g) + 6;
    std::string colour = html.substr(at, 7);
    for (char& c : colour) c = static_cast<char>(std::toupper(c));
    return colour;
  };
  const Rendered rendered = Render(page, 3000, "profiles.png");
  EXPECT_THAT(rendered.dom, HasSubstr("<svg class=\"flamegraph\""));
  const auto& colours = rendered.colours;
  // ParseNumber's boxes: 41 % and 58 % of 1172 px by 17 px in the two
  // graphs of BM_Parse (their labels cover some of it); "all" spans every
  // graph.
  const double parse_area = (0.41 + 0.58) * 1172 * 17;
  const auto count = [&](const std::string& colour) {
    auto it = colours.find(colour);
    return it == colours.end() ? size_t{0} : it->second;
  };
  EXPECT_GT(count(fill("ParseNumber(char const*)")), parse_area * 0.6);
  EXPECT_LT(count(fill("ParseNumber(char const*)")), parse_area * 1.05);
  EXPECT_GT(count(fill("all")), 5 * 1172 * 17 * 0.6);
}

// Without --fail-on the page still opens with a verdict: the first section
// is the summary, with each class counted and its largest items named.
TEST_F(ReportTest, SummaryOpensThePageWithoutGates) {
  const std::string html = TokenizerPage();
  const size_t first = html.find("<section id=\"");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(html.substr(first, 21), "<section id=\"summary\"");
  EXPECT_LT(first, html.find("<table"));
  const std::string summary = Section(html, "summary");
  EXPECT_THAT(summary, HasSubstr("<p class=\"verdict fail\">2 regressions in "
                                 "tok_new.json against tok_base.json</p>"));
  // real_time and cpu_time of BM_Tokenize/7 regressed, of /9 improved.
  EXPECT_THAT(summary, HasSubstr("<li class=\"worse\" data-count=\"2\">"));
  EXPECT_THAT(summary, HasSubstr("<li class=\"better\" data-count=\"2\">"));
  EXPECT_THAT(summary, HasSubstr("BM_Tokenize/7 real_time</a> +10.00% "
                                 "(p 0.008)"));
  // 13 x 3 metrics shown (page-faults is one line), 5 changed; cycles,
  // instructions and the two ratios of them not counted.
  EXPECT_THAT(summary, HasSubstr("<li class=\"unchanged\" data-count=\"34\">"));
  EXPECT_THAT(summary,
              HasSubstr("<li class=\"notcounted\" data-count=\"4\"><b>4 "
                        "metrics not counted</b>"));
  EXPECT_THAT(summary, HasSubstr("<li class=\"zero\" data-count=\"1\">"));
}

// 3 vs 3 repetitions cannot reach p < 0.05 (the U test's smallest p is
// 0.1): a +30 % change, fully separated, is neither a regression nor
// unchanged, and the summary says why. Before: "No regression ... 3
// unchanged (no significant change of 1 % or more)".
TEST_F(ReportTest, ChangesTooFewRepetitionsCannotTestAreNotUnchanged) {
  for (const bool next : {false, true}) {
    nlohmann::ordered_json root;
    root["context"] = {{"date", "2026-11-30"}, {"host_name", "ci"}};
    for (const char* name : {"BM_a", "BM_b"}) {
      const double factor = next && name[3] == 'a' ? 1.3 : 1;
      for (int r = 0; r < 3; ++r) {
        const double t = 1000 * factor * (1 + 0.002 * r);
        root["benchmarks"].push_back({{"name", name},
                                      {"run_name", name},
                                      {"run_type", "iteration"},
                                      {"repetition_index", r},
                                      {"iterations", 1000},
                                      {"real_time", t},
                                      {"cpu_time", t},
                                      {"time_unit", "ns"}});
      }
    }
    std::ofstream(*dir_ + (next ? "/three_new.json" : "/three_base.json"))
        << root.dump();
  }
  const RunResult r =
      Tool("report three_base.json three_new.json -o three.html", *dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string summary = Section(Slurp(*dir_ + "/three.html"), "summary");
  EXPECT_THAT(summary,
              HasSubstr("<p class=\"verdict unknown\">No significant "
                        "regression, but 2 changes of 1 % or more that cannot "
                        "be significant in three_new.json against "
                        "three_base.json (3 vs 3 repetitions allow p 0.100 at "
                        "best, never below 0.05"));
  EXPECT_THAT(summary, HasSubstr("4 or more repetitions a side can tell"));
  EXPECT_THAT(summary, HasSubstr("<li class=\"untestable\" data-count=\"2\">"));
  EXPECT_THAT(summary, HasSubstr("BM_a cpu_time</a> +30.00% (p 0.100)"));
  // BM_b's times, unchanged, are what is called unchanged.
  EXPECT_THAT(summary, HasSubstr("<li class=\"unchanged\" data-count=\"2\">"));
  EXPECT_THAT(summary, Not(HasSubstr("No regression in")));
}

// A user counter's change is not silently neither: tok_rate -87 % (p 0.008)
// is a change of unknown direction, in the summary and in its table.
TEST_F(ReportTest, UserCounterChangeIsClassified) {
  const std::string html = TokenizerPage();
  const std::string summary = Section(html, "summary");
  EXPECT_THAT(summary,
              HasSubstr("<li class=\"changed\" data-count=\"1\"><b>1 change, "
                        "direction unknown</b>"));
  EXPECT_THAT(summary, HasSubstr("BM_Tokenize/4096 tok_rate</a> -87.00% "
                                 "(p 0.008)"));
  const std::string section = Section(html, "m-tok_rate");
  EXPECT_THAT(section, HasSubstr("<span class=\"changed\">1 changed, "
                                 "direction unknown</span>"));
  EXPECT_THAT(section, HasSubstr("<td class=\"changed\""));
}

// Each reason for not counting is said once, however many metrics and
// files share it.
TEST_F(ReportTest, NotCountedSaysEachReasonOnce) {
  const std::string html = TokenizerPage();
  const std::string reason = "no hardware PMU in sysfs";
  size_t times = 0;
  for (size_t p = html.find(reason); p != std::string::npos;
       p = html.find(reason, p + 1)) {
    ++times;
  }
  EXPECT_EQ(times, 1u) << Section(html, "not-counted");
  EXPECT_THAT(Section(html, "not-counted"),
              HasSubstr("<b>cycles, instructions, IPC, cpi</b> (every run): "
                        "not supported by this machine&#39;s PMU (ENOENT): no "
                        "hardware PMU in sysfs</li>"));
}

// A metric that is 0 in every benchmark and run is one line, not a table
// of "no base value" rows.
TEST_F(ReportTest, AllZeroMetricIsOneLine) {
  const std::string html = TokenizerPage();
  EXPECT_THAT(html, Not(HasSubstr("no base value")));
  const std::string section = Section(html, "m-page-faults");
  ASSERT_FALSE(section.empty());
  EXPECT_THAT(section, Not(HasSubstr("<tr")));
  EXPECT_THAT(section, HasSubstr("0 in every run and benchmark (13 "
                                 "benchmarks counted it)"));
  // Still in the navigation.
  EXPECT_THAT(html, HasSubstr("<a href=\"#m-page-faults\">"));
}

TEST_F(ReportTest, SameFileNamesAreToldApart) {
  const RunResult r =
      Tool("report a/results.json b/results.json -o same.html", *dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(*dir_ + "/same.html");
  EXPECT_THAT(html, HasSubstr("data-run=\"a/results.json\""));
  EXPECT_THAT(html, HasSubstr("data-run=\"b/results.json\""));
  EXPECT_EQ(perfcounters::tools::RunLabels(
                {"x/a/r.json", "y/a/r.json", "r2.json", "r2.json"}),
            (std::vector<std::string>{"x/a/r.json", "y/a/r.json", "r2.json",
                                      "r2.json #2"}));
}

TEST_F(ReportTest, OutputFiles) {
  const std::string input = Slurp(*dir_ + "/base200.json");
  RunResult r = Tool("report base200.json -o base200.json", *dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("refusing to write base200.json: it is the "
                               "input file base200.json"));
  EXPECT_EQ(Slurp(*dir_ + "/base200.json"), input);
  r = Tool("report base200.json -o -", *dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<!DOCTYPE html>"));
  EXPECT_FALSE(perfcounters::tools::testing::Exists(*dir_ + "/-"));
  // --max-series is for trend charts; a report of files shows everything.
  r = Tool("report base200.json --max-series 5 -o x.html", *dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-series is for --db"));
  r = Tool("report base200.json -o /proc/version/x.html", *dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot write /proc/version/x.html"));
  EXPECT_THAT(r.err, HasSubstr("Not a directory"));
}

}  // namespace

// Runs counted by the simulator (a real simulated run of
// bench/simulated_gate_bench): the page names the source, every metric's
// heading says who gave its values (the estimates as estimates, the times
// as valgrind's); a simulated run and a measured one are never on one page.
TEST_F(ReportTest, SimulatedRunsAreLabelledAndNeverMixed) {
  const std::string sim = kData + "/simulated.json";
  RunResult r = Tool(absl::StrCat("report ", Quote(sim), " ", Quote(sim),
                                  " -o simulated.html"),
                     *dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(*dir_ + "/simulated.html");
  EXPECT_THAT(html, HasSubstr("Counted by the simulator, not the PMU: "
                              "simulate: valgrind-3.19.0 callgrind"));
  const auto heading = [&](const std::string& metric) {
    const size_t at = html.find("data-metric=\"" + metric + "\"");
    if (at == std::string::npos) return std::string("(no section)");
    return html.substr(at, html.find("</h2>", at) - at);
  };
  EXPECT_THAT(heading("instructions"), HasSubstr("[simulated]"));
  EXPECT_THAT(heading("est_cycles"),
              HasSubstr("[estimate: a cost model, not measured]"));
  EXPECT_THAT(heading("est_ipc"),
              HasSubstr("[estimate: a cost model, not measured]"));
  EXPECT_THAT(heading("real_time"),
              HasSubstr("[valgrind&#39;s time, not the benchmark&#39;s]"));
  // A measured run's page has no such labels.
  r = Tool(
      absl::StrCat("report ", Quote(kData + "/base.json"), " -o measured.html"),
      *dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Slurp(*dir_ + "/measured.html"),
              Not(HasSubstr("class=\"source\"")));
  // Mixed: refused, naming both sources, and no page written.
  r = Tool(absl::StrCat("report ", Quote(kData + "/base.json"), " ", Quote(sim),
                        " -o mixed.html"),
           *dir_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("was counted by pmu (no perfcounters.source)"));
  EXPECT_THAT(r.err, HasSubstr("simulated.json by simulate: valgrind-3.19.0"));
  EXPECT_THAT(r.err, HasSubstr("never compared with a measured one"));
  EXPECT_FALSE(perfcounters::tools::testing::Exists(*dir_ + "/mixed.html"));
}
