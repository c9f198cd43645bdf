// tools_profile_report_test.cc: profiles ("perfcounters_profile",
// docs/profiles.md) in `perfcounters report`: the flame graph SVG (each
// frame's width is its samples' share of the width, children inside their
// parent one row up, a tooltip per frame, narrow frames counted), the
// functions table and its share changes. The sample files:
// tools_profile_test.cc.

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report.h"
#include "report_profile.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string& kData = testing::kTestdata;

BenchmarkFile Load(const std::string& name) {
  absl::StatusOr<BenchmarkFile> f = LoadBenchmarkJson(kData + "/" + name);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : BenchmarkFile{};
}

class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override { PERFCOUNTERS_REQUIRE_TESTDATA(); }
};

struct Frame {
  std::string name;
  double samples, x, y, width;
  int depth;
  std::string fill;
};

// The value of attribute `name` in the tag that starts at `tag`.
std::string Attr(const std::string& html, size_t tag, const std::string& name) {
  const size_t end = html.find('>', tag);
  const std::string key = absl::StrCat(" ", name, "=\"");
  const size_t at = html.find(key, tag);
  if (at == std::string::npos || at > end) return "";
  const size_t begin = at + key.size();
  return html.substr(begin, html.find('"', begin) - begin);
}

// Positions of `needle` in html[begin, end).
std::vector<size_t> FindAll(const std::string& html, const std::string& needle,
                            size_t begin = 0, size_t end = std::string::npos) {
  std::vector<size_t> out;
  for (size_t p = html.find(needle, begin); p != std::string::npos && p < end;
       p = html.find(needle, p + 1)) {
    out.push_back(p);
  }
  return out;
}

// The frames of each flame graph of `benchmark` in `html`, by data-run.
std::map<std::string, std::pair<double, std::vector<Frame>>> FlameGraphs(
    const std::string& html, const std::string& benchmark) {
  std::map<std::string, std::pair<double, std::vector<Frame>>> out;
  for (size_t svg : FindAll(html, "<svg class=\"flamegraph\"")) {
    if (Attr(html, svg, "data-benchmark") != benchmark) continue;
    auto& [total, frames] = out[Attr(html, svg, "data-run")];
    total = std::stod(Attr(html, svg, "data-samples"));
    const size_t end = html.find("</svg>", svg);
    for (size_t g : FindAll(html, "<g class=\"frame\"", svg, end)) {
      const size_t rect = html.find("<rect ", g);
      frames.push_back(
          {Attr(html, g, "data-name"), std::stod(Attr(html, g, "data-samples")),
           std::stod(Attr(html, rect, "x")), std::stod(Attr(html, rect, "y")),
           std::stod(Attr(html, rect, "width")),
           std::stoi(Attr(html, g, "data-depth")), Attr(html, rect, "fill")});
    }
  }
  return out;
}

TEST_F(ProfileTest, ReportFlameGraphWidthsAndNesting) {
  const std::string html =
      RenderReport({Load("profile_base.json"), Load("profile_new.json")});
  EXPECT_THAT(html, Not(HasSubstr("http")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("<a href=\"#profiles\">profiles</a>"));
  const auto graphs = FlameGraphs(html, "BM_Parse");
  ASSERT_EQ(graphs.size(), 2u);
  const double inner = FlameGraphOptions{}.width - 8;
  const std::map<std::string, double> parse_number = {
      {"profile_base.json", 410}, {"profile_new.json", 580}};
  for (const auto& [run, graph] : graphs) {
    SCOPED_TRACE(run);
    const auto& [total, frames] = graph;
    EXPECT_EQ(total, 1000);
    // all, main, BM_Parse, ParseNumber, Tokenize, memchr.
    ASSERT_EQ(frames.size(), 6u);
    EXPECT_EQ(frames[0].name, "all");
    EXPECT_NEAR(frames[0].width, inner, 0.01);
    for (const Frame& f : frames) {
      SCOPED_TRACE(f.name);
      // Width in proportion to samples.
      EXPECT_NEAR(f.width, f.samples / total * inner, 0.01);
      if (f.depth == 0) continue;
      // Inside a parent one level down, which sits one row below.
      bool inside = false;
      for (const Frame& p : frames) {
        if (p.depth == f.depth - 1 && f.x >= p.x - 1e-3 &&
            f.x + f.width <= p.x + p.width + 1e-3 && p.y > f.y) {
          inside = true;
          EXPECT_EQ(p.y - f.y, FlameGraphOptions{}.row_height);
        }
      }
      EXPECT_TRUE(inside);
    }
    std::map<std::string, Frame> by_name;
    for (const Frame& f : frames) by_name[f.name] = f;
    EXPECT_EQ(by_name["ParseNumber(char const*)"].samples,
              parse_number.at(run));
    EXPECT_EQ(by_name["ParseNumber(char const*)"].depth, 3);
    EXPECT_EQ(by_name["memchr"].depth, 4);
    // memchr is a callee of Tokenize: inside Tokenize's box.
    const Frame& tok = by_name
        ["Tokenize(std::basic_string_view&lt;char, "
         "std::char_traits&lt;char&gt; &gt;)"];
    EXPECT_GE(by_name["memchr"].x, tok.x);
    EXPECT_EQ(tok.samples, run == "profile_base.json" ? 590 : 420);
  }
  // A tooltip with name, samples and share; a readable label.
  EXPECT_THAT(html, HasSubstr("<title>ParseNumber(char const*) — 580 samples, "
                              "58.00%</title>"));
  EXPECT_THAT(html, HasSubstr(">ParseNumber</text>"));
  // Without call chains, one-frame stacks: BM_Copy's graph has all and
  // its functions, with a gap for the samples not in a listed function.
  const auto copy = FlameGraphs(html, "BM_Copy");
  ASSERT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy.at("profile_base.json").second.size(), 3u);
}

TEST_F(ProfileTest, ReportFunctionsTableWithShareChanges) {
  const std::string html =
      RenderReport({Load("profile_base.json"), Load("profile_new.json")});
  const size_t begin =
      html.find("<section class=\"profile\" data-benchmark=\"BM_Parse\"");
  ASSERT_NE(begin, std::string::npos);
  const std::string section =
      html.substr(begin, html.find("</section>", begin) - begin);
  // Largest change first: ParseNumber +17 pp, Tokenize -12 pp, memchr -5 pp.
  std::vector<std::pair<std::string, std::string>> rows;
  for (size_t tr : FindAll(section, "<tr class=\"function\"")) {
    const size_t change = section.find("data-change-pp=", tr);
    const size_t text = section.find('>', change) + 1;
    rows.emplace_back(Attr(section, tr, "data-function"),
                      section.substr(text, section.find('<', text) - text));
  }
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], std::make_pair(std::string("ParseNumber(char const*)"),
                                    std::string("+17 pp")));
  EXPECT_THAT(rows[1].first, HasSubstr("Tokenize"));
  EXPECT_EQ(rows[1].second, "-12 pp");
  EXPECT_EQ(rows[2],
            std::make_pair(std::string("memchr"), std::string("-5.0 pp")));
  EXPECT_THAT(section, HasSubstr("parse_bench · bench/parse.cc:42"));
  EXPECT_THAT(section, HasSubstr("41.0%<span class=\"spread\">· 41.0%"));
  // BM_Copy: lists are incomplete, so CopyLoop has no base share.
  const size_t copy = html.find("data-benchmark=\"BM_Copy\"><h3>");
  ASSERT_NE(copy, std::string::npos);
  const std::string copy_section =
      html.substr(copy, html.find("</section>", copy) - copy);
  EXPECT_THAT(copy_section, HasSubstr("<td class=\"na\">not listed</td>"));
  EXPECT_THAT(copy_section, HasSubstr("jit.so+0x1f40"));
  // BM_OnlyBaseProfiled: the new run has no profile of it.
  EXPECT_THAT(html, HasSubstr("no profile of this benchmark in this run."));
}

TEST_F(ProfileTest, ReportWithoutProfilesHasNoProfileSection) {
  const std::string html = RenderReport({Load("base.json"), Load("new.json")});
  // (The files' paths may hold the word, a checkout's directory name.)
  EXPECT_THAT(html, Not(HasSubstr("class=\"profile")));
  EXPECT_THAT(html, Not(HasSubstr("id=\"profiles\"")));
  EXPECT_THAT(html, Not(HasSubstr("#profiles")));
  EXPECT_THAT(html, Not(HasSubstr("flamegraph")));
}

TEST_F(ProfileTest, NarrowFramesAreCountedNotDrawn) {
  BenchmarkProfile p;
  p.samples = 100000;
  p.stacks = {{"main;hot", 99990}, {"main;cold;colder", 10}};
  const std::string svg = FlameGraphSvg(p, "BM_x", "run");
  // cold is 0.1 px wide at 1172 px: it and its callee are not drawn.
  EXPECT_THAT(svg, HasSubstr("data-frames=\"3\" data-hidden=\"2\""));
  EXPECT_THAT(svg, Not(HasSubstr("data-name=\"cold\"")));
}

}  // namespace
}  // namespace perfcounters::tools
