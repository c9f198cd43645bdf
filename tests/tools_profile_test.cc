// tools_profile_test.cc: profiles ("perfcounters_profile", the format in
// docs/profiles.md) in `perfcounters report` and `perfcounters compare`.
// The sample files profile_base.json / profile_new.json are small enough to
// check by hand: BM_Parse's ParseNumber goes from 410 of 1000 samples (41 %)
// to 580 of 1000 (58 %), +17 pp; Tokenize 39 % -> 27 %; memchr 20 % -> 15 %.
// BM_Copy's function lists are incomplete (their samples add up to less
// than the total), so a function listed on one side only has no change;
// BM_OnlyBaseProfiled has a profile in base only.
//
// Checked: the reader (missing optional fields accepted, every wrong kind an
// error with its position, repetitions' copies counted once, different
// profiles added) and compare's table, markdown (within the comment size
// limit) and JSON; the report's flame graph and functions table:
// tools_profile_report_test.cc.
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compare.h"
#include "compare_output.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "profile_data.h"
#include "report.h"
#include "report_profile.h"
#include "support/status_matchers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::perfcounters::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunResult;
using testing::Slurp;

const std::string& kData = testing::kTestdata;

BenchmarkFile Load(const std::string& name) {
  absl::StatusOr<BenchmarkFile> f = LoadBenchmarkJson(kData + "/" + name);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : BenchmarkFile{};
}

// A one-benchmark file whose row carries `profile` (JSON text).
std::string WithProfile(const std::string& profile) {
  return absl::StrCat(
      R"({"benchmarks": [{"name": "BM_x", "run_type": "iteration",
      "iterations": 10, "real_time": 1, "cpu_time": 1, "time_unit": "ns",
      "perfcounters_profile": )",
      profile, "}]}");
}

absl::StatusOr<BenchmarkFile> Parse(const std::string& profile) {
  return ParseBenchmarkJson(WithProfile(profile), "t.json");
}

class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override { PERFCOUNTERS_REQUIRE_TESTDATA(); }
};

TEST_F(ProfileTest, ReadsTheSampleFiles) {
  const BenchmarkFile base = Load("profile_base.json");
  const std::vector<NamedProfile> profiles = Profiles(base);
  ASSERT_EQ(profiles.size(), 3u);
  // Both repetitions of BM_Parse carry the same profile: counted once.
  EXPECT_EQ(profiles[0].benchmark, "BM_Parse");
  const BenchmarkProfile& p = profiles[0].profile;
  EXPECT_EQ(p.event, "cpu-clock");
  EXPECT_EQ(p.period, 100000);
  EXPECT_EQ(p.samples, 1000);
  EXPECT_TRUE(p.callchains);
  EXPECT_TRUE(p.complete);
  ASSERT_EQ(p.functions.size(), 3u);
  EXPECT_EQ(p.functions[0].name, "ParseNumber(char const*)");
  EXPECT_EQ(p.functions[0].file, "bench/parse.cc");
  EXPECT_EQ(p.functions[0].line, 42);
  EXPECT_EQ(p.functions[2].name, "memchr");
  EXPECT_EQ(p.functions[2].file, "");  // absent: accepted
  EXPECT_FALSE(p.functions[2].line.has_value());
  ASSERT_EQ(p.stacks.size(), 3u);
  // BM_Copy: frequency, no lost, an [unknown] with its offset, no shares
  // written (taken as samples / total), an incomplete list.
  const BenchmarkProfile& c = profiles[1].profile;
  EXPECT_EQ(c.frequency, 4000);
  EXPECT_FALSE(c.lost.has_value());
  EXPECT_FALSE(c.complete);
  EXPECT_EQ(c.functions[1].offset, "0x1f40");
  EXPECT_DOUBLE_EQ(*c.Share(c.functions[0]), 0.8);
  EXPECT_TRUE(base.warnings.empty()) << base.warnings[0];
}

TEST_F(ProfileTest, DifferentProfilesOfABenchmarkAreAdded) {
  const std::string row = R"({"name": "BM_x", "run_type": "iteration",
      "repetition_index": %d, "real_time": 1, "cpu_time": 1,
      "perfcounters_profile": {"samples": %d, "functions": [
        {"name": "f", "samples": %d}, {"name": "g", "samples": %d}]}})";
  auto make = [&](int rep, int f, int g) {
    std::string r = row;
    for (int v : {rep, f + g, f, g})
      r.replace(r.find("%d"), 2, std::to_string(v));
    return r;
  };
  absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(
      absl::StrCat(R"({"benchmarks": [)", make(0, 30, 10), ",", make(1, 30, 10),
                   ",", make(2, 10, 50), "]}"),
      "t.json");
  ASSERT_TRUE(file.ok()) << file.status();
  const std::vector<NamedProfile> profiles = Profiles(*file);
  ASSERT_EQ(profiles.size(), 1u);
  // 40 (the identical copy once) + 60 samples; g: 10 + 50 of 100.
  const BenchmarkProfile& p = profiles[0].profile;
  EXPECT_EQ(p.samples, 100);
  ASSERT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(p.functions[0].name, "g");
  EXPECT_EQ(p.functions[0].samples, 60);
  EXPECT_DOUBLE_EQ(*p.Share(p.functions[0]), 0.6);
}

TEST_F(ProfileTest, OptionalFieldsMayBeAbsent) {
  absl::StatusOr<BenchmarkFile> f =
      Parse(R"({"functions": [{"name": "f", "samples": 3}]})");
  ASSERT_TRUE(f.ok()) << f.status();
  const BenchmarkProfile& p = *f->entries[0].profile();
  EXPECT_EQ(p.samples, 3);  // the functions' sum
  EXPECT_TRUE(p.stacks.empty());
  EXPECT_FALSE(p.callchains);
  // An empty profile is a profile with no samples.
  f = Parse("{}");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->entries[0].profile()->samples, 0);
}

// What benchmark_ext's writer gives: a numeric offset, functions_truncated.
TEST_F(ProfileTest, WritersMembersAreKnown) {
  absl::StatusOr<BenchmarkFile> f = Parse(
      R"({"event": "cpu-clock", "period": 100000, "samples": 10, "lost": 0,
          "callchains": false, "functions": [
          {"name": "[unknown]", "module": "/x.so", "offset": 8000,
           "samples": 10, "self": 1, "inlined": false}],
          "functions_truncated": 2, "stacks": [], "stacks_truncated": 0})");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings[0];
  const BenchmarkProfile& p = *f->entries[0].profile();
  EXPECT_EQ(p.functions[0].offset, "0x1f40");
  // Functions were left out, but the listed self samples are all samples:
  // the ones left out had none, so an unlisted one is 0 %.
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(ShareOf(SharesByName(p), p, "g"), 0.0);
  // Left out with self samples of their own: unknown, never 0.
  f = Parse(R"({"samples": 12, "functions": [{"name": "f", "samples": 10}],
                "functions_truncated": 2})");
  ASSERT_TRUE(f.ok()) << f.status();
  const BenchmarkProfile& q = *f->entries[0].profile();
  EXPECT_FALSE(q.complete);
  EXPECT_FALSE(ShareOf(SharesByName(q), q, "g").has_value());
}

// benchmark_ext's writer says when call chains broke (code without frame
// pointers): read without a warning, and said in the report's caption.
TEST_F(ProfileTest, BrokenCallChainsAreReadAndSaid) {
  const std::string text = WithProfile(
      R"({"event": "cpu-clock", "samples": 100, "callchains": false,
          "callchains_broken": 0.93,
          "functions": [{"name": "f", "samples": 100}],
          "stacks": [{"stack": "f", "samples": 100}]})");
  absl::StatusOr<BenchmarkFile> f = ParseBenchmarkJson(text, "t.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings[0];
  EXPECT_EQ(f->entries[0].profile()->callchains_broken, 0.93);
  const std::string html = RenderReport({*f});
  EXPECT_THAT(html, HasSubstr("call chains broken (93% of the samples"));
  EXPECT_THAT(html, HasSubstr("-fno-omit-frame-pointer"));
}

// benchmark_ext's writer says when a profile is one thread's of several
// (a plain Threads(2) loop): read without a warning, said in the caption.
TEST_F(ProfileTest, OneThreadOfSeveralIsReadAndSaid) {
  const std::string text = WithProfile(
      R"({"event": "cpu-clock", "threads": 2, "threads_sampled": 1,
          "samples": 100, "callchains": true,
          "functions": [{"name": "f", "samples": 100}],
          "stacks": [{"stack": "f", "samples": 100}]})");
  absl::StatusOr<BenchmarkFile> f = ParseBenchmarkJson(text, "t.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings[0];
  EXPECT_EQ(f->entries[0].profile()->threads, 2);
  EXPECT_EQ(f->entries[0].profile()->threads_sampled, 1);
  EXPECT_THAT(RenderReport({*f}),
              HasSubstr("sampled on 1 of its 2 threads: the other threads"));
}

TEST_F(ProfileTest, WrongKindsAreErrorsWithTheirPosition) {
  const std::string at =
      "t.json: benchmarks[0] (\"BM_x\").perfcounters_profile";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("cpu-clock")", at + " is a string; expected an object"},
      {R"([1, 2])", at + " is an array; expected an object"},
      {R"({"functions": [{"name": "f", "samples": 1},
                         {"name": "g", "samples": "12"}]})",
       at + ".functions[1].samples is a string; expected a number"},
      {R"({"functions": [{"samples": 1}]})",
       at + ".functions[0] has no \"name\""},
      {R"({"functions": [{"name": 7, "samples": 1}]})",
       at + ".functions[0].name is a number; expected a string"},
      {R"({"functions": [{"name": "f", "samples": -1}]})",
       at + ".functions[0].samples is -1; expected a whole number >= 0"},
      {R"({"functions": [{"name": "f", "samples": 1.5}]})",
       at + ".functions[0].samples is 1.5; expected a whole number >= 0"},
      {R"({"functions": [{"name": "f", "samples": NaN}]})",
       at + ".functions[0].samples is NaN; expected a whole number >= 0"},
      {R"({"functions": [{"name": "f", "samples": 1, "self": 1.5}]})",
       at + ".functions[0].self is 1.5; expected a share in 0..1"},
      {R"({"functions": [{"name": "f", "samples": 1, "line": "42"}]})",
       at + ".functions[0].line is a string; expected a number"},
      {R"({"functions": [{"name": "f", "samples": 1, "inlined": 1}]})",
       at + ".functions[0].inlined is a number; expected true or false"},
      {R"({"functions": {"name": "f"}})",
       at + ".functions is an object; expected an array"},
      {R"({"functions": [3]})",
       at + ".functions[0] is a number; expected an object"},
      {R"({"stacks": [{"stack": "a;b"}]})",
       at + ".stacks[0] has no \"samples\""},
      {R"({"stacks": [{"stack": "", "samples": 1}]})",
       at + ".stacks[0].stack is empty"},
      {R"({"stacks": [{"stack": ["a"], "samples": 1}]})",
       at + ".stacks[0].stack is an array; expected a string"},
      {R"({"samples": true})", at + ".samples is a boolean; expected a number"},
      {R"({"period": 0})", at + ".period is 0; expected a number above 0"},
      {R"({"callchains": "yes"})",
       at + ".callchains is a string; expected true or false"},
      {R"({"event": 1})", at + ".event is a number; expected a string"},
  };
  for (const auto& [profile, error] : cases) {
    SCOPED_TRACE(profile);
    absl::StatusOr<BenchmarkFile> f = Parse(profile);
    ASSERT_THAT(f, Not(IsOk()));
    EXPECT_THAT(std::string(f.status().message()), HasSubstr(error));
  }
}

TEST_F(ProfileTest, InconsistentTotalsAndUnknownMembersAreSaid) {
  absl::StatusOr<BenchmarkFile> f = Parse(
      R"({"samples": 10, "future": 1, "functions": [
          {"name": "f", "samples": 30, "colour": "red"}]})");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->entries[0].profile()->samples, 30);  // no share above 100 %
  ASSERT_EQ(f->warnings.size(), 3u);
  EXPECT_THAT(f->warnings[0], HasSubstr("perfcounters_profile.future is not a "
                                        "member this version knows"));
  EXPECT_THAT(f->warnings[1],
              HasSubstr("perfcounters_profile.functions[0].colour"));
  EXPECT_THAT(f->warnings[2],
              HasSubstr("the functions' samples add up to 30, more than "
                        "\"samples\" (10)"));
}

// ---- compare

RunResult RunCompare(const std::string& args) {
  return testing::RunTool(args, kData);
}

TEST_F(ProfileTest, CompareTableShowsTheLargestShareChanges) {
  const RunResult r = RunCompare("compare profile_base.json profile_new.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("BM_Parse  ParseNumber 41% → 58% (+17 pp) · Tokenize "
                        "39% → 27% (-12 pp) · memchr 20% → 15% (-5.0 pp)  "
                        "(1000 → 1000 samples)"));
  // BM_Copy's lists are incomplete (90 % and 95 % of the samples): a
  // function one side does not list is n/a there, its change a range.
  EXPECT_THAT(r.out, HasSubstr("BM_Copy   CopyLoop n/a → 20% (+10 to +20 pp) "
                               "· [unknown] 10% → n/a (-10 to -5.0 pp) · "
                               "memcpy 80% → 75% (-5.0 pp)  (500 → 400 "
                               "samples)"));
  EXPECT_THAT(r.out, HasSubstr("Note: profiles: 1 benchmark(s) profiled in "
                               "base only, e.g. BM_OnlyBaseProfiled."));
}

TEST_F(ProfileTest, CompareMarkdownAndJson) {
  RunResult r = RunCompare(
      "compare profile_base.json profile_new.json --format markdown");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("### Where the time went (profiles)"));
  EXPECT_THAT(r.out, HasSubstr("| `BM_Parse` | 1000 → 1000 | `ParseNumber` "
                               "41% → 58% (+17 pp) · `Tokenize` 39% → 27% "
                               "(-12 pp) · `memchr` 20% → 15% (-5.0 pp) |"));
  r = RunCompare("compare profile_base.json profile_new.json --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& p = j.at("profiles");
  EXPECT_EQ(p["base"], true);
  EXPECT_EQ(p["new"], true);
  EXPECT_EQ(p["only_base"], nlohmann::json::array({"BM_OnlyBaseProfiled"}));
  const nlohmann::json& fns = p["benchmarks"][0]["functions"];
  EXPECT_EQ(p["benchmarks"][0]["name"], "BM_Parse");
  EXPECT_EQ(fns[0]["name"], "ParseNumber(char const*)");
  EXPECT_NEAR(fns[0]["base_pct"].get<double>(), 41, 1e-9);
  EXPECT_NEAR(fns[0]["new_pct"].get<double>(), 58, 1e-9);
  EXPECT_NEAR(fns[0]["change_pp"].get<double>(), 17, 1e-9);
  // Binomial standard error: sqrt(.41*.59/1000 + .58*.42/1000) in pp.
  EXPECT_NEAR(fns[0]["noise_pp"].get<double>(),
              100 * std::sqrt(0.41 * 0.59 / 1000 + 0.58 * 0.42 / 1000), 1e-9);
  // BM_Copy: CopyLoop is not listed in base's incomplete list: no change.
  const nlohmann::json& copy = p["benchmarks"][1]["functions"];
  bool saw_copy_loop = false;
  for (const nlohmann::json& f : copy) {
    if (f["name"] == "CopyLoop(char*, char const*, unsigned long)") {
      saw_copy_loop = true;
      EXPECT_TRUE(f["base_pct"].is_null());
      EXPECT_TRUE(f["change_pp"].is_null());
      EXPECT_NEAR(f["new_pct"].get<double>(), 20, 1e-9);
    }
  }
  EXPECT_TRUE(saw_copy_loop);
}

TEST_F(ProfileTest, CompareSaysOnceWhenOneSideHasProfiles) {
  for (const char* format : {"table", "markdown", "json"}) {
    SCOPED_TRACE(format);
    const RunResult r = RunCompare(
        absl::StrCat("compare base.json profile_new.json --format ", format));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string note =
        "only new (profile_new.json) carries profiles (perfcounters_profile)";
    const size_t at = r.out.find(note);
    EXPECT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(note, at + 1), std::string::npos);  // once
  }
}

TEST_F(ProfileTest, CompareWithoutProfilesIsUnchanged) {
  for (const char* format : {"table", "markdown", "json"}) {
    SCOPED_TRACE(format);
    const RunResult r = RunCompare(
        absl::StrCat("compare base.json new.json --format ", format));
    EXPECT_THAT(r.out, Not(HasSubstr("profile")));
  }
}

TEST_F(ProfileTest, CompareMarkdownStaysWithinTheCommentLimit) {
  // 3000 profiled benchmarks, each with a changed share.
  auto file = [](bool next) {
    nlohmann::ordered_json root;
    root["benchmarks"] = nlohmann::ordered_json::array();
    for (int i = 0; i < 3000; ++i) {
      const int hot = next ? 60 + i % 30 : 50;
      root["benchmarks"].push_back(
          {{"name", absl::StrCat("BM_LongBenchmarkName/", i, "/threads:1")},
           {"run_type", "iteration"},
           {"real_time", 100.0 + (next ? i % 7 : 0)},
           {"cpu_time", 100.0},
           {"perfcounters_profile",
            {{"samples", 100},
             {"functions",
              {{{"name", "HotFunctionWithALongName(int)"}, {"samples", hot}},
               {{"name", "ColdFunction(int)"}, {"samples", 100 - hot}}}}}}});
    }
    return root.dump();
  };
  const std::string dir = testing::ScratchPath("profile_limit");
  ASSERT_EQ(testing::RunShell("mkdir -p " + dir).code, 0);
  std::ofstream(dir + "/a.json") << file(false);
  std::ofstream(dir + "/b.json") << file(true);
  const RunResult r =
      testing::RunTool("compare a.json b.json --format markdown", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LE(r.out.size(), kMarkdownLimit);
  const auto has = [&](const std::string& s) {
    return r.out.find(s) != std::string::npos;
  };
  EXPECT_TRUE(has("### Where the time went (profiles)"));
  // The largest changes (39 pp, i % 30 == 29) come first.
  const size_t first = r.out.find("| `BM_LongBenchmarkName/");
  const size_t rows = r.out.find("| `BM_LongBenchmarkName/",
                                 r.out.find("### Where the time went"));
  EXPECT_NE(first, std::string::npos);
  const std::string want =
      "| `BM_LongBenchmarkName/29/threads:1` | 100 → 100 | `ColdFunction` 50% "
      "→ 11% (-39 pp) · `HotFunctionWithALongName` 50% → 89% (+39 pp) |\n";
  EXPECT_EQ(r.out.substr(rows, want.size()), want);
  EXPECT_TRUE(
      has("(2892 of 3000 profiled benchmarks left out to stay within "
          "the comment's size; `--format json` has every function)"));
}

// The issue's tokenizer profiles: one function of 1000 samples, and a
// file of BM_Tokenize/4096 with `functions`.
nlohmann::ordered_json Fn(const std::string& name, int samples) {
  return nlohmann::ordered_json{
      {"name", name}, {"module", "/bench/tok"}, {"samples", samples}};
}

std::string TokenizeFile(const nlohmann::ordered_json& functions,
                         int truncated) {
  nlohmann::ordered_json row = {{"name", "BM_Tokenize/4096"},
                                {"run_type", "iteration"},
                                {"iterations", 10},
                                {"real_time", 1},
                                {"cpu_time", 1},
                                {"time_unit", "ns"}};
  row["perfcounters_profile"] = {{"event", "cpu-clock"},
                                 {"samples", 1000},
                                 {"callchains", true},
                                 {"functions", functions},
                                 {"functions_truncated", truncated}};
  return nlohmann::ordered_json{{"benchmarks", {row}}}.dump();
}

// The issue's new profile: strtod and its helpers appear.
nlohmann::ordered_json TokenizeNext() {
  return {Fn("strtod", 310),
          Fn("____strtod_l_internal", 280),
          Fn("Tokenize(char const*)", 190),
          Fn("str_to_mpn", 120),
          Fn("ScanNumber(char const*)", 46),
          Fn("round_and_return", 44),
          Fn("[unknown]", 10)};
}

// The issue's case: a base profile from a build without frame pointers
// whose 100-entry list is filled with [unknown] frames without self samples
// (476 more left out), but whose listed self samples add up to all samples:
// a function it does not list had no self samples, 0 %, and is ranked by
// its change like any other (strtod 0 -> 31 %, str_to_mpn 0 -> 12 %).
TEST_F(ProfileTest, AbsentFromACompleteListIsZeroAndRankedByItsChange) {
  nlohmann::ordered_json base = {Fn("Tokenize(char const*)", 911),
                                 Fn("ScanNumber(char const*)", 89)};
  for (int i = 0; i < 98; ++i) {
    nlohmann::ordered_json u = Fn("[unknown]", 0);
    u["offset"] = 0x1000 + i;
    base.push_back(u);
  }
  const std::string dir = testing::ScratchPath("profile_complete");
  ASSERT_EQ(testing::RunShell("mkdir -p " + dir).code, 0);
  std::ofstream(dir + "/base.json") << TokenizeFile(base, 476);
  std::ofstream(dir + "/new.json") << TokenizeFile(TokenizeNext(), 0);
  RunResult r = testing::RunTool("compare base.json new.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BM_Tokenize/4096  Tokenize 91% → 19% (-72 pp) "
                               "· strtod 0.0% → 31% (+31 pp) · "
                               "____strtod_l_internal 0.0% → 28% (+28 pp)"));
  r = testing::RunTool("compare base.json new.json --format json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& f : j["profiles"]["benchmarks"][0]["functions"]) {
    by_name[f["name"].get<std::string>()] = f;
  }
  for (const auto& [name, pct] :
       {std::pair<std::string, double>{"strtod", 31}, {"str_to_mpn", 12}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(by_name.count(name));
    EXPECT_EQ(by_name[name]["base_pct"], 0);
    EXPECT_NEAR(by_name[name]["change_pp"].get<double>(), pct, 1e-9);
  }
  // The report: a base share of 0 % and a change, never "not listed".
  r = testing::RunTool("report base.json new.json -o r.html", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = Slurp(dir + "/r.html");
  EXPECT_THAT(html, Not(HasSubstr("not listed")));
  const size_t row = html.find("data-function=\"str_to_mpn\"");
  ASSERT_NE(row, std::string::npos);
  EXPECT_THAT(html.substr(row, html.find("</tr>", row) - row),
              HasSubstr("data-change-pp=\"12.0000\""));
}

// A base list that truly is incomplete (it lists 900 of 1000 samples):
// strtod, 31 % in new, has an unknown base share of at most 10 %. It is
// shown, n/a -> 31 % with the range of its change, ranked by the largest
// change it may be (so not hidden behind ScanNumber's -4.3 pp), and a note
// says the base list is incomplete.
TEST_F(ProfileTest, AbsentFromAnIncompleteListIsNotApplicableAndShown) {
  const std::string dir = testing::ScratchPath("profile_incomplete");
  ASSERT_EQ(testing::RunShell("mkdir -p " + dir).code, 0);
  std::ofstream(dir + "/base.json") << TokenizeFile(
      {Fn("Tokenize(char const*)", 811), Fn("ScanNumber(char const*)", 89)},
      40);
  std::ofstream(dir + "/new.json") << TokenizeFile(TokenizeNext(), 0);
  const std::string changes =
      "Tokenize 81% → 19% (-62 pp) · strtod n/a → 31% (+21 to +31 pp) · "
      "____strtod_l_internal n/a → 28% (+18 to +28 pp)";
  const std::string note =
      "base's function list is incomplete for 1 benchmark(s), e.g. "
      "BM_Tokenize/4096 lists 90% of its samples: a function it does not "
      "list is n/a there, at most the 10% left out";
  RunResult r = testing::RunTool("compare base.json new.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BM_Tokenize/4096  " + changes));
  EXPECT_THAT(r.out, HasSubstr(note));
  r = testing::RunTool("compare base.json new.json --format markdown", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("`Tokenize` 81% → 19% (-62 pp) · `strtod` n/a "
                               "→ 31% (+21 to +31 pp) · "
                               "`____strtod_l_internal` n/a → 28% (+18 to "
                               "+28 pp) |"));
  EXPECT_THAT(r.out, HasSubstr(note));
  r = testing::RunTool("compare base.json new.json --format json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json b =
      nlohmann::json::parse(r.out)["profiles"]["benchmarks"][0];
  EXPECT_NEAR(b["base_listed_pct"].get<double>(), 90, 1e-9);
  EXPECT_NEAR(b["new_listed_pct"].get<double>(), 100, 1e-9);
  bool saw_mpn = false;
  for (const nlohmann::json& f : b["functions"]) {
    if (f["name"] != "str_to_mpn") continue;
    saw_mpn = true;
    EXPECT_TRUE(f["base_pct"].is_null());
    EXPECT_TRUE(f["change_pp"].is_null());
    EXPECT_NEAR(f["change_min_pp"].get<double>(), 2, 1e-9);
    EXPECT_NEAR(f["change_max_pp"].get<double>(), 12, 1e-9);
  }
  EXPECT_TRUE(saw_mpn);
}

// An unchanged profile has no largest changes to show: said, not filled
// with +0.0 pp.
TEST_F(ProfileTest, CompareOfAnUnchangedProfileSaysSo) {
  for (const char* format : {"table", "markdown"}) {
    SCOPED_TRACE(format);
    const RunResult r = RunCompare(absl::StrCat(
        "compare profile_new.json profile_new.json --format ", format));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("0.0 pp")));
    EXPECT_THAT(r.out,
                HasSubstr("no function's share changed by 0.05 pp or more"));
  }
}

TEST_F(ProfileTest, BadProfileIsAnErrorOfTheCommand) {
  const std::string dir = testing::ScratchPath("profile_bad");
  ASSERT_EQ(testing::RunShell("mkdir -p " + dir).code, 0);
  std::ofstream(dir + "/bad.json")
      << WithProfile(R"({"functions": [{"name": "f", "samples": "12"}]})");
  for (const char* cmd :
       {"compare bad.json bad.json", "report bad.json -o r.html"}) {
    SCOPED_TRACE(cmd);
    const RunResult r = testing::RunTool(cmd, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("bad.json: benchmarks[0] (\"BM_x\")"
                                 ".perfcounters_profile.functions[0].samples "
                                 "is a string; expected a number"));
  }
}

}  // namespace
}  // namespace perfcounters::tools
