// tools_ab_test.cc: `perfcounters ab` (ab.h) on tests/e2e's ab_bench
// played as two builds through wrapper scripts: the ABBA order, the
// pairing (a deterministic counter that is 3 % higher in NEW), the early
// stop, the files it writes, and each bad input. Its statistics:
// tools_paired_stats_test.cc.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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

// The command on tests/e2e's ab_bench.
class AbCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = PERFCOUNTERS_AB_BENCH;
    if (!testing::Exists(bench_)) {
      const std::string self = testing::SelfExe();
      bench_ = self.substr(0, self.rfind('/') + 1) + "perfcounters_ab_bench";
    }
    if (!testing::Exists(bench_)) GTEST_SKIP() << "needs perfcounters_ab_bench";
    slower_ = PERFCOUNTERS_AB_SLOWER_BENCH;
    if (!testing::Exists(slower_)) {
      slower_ = bench_ + "_slower";
    }
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_, true));
  }
  // An executable script `name` in dir_ that logs `name` to order.log
  // and runs `binary` (ab_bench when empty) with `env` assignments.
  std::string Wrapper(const std::string& name, const std::string& env,
                      const std::string& before = "",
                      const std::string& binary = "") {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n"
                        << "echo " << name << " >> " << dir_ << "/order.log\n"
                        << before << "\n"
                        << "exec env " << env << " "
                        << testing::Quote(binary.empty() ? bench_ : binary)
                        << " \"$@\"\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  RunResult Ab(std::vector<std::string> args) {
    args.insert(args.begin(), "ab");
    return testing::RunTool(QuoteAll(args), dir_);
  }
  static std::vector<std::string> Fast() {
    return {"--", "--benchmark_min_time=0.001"};
  }
  std::string bench_;
  // ab_bench's second build, whose body takes 3 % more steps.
  std::string slower_;
  std::string dir_;
};

TEST_F(AbCommand, PairsEachRoundInAbbaOrderAndStopsAtThePrecision) {
  // Two builds of one source; NEW's body has 3 % more steps.
  ASSERT_TRUE(testing::Exists(slower_)) << slower_;
  const std::string base = Wrapper("base", "");
  const std::string next = Wrapper("new", "", "", slower_);
  std::vector<std::string> args = {
      base,          next,     "--min-rounds", "6",     "--max-rounds", "9",
      "--precision", "1",      "--metric",     "steps", "--format",     "json",
      "--base-out",  "b.json", "--new-out",    "n.json"};
  for (const std::string& f : Fast()) args.push_back(f);
  const RunResult r = Ab(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // Stopped on the deterministic counter (an interval of width 0): every
  // benchmark stops at the first round that has an interval, the 6th,
  // whatever the load does to the times. Progress: one line per round.
  EXPECT_THAT(r.err, HasSubstr("ab: round 6 of at most 9: 2 of 2 done"));
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rounds"], 6);
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  for (const nlohmann::json& b : j["benchmarks"]) {
    EXPECT_EQ(b["rounds"], 6);
    EXPECT_EQ(b["stopped"], "precision");
    bool saw_steps = false;
    for (const nlohmann::json& m : b["metrics"]) {
      if (m["metric"] != "steps") continue;
      saw_steps = true;
      // NEW's body has 3 % more steps in every round: if a BA round's
      // sides were swapped, a ratio would be 1/1.03.
      EXPECT_EQ(m["pairs"], 6);
      EXPECT_NEAR(m["low"].get<double>(), 1.03, 1e-3);
      EXPECT_NEAR(m["high"].get<double>(), 1.03, 1e-3);
      EXPECT_EQ(m["verdict"], "higher");
    }
    EXPECT_TRUE(saw_steps);
  }
  // 2 lists, then base new, new base, base new, ...
  std::vector<std::string> order = absl::StrSplit(
      testing::Slurp(dir_ + "/order.log"), '\n', absl::SkipEmpty());
  const std::vector<std::string> expected = {
      "base", "new", "base", "new",  "new", "base", "base",
      "new",  "new", "base", "base", "new", "new",  "base"};
  EXPECT_EQ(order, expected);
  // The files: gbench JSON, one row per round, paired by round.
  const nlohmann::json b =
      nlohmann::json::parse(testing::Slurp(dir_ + "/b.json"));
  const nlohmann::json n =
      nlohmann::json::parse(testing::Slurp(dir_ + "/n.json"));
  EXPECT_EQ(b["context"]["perfcounters.ab.id"],
            n["context"]["perfcounters.ab.id"]);
  EXPECT_EQ(b["context"]["perfcounters.ab.side"], "base");
  EXPECT_EQ(n["context"]["perfcounters.ab.side"], "new");
  ASSERT_EQ(b["benchmarks"].size(), 12u);
  ASSERT_EQ(n["benchmarks"].size(), 12u);
  for (size_t i = 0; i < 12; ++i) {
    const nlohmann::json& rb = b["benchmarks"][i];
    const nlohmann::json& rn = n["benchmarks"][i];
    EXPECT_EQ(rb["run_name"], rn["run_name"]);
    EXPECT_EQ(rb["repetition_index"], rn["repetition_index"]);
    EXPECT_EQ(rb["repetitions"], 6);
    EXPECT_NEAR(rn["steps"].get<double>() / rb["steps"].get<double>(), 1.03,
                1e-3);
  }
  // Each side's fingerprint names its own build; compare reads them, and
  // another binary is no environment difference.
  const nlohmann::json& bid = b["context"]["perfcounters.env.binary.build_id"];
  const nlohmann::json& nid = n["context"]["perfcounters.env.binary.build_id"];
  if (bid.is_string() && nid.is_string()) {
    EXPECT_NE(bid, nid);
  }
  const RunResult c =
      testing::RunTool(QuoteAll({"compare", "b.json", "n.json"}), dir_);
  EXPECT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_THAT(c.out, HasSubstr("BM_Chain/20000"));
  EXPECT_THAT(c.out, Not(HasSubstr("environment differs")));
}

TEST_F(AbCommand, TableSaysWhenTheMostRoundsCameFirst) {
  const std::string base = Wrapper("base", "");
  std::vector<std::string> args = {
      base, base, "--min-rounds", "2", "--max-rounds", "2", "-q"};
  for (const std::string& f : Fast()) args.push_back(f);
  RunResult r = Ab(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // -q: no progress, only the note that 2 rounds cannot give an interval
  // (the sign test needs 6 at 95 %, 8 at 99 %).
  EXPECT_EQ(r.err,
            "perfcounters ab: note: --max-rounds 2 is below 6, the fewest "
            "rounds that give a sign-test interval at 95 % confidence: no "
            "interval will exclude 1.0; use --max-rounds 6 or more\n");
  EXPECT_THAT(r.out, HasSubstr("too few pairs"));
  // No interval, so none "wider than" the precision.
  EXPECT_THAT(r.out, HasSubstr("note: BM_Chain/2000 reached the most rounds "
                               "(2) without a cpu_time interval (too few "
                               "pairs)"));
  EXPECT_THAT(r.out, Not(HasSubstr("interval wider than")));
  // The progress line: no "widest interval -" where there is none.
  args = {base,
          base,
          "--min-rounds",
          "2",
          "--max-rounds",
          "2",
          "--",
          "--benchmark_filter=BM_Chain/2000$",
          "--benchmark_min_time=0.001"};
  r = Ab(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("2 of at most 2: 0 of 1 done; cpu_time: "
                               "BM_Chain/2000 "));
  EXPECT_THAT(r.err, HasSubstr(", too few rounds for an interval"));
  EXPECT_THAT(r.err, Not(HasSubstr("interval -")));
  // A filter that matches nothing is named as such.
  args = {base, base, "--", "--benchmark_filter=NOMATCH"};
  r = Ab(args);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("has no benchmark that "
                               "--benchmark_filter='NOMATCH' matches"));
  EXPECT_THAT(r.err, Not(HasSubstr("is it a Google Benchmark binary")));
  // At 99 % the fewest are 8; at 6 rounds, 95 % has no note.
  r = Ab({base, base, "--min-rounds", "1", "--max-rounds", "1", "-q",
          "--confidence", "99", "--", "--benchmark_filter=BM_Chain/2000$",
          "--benchmark_min_time=0.001"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("--max-rounds 1 is below 8, the fewest rounds "
                               "that give a sign-test interval at 99 %"));
  r = Ab({base, base, "--min-rounds", "6", "--max-rounds", "6", "-q", "--",
          "--benchmark_filter=BM_Chain/2000$", "--benchmark_min_time=0.001"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
}

// ab's files as compare reads them: 10 rounds whose times drift tenfold
// from round to round while NEW is 3 % slower in every one. Unpaired, the
// drift hides the change (U test p ~ 0.5); paired by round, every ratio
// is 1.03: p = 2/1024, the change +3 %, and a 2 % gate fails.
std::string PairedJson(const std::string& id, const std::string& side,
                       double factor) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "now"}};
  if (!id.empty()) {
    root["context"]["perfcounters.ab.id"] = id;
    root["context"]["perfcounters.ab.side"] = side;
  }
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (int r = 0; r < 10; ++r) {
    const double t = 1000.0 * (1 + (r * 7) % 10) * factor;
    root["benchmarks"].push_back({{"name", "BM_x"},
                                  {"run_name", "BM_x"},
                                  {"run_type", "iteration"},
                                  {"repetitions", 10},
                                  {"repetition_index", r},
                                  {"iterations", 10},
                                  {"time_unit", "ns"},
                                  {"real_time", t},
                                  {"cpu_time", t}});
  }
  return root.dump(2);
}

TEST_F(AbCommand, CompareGatesAbFilesOnThePairedInterval) {
  std::ofstream(dir_ + "/b.json") << PairedJson("1-2", "base", 1.0);
  std::ofstream(dir_ + "/n.json") << PairedJson("1-2", "new", 1.03);
  RunResult r =
      testing::RunTool(QuoteAll({"compare", "b.json", "n.json", "--fail-on",
                                 "cpu_time>+2%", "--format", "json"}),
                       dir_);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& m = j["benchmarks"][0]["metrics"][1];
  EXPECT_EQ(m["metric"], "cpu_time");
  EXPECT_EQ(m["evidence"], "paired_sign_test");
  EXPECT_NEAR(m["change_pct"].get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(m["p_value"].get<double>(), 2.0 / 1024, 1e-12);
  EXPECT_NEAR(m["paired_ratio_interval"][0].get<double>(), 1.03, 1e-12);
  EXPECT_NEAR(m["paired_ratio_interval"][1].get<double>(), 1.03, 1e-12);
  // The table and markdown say the change is paired, not a U test's.
  for (const char* format : {"table", "markdown"}) {
    r = testing::RunTool(
        QuoteAll({"compare", "b.json", "n.json", "--format", format}), dir_);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("are paired by round (perfcounters ab)"))
        << format;
  }
  // The same rows without ab's id (or from two different ab runs): the U
  // test, which the drift between rounds drowns.
  for (const auto& [bid, nid] :
       {std::pair<std::string, std::string>{"", ""}, {"1-2", "3-4"}}) {
    std::ofstream(dir_ + "/b.json") << PairedJson(bid, "base", 1.0);
    std::ofstream(dir_ + "/n.json") << PairedJson(nid, "new", 1.03);
    r = testing::RunTool(QuoteAll({"compare", "b.json", "n.json", "--fail-on",
                                   "cpu_time>+2%", "--format", "json"}),
                         dir_);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(
        nlohmann::json::parse(r.out)["benchmarks"][0]["metrics"][1]["evidence"],
        "u_test");
    r = testing::RunTool(QuoteAll({"compare", "b.json", "n.json"}), dir_);
    EXPECT_THAT(r.out, Not(HasSubstr("paired by round")));
  }
}

// A counter counted as 0 in every round on both sides is a counted value:
// its pairs are the rounds, verdict "0 on both sides: unchanged"; 0 on one
// side only has no ratio. ab_bench's JSON gets a "zeros" counter of
// `value` from a wrapper.
TEST_F(AbCommand, ZeroOnBothSidesIsCountedAndUnchanged) {
  const auto zeros =
      [&](const std::string& name, const std::string& value) {
        std::string path = dir_ + "/" + name;
        std::ofstream(path)
            << "#!/bin/sh\n"
            << testing::Quote(bench_) << " \"$@\" || exit $?\n"
            << "for a in \"$@\"; do case \"$a\" in --benchmark_out=*)\n"
            << "  sed -i 's/\"steps\": /\"zeros\": " << value
            << ", \"steps\": /' \"${a#--benchmark_out=}\" || exit 1;;\n"
            << "esac; done\n";
        chmod(path.c_str(), 0755);
        return path;
      };
  const std::vector<std::string> flags = {"--min-rounds",
                                          "6",
                                          "--max-rounds",
                                          "6",
                                          "-q",
                                          "--format",
                                          "json",
                                          "--",
                                          "--benchmark_filter=BM_Chain/2000$",
                                          "--benchmark_min_time=0.001"};
  std::vector<std::string> args = {zeros("b0", "0"), zeros("n0", "0")};
  args.insert(args.end(), flags.begin(), flags.end());
  RunResult r = Ab(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const auto find = [](const nlohmann::json& metrics) {
    for (const nlohmann::json& m : metrics) {
      if (m["metric"] == "zeros") return m;
    }
    return nlohmann::json();
  };
  nlohmann::json m = find(j["benchmarks"][0]["metrics"]);
  ASSERT_FALSE(m.is_null()) << r.out;
  EXPECT_EQ(m["pairs"], 6);
  EXPECT_EQ(m["zero_both"], 6);
  EXPECT_EQ(m["base"], nlohmann::json(std::vector<double>(6, 0.0)));
  EXPECT_EQ(m["new"], nlohmann::json(std::vector<double>(6, 0.0)));
  EXPECT_EQ(m["verdict"], "0 on both sides: unchanged");
  EXPECT_FALSE(m.contains("ratio"));
  // 0 against 1: no ratio, and never "unchanged".
  args = {zeros("b0", "0"), zeros("n1", "1")};
  args.insert(args.end(), flags.begin(), flags.end());
  r = Ab(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  m = find(nlohmann::json::parse(r.out)["benchmarks"][0]["metrics"]);
  ASSERT_FALSE(m.is_null()) << r.out;
  EXPECT_EQ(m["pairs"], 6);
  EXPECT_EQ(m["no_ratio"], 6);
  EXPECT_EQ(m["verdict"], "no ratio: 0 or below on one side");
}

// report on ab's files: the legend names the paired test the values
// came from, and says the runs were paired; on plain runs, the U test.
TEST_F(AbCommand, ReportLegendNamesThePairedTest) {
  std::ofstream(dir_ + "/b.json") << PairedJson("1-2", "base", 1.0);
  std::ofstream(dir_ + "/n.json") << PairedJson("1-2", "new", 1.03);
  RunResult r = testing::RunTool(
      QuoteAll({"report", "b.json", "n.json", "-o", "r.html"}), dir_);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  std::string html = testing::Slurp(dir_ + "/r.html");
  EXPECT_THAT(html, HasSubstr("these runs are the two sides of one "
                              "perfcounters ab run, paired by round: for 2 "
                              "comparison(s)"));
  EXPECT_THAT(html, HasSubstr("p the paired sign test's on them"));
  EXPECT_THAT(html, Not(HasSubstr("; p is the two-sided Mann–Whitney U")));
  // The paired p (2/1024) is the one shown.
  EXPECT_THAT(html, HasSubstr("<td>0.002</td>"));
  std::ofstream(dir_ + "/b.json") << PairedJson("", "base", 1.0);
  std::ofstream(dir_ + "/n.json") << PairedJson("", "new", 1.03);
  r = testing::RunTool(QuoteAll({"report", "b.json", "n.json", "-o", "r.html"}),
                       dir_);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  html = testing::Slurp(dir_ + "/r.html");
  EXPECT_THAT(html, HasSubstr("; p is the two-sided Mann–Whitney U"));
  EXPECT_THAT(html, Not(HasSubstr("paired")));
}

// The geometric mean of ab's paired files is the rows' paired change:
// rounds 0-5 are 2 % faster, rounds 6-9 (the slowest base rounds) 30 %
// slower, so the paired median ratio is 0.98 while the ratio of the two
// sides' medians is 7.49 / 5.5 (+36 %).
TEST_F(AbCommand, CompareGeomeanOfAbFilesIsThePairedChange) {
  const auto write = [&](const std::string& path, const std::string& side,
                         bool slower) {
    nlohmann::ordered_json root;
    root["context"] = {{"date", "now"},
                       {"perfcounters.ab.id", "5-6"},
                       {"perfcounters.ab.side", side}};
    root["benchmarks"] = nlohmann::ordered_json::array();
    for (int r = 0; r < 10; ++r) {
      const double f = !slower ? 1.0 : r < 6 ? 0.98 : 1.3;
      const double t = 1000.0 * (1 + r) * f;
      root["benchmarks"].push_back({{"name", "BM_x"},
                                    {"run_name", "BM_x"},
                                    {"run_type", "iteration"},
                                    {"repetitions", 10},
                                    {"repetition_index", r},
                                    {"iterations", 10},
                                    {"time_unit", "ns"},
                                    {"real_time", t},
                                    {"cpu_time", t}});
    }
    std::ofstream(dir_ + "/" + path) << root.dump(2);
  };
  write("b.json", "base", false);
  write("n.json", "new", true);
  RunResult r = testing::RunTool(
      QuoteAll({"compare", "b.json", "n.json", "--format", "json"}), dir_);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& m = j["benchmarks"][0]["metrics"][1];
  ASSERT_EQ(m["metric"], "cpu_time");
  ASSERT_EQ(m["evidence"], "paired_sign_test");
  EXPECT_NEAR(m["change_pct"].get<double>(), -2.0, 1e-9);
  ASSERT_EQ(j["geomean"][1]["metric"], "cpu_time");
  EXPECT_NEAR(j["geomean"][1]["change_pct"].get<double>(), -2.0, 1e-9);
  // The table says so; an @geomean gate reads the same mean.
  r = testing::RunTool(QuoteAll({"compare", "b.json", "n.json"}), dir_);
  EXPECT_THAT(r.out, HasSubstr("the geometric mean uses these changes"));
  EXPECT_THAT(r.out, Not(HasSubstr("+36.")));
  r = testing::RunTool(QuoteAll({"compare", "b.json", "n.json", "--fail-on",
                                 "@geomean:cpu_time>+10%"}),
                       dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// Each bad input: exit 2, a message naming the binary and what is wrong,
// and the output files as they were (here: absent, and one kept).
class AbBadInput : public AbCommand {
 protected:
  // NEW, whose 4th start (round 3) starts a helper (its pid in helper.pid)
  // and hangs (its pid in hung.pid).
  std::string Hanging() {
    return Wrapper(
        "new", "",
        "n=$(grep -c new " + dir_ +
            "/order.log); [ $n -ge 4 ] && { sleep 1000 & echo $! > " + dir_ +
            "/helper.pid; echo $$ > " + dir_ + "/hung.pid; exec sleep 1000; }");
  }
  // Whether `pid` ends (or is a zombie) within 10 s.
  static bool Ends(pid_t pid) {
    for (int i = 0; i < 200; ++i) {
      const std::string stat =
          testing::Slurp("/proc/" + std::to_string(pid) + "/stat");
      const size_t paren = stat.rfind(')');
      if (stat.empty() || (paren != std::string::npos &&
                           stat.compare(paren + 2, 1, "Z") == 0)) {
        return true;
      }
      usleep(50'000);
    }
    return false;
  }
  void ExpectError(const std::string& base, const std::string& next,
                   const std::string& message) {
    std::ofstream(dir_ + "/kept.json") << "old";
    std::vector<std::string> args = {
        base, next, "--base-out", "kept.json", "--new-out", "n.json", "-q"};
    for (const std::string& f : Fast()) args.push_back(f);
    const RunResult r = Ab(args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(testing::Slurp(dir_ + "/kept.json"), "old");
    EXPECT_FALSE(testing::Exists(dir_ + "/n.json"));
  }
};

TEST_F(AbBadInput, MissingBinary) {
  ExpectError(dir_ + "/nothing", bench_,
              "BASE '" + dir_ + "/nothing': No such file or directory");
}

TEST_F(AbBadInput, NotExecutable) {
  std::ofstream(dir_ + "/plain") << "x";
  ExpectError(bench_, dir_ + "/plain", "is not an executable file");
}

TEST_F(AbBadInput, NotGoogleBenchmark) {
  // echo prints its arguments back: not a list of benchmarks, on either
  // side (it was once taken for "different benchmarks").
  ExpectError("/bin/echo", bench_,
              "BASE '/bin/echo' is not a Google Benchmark binary: asked for "
              "its benchmarks (--benchmark_list_tests=true), it printed its "
              "arguments back");
  ExpectError(bench_, "/bin/echo",
              "NEW '/bin/echo' is not a Google Benchmark binary");
  // Lists ab_bench's benchmarks, but writes no gbench JSON.
  const std::string path = dir_ + "/lister";
  std::ofstream(path) << "#!/bin/sh\ncase \"$*\" in *list_tests*) "
                         "printf 'BM_Chain/2000\\nBM_Chain/20000\\n';; esac\n";
  chmod(path.c_str(), 0755);
  ExpectError(path, path,
              "BASE '" + path + "' wrote no Google Benchmark JSON in round 1");
  ExpectError("/bin/false", bench_, "exited 1 when asked for its benchmarks");
}

TEST_F(AbBadInput, CrashInOneRound) {
  // The 4th start of NEW (after the list and 2 rounds) crashes.
  const std::string next = Wrapper(
      "new", "",
      "n=$(grep -c new " + dir_ + "/order.log); [ $n -ge 4 ] && kill -SEGV $$");
  ExpectError(bench_, next, "NEW '" + next + "' was killed by signal 11");
  EXPECT_THAT(testing::Slurp(dir_ + "/order.log"), HasSubstr("new"));
}

TEST_F(AbBadInput, HangInOneRound) {
  // The 4th start of NEW (round 3) hangs: ab kills it after --timeout and
  // fails naming the side and round; the hung process is gone. 5 s: far
  // above a round's run here (~0.1 s), even at a load of 20 on 2 CPUs.
  // It has started a helper of its own, which dies with it (its group).
  const std::string pid_file = dir_ + "/hung.pid";
  const std::string next = Hanging();
  std::ofstream(dir_ + "/kept.json") << "old";
  const RunResult r =
      Ab({bench_, next, "--timeout", "5", "--base-out", "kept.json",
          "--new-out", "n.json", "-q", "--", "--benchmark_min_time=0.001"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("NEW '" + next +
                               "' did not finish within 5 s (--timeout) and "
                               "was killed in round 3"));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(testing::Slurp(dir_ + "/kept.json"), "old");
  EXPECT_FALSE(testing::Exists(dir_ + "/n.json"));
  const pid_t hung = std::atoi(testing::Slurp(pid_file).c_str());
  ASSERT_GT(hung, 0);
  EXPECT_NE(kill(hung, 0), 0) << "the hung benchmark " << hung << " lives";
  const pid_t helper = std::atoi(testing::Slurp(dir_ + "/helper.pid").c_str());
  ASSERT_GT(helper, 0);
  EXPECT_TRUE(Ends(helper)) << "the benchmark's helper " << helper << " lives";
  // --timeout 0 is no limit; a negative one is refused.
  EXPECT_EQ(Ab({bench_, bench_, "--timeout", "-1"}).code, 2);
}

// A terminal's Ctrl-C goes to ab's process group, which the benchmark is
// not in: ab passes it on, and ends as SIGINT ends a program. ab runs as a
// terminal's job would: leading a group of its own, SIGINT at its default
// (a shell's background job would ignore it), TMPDIR where its rounds'
// directory goes, to be removed by ab.
TEST_F(AbBadInput, CtrlCReachesTheBenchmark) {
  const std::string next = Hanging();
  const std::string pid_file = dir_ + "/hung.pid";
  const std::string tmp = dir_ + "/tmp";
  ASSERT_TRUE(testing::MakeDirectories(tmp));
  const std::string tool = testing::ToolPath();
  const std::string err_file = dir_ + "/ab.err";
  std::vector<std::string> args = {tool, "ab", bench_,
                                   next, "-q", "--timeout",
                                   "60", "--", "--benchmark_min_time=0.001"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).substr(0, 7) != "TMPDIR=")
      env_strings.push_back(*e);
  }
  env_strings.push_back("TMPDIR=" + tmp);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t ab = fork();
  ASSERT_GE(ab, 0);
  if (ab == 0) {
    signal(SIGINT, SIG_DFL);
    setsid();
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (err < 0 || dup2(err, 2) < 0 || chdir(dir_.c_str()) != 0) _exit(127);
    execve(tool.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  for (int i = 0; i < 1200 && testing::Slurp(pid_file).empty(); ++i) {
    usleep(50'000);
  }
  kill(-ab, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(ab, &status, 0), ab);
  EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
              (WIFEXITED(status) && WEXITSTATUS(status) == 130))
      << "ab ended with status " << status;
  const pid_t hung = std::atoi(testing::Slurp(pid_file).c_str());
  ASSERT_GT(hung, 0);
  EXPECT_TRUE(Ends(hung)) << "the benchmark " << hung << " lives";
  // ab removed its rounds' directory before it ended, and wrote nothing.
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp)) {
    left.push_back(e.path().string());
  }
  EXPECT_THAT(left, ::testing::IsEmpty());
  EXPECT_EQ(testing::Slurp(err_file), "");
  // The helper, started in the background by sh, ignores SIGINT.
  const pid_t helper = std::atoi(testing::Slurp(dir_ + "/helper.pid").c_str());
  if (helper > 0) kill(helper, SIGKILL);
}

TEST_F(AbBadInput, DifferentBenchmarks) {
  ExpectError(bench_, Wrapper("new", "PERFCOUNTERS_AB_EXTRA=1"),
              "BASE and NEW run different benchmarks (only in BASE: none; "
              "only in NEW: BM_Extra)");
}

TEST_F(AbBadInput, OwnFlags) {
  const RunResult r = Ab({bench_, bench_, "--", "--benchmark_repetitions=3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--benchmark_repetitions=3 is ab's to set"));
}

}  // namespace
}  // namespace perfcounters::tools
