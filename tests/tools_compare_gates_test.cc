// tools_compare_gates_test.cc: `perfcounters compare` gates that cannot lie:
// no silent pass (a gate that checks nothing, a filter that matches
// nothing), one verdict in every format, any benchmark name gateable, and
// noise-aware gates (U test with repetitions, exact counters, one sample).
// The built command runs on files written here with known values.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "compare.h"
#include "compare_gates.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Quote;
using testing::QuoteAll;
using testing::RunResult;

// One benchmark: its name and, per repetition, its fields (real_time and
// cpu_time in ns, counters).
struct Bench {
  std::string name;
  std::vector<std::map<std::string, double>> reps;
};

std::string Json(const std::vector<Bench>& benches) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "now"}};
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (const Bench& b : benches) {
    for (size_t i = 0; i < b.reps.size(); ++i) {
      nlohmann::ordered_json e = {
          {"name", b.name},          {"run_name", b.name},
          {"run_type", "iteration"}, {"repetition_index", i},
          {"iterations", 100},       {"time_unit", "ns"}};
      for (const auto& [k, v] : b.reps[i]) {
        if (k.ends_with(".not_counted")) {
          e[k] = 1;
        } else {
          e[k] = v;
        }
      }
      root["benchmarks"].push_back(e);
    }
  }
  return root.dump();
}

// `n` repetitions of times `t` (+ offsets) and the given counters.
Bench Reps(const std::string& name, const std::vector<double>& times,
           const std::map<std::string, double>& counters = {}) {
  Bench b{name, {}};
  for (double t : times) {
    std::map<std::string, double> rep = counters;
    rep["real_time"] = t;
    rep["cpu_time"] = t;
    b.reps.push_back(rep);
  }
  return b;
}

class CompareGates : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_));
  }
  void Write(const std::string& name, const std::vector<Bench>& benches) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << Json(benches);
  }
  RunResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"compare", "base.json", "new.json"});
    return testing::RunTool(QuoteAll(args), dir_);
  }
  std::string dir_;
};

// ---- One verdict: exit status, JSON, markdown and table agree.

struct VerdictCase {
  const char* what;
  std::vector<std::string> args;
  int code;
};

TEST_F(CompareGates, EveryFormatStatesTheExitStatus) {
  // BM_a: instructions +1% (exact), cycles not counted in new; BM_b only in
  // base.
  Write("base.json", {Reps("BM_a", {100, 101, 102}, {{"instructions", 1000}}),
                      Reps("BM_b", {50, 51, 52}, {{"instructions", 500}})});
  Write("new.json",
        {Reps("BM_a", {100, 101, 102},
              {{"instructions", 1010}, {"cycles.not_counted", 1}})});
  const std::vector<VerdictCase> cases = {
      {"pass", {"--fail-on", "instructions>+2%"}, 0},
      {"violated", {"--fail-on", "instructions>+0.5%"}, 1},
      {"missing benchmark with --fail-on-missing",
       {"--fail-on", "instructions>+2%", "--fail-on-missing"},
       1},
      {"checked nothing", {"--fail-on", "cycles>+1%"}, 2},
      {"checked nothing, allowed",
       {"--fail-on", "cycles>+1%", "--allow-unchecked-gates"},
       0},
      {"filter matches nothing", {"--fail-on", "BM_Typo:instructions>+1%"}, 2},
      {"violated and checked nothing",
       {"--fail-on", "instructions>+0.5%", "--fail-on", "cycles>+1%"},
       2},
  };
  for (const VerdictCase& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--format", "json"});
    const RunResult json = Run(args);
    EXPECT_EQ(json.code, c.code) << json.err;
    const auto j = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << json.out;
    EXPECT_EQ(j["exit_code"], c.code);
    EXPECT_EQ(j["passed"], c.code == 0);
    bool any_failed = false;
    for (const auto& g : j["gates"]) any_failed |= !g["passed"].get<bool>();
    EXPECT_EQ(any_failed, c.code != 0);

    args = c.args;
    args.insert(args.end(), {"--format", "markdown"});
    const RunResult md = Run(args);
    EXPECT_EQ(md.code, c.code);
    EXPECT_THAT(md.out, HasSubstr(absl::StrCat("(exit ", c.code, ")")));
    if (c.code != 0) {
      EXPECT_THAT(md.out, Not(HasSubstr("passed (exit 0)")));
    }

    args = c.args;
    args.insert(args.end(), {"--color", "never"});
    const RunResult table = Run(args);
    EXPECT_EQ(table.code, c.code);
    EXPECT_THAT(table.out, HasSubstr(absl::StrCat("(exit ", c.code, ")")));
  }
}

// ---- No silent pass.

TEST_F(CompareGates, NotCountedEverywhereIsAnErrorNotAPass) {
  // As on a machine without a PMU: cycles not counted in every benchmark.
  for (const char* file : {"base.json", "new.json"}) {
    Write(file, {Reps("BM_a", {100, 101, 102},
                      {{"instructions", 1000}, {"cycles.not_counted", 1}}),
                 Reps("BM_b", {10, 11, 12},
                      {{"instructions", 100}, {"cycles.not_counted", 1}})});
  }
  const RunResult r = Run({"--fail-on", "IPC<-2%", "--format", "markdown"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("checked nothing"));
  EXPECT_THAT(r.err, HasSubstr("metrics with values on both sides: "
                               "real_time, cpu_time, instructions"));
  EXPECT_THAT(r.out, Not(HasSubstr("All gates passed")));
  EXPECT_THAT(r.out, HasSubstr("ERROR (exit 2)"));
}

// A gate on a metric counted in neither file says so, not "not counted in
// new" (review-39 D8); a typo's error lists only what these files have.
TEST_F(CompareGates, NotCountedInEitherFileIsSaidSo) {
  for (const char* file : {"base.json", "new.json"}) {
    Write(file, {Reps("BM_a", {100, 101, 102}, {{"cycles.not_counted", 1}})});
  }
  const RunResult r = Run({"--fail-on", "cycles>10%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("BM_a: cycles not counted in either file"));
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("not counted in new")));
  const RunResult typo = Run({"--fail-on", "cycels>10%"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_THAT(typo.err, HasSubstr("(did you mean 'cycles'?)"));
  EXPECT_THAT(typo.err, Not(HasSubstr("branch-miss-rate")));
  EXPECT_LT(typo.err.size(), 400u) << typo.err;
}

// A metric the new run lacks is a failed gate (exit 1) when the user said
// it must be there (--fail-on-missing), and bad input (exit 2) otherwise.
TEST_F(CompareGates, MetricMissingFromTheNewRunFailsTheGateWithFailOnMissing) {
  Write("base.json", {Reps("BM_a", {100, 101, 102}, {{"cycles", 1000}})});
  Write("new.json", {Reps("BM_a", {100, 101, 102})});
  const RunResult missing =
      Run({"--fail-on", "cycles>+1%", "--fail-on-missing"});
  EXPECT_EQ(missing.code, 1) << missing.out << missing.err;
  EXPECT_THAT(missing.out, HasSubstr("FAILED (missing)"));
  EXPECT_THAT(missing.out, HasSubstr("cycles absent from new"));
  const RunResult json =
      Run({"--fail-on", "cycles>+1%", "--fail-on-missing", "--format", "json"});
  EXPECT_EQ(json.code, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out)["exit_code"], 1);
  const RunResult plain = Run({"--fail-on", "cycles>+1%"});
  EXPECT_EQ(plain.code, 2) << plain.out << plain.err;
  EXPECT_THAT(plain.err, HasSubstr("checked nothing"));
}

TEST_F(CompareGates, UserSpaceIpcHasItsOwnName) {
  // Only instructions:u / cycles:u: IPC:u = 2.0 -> 1.94 (-3%).
  Write("base.json", {Reps("BM_a", {100, 101, 102},
                           {{"instructions:u", 2000}, {"cycles:u", 1000}})});
  Write("new.json", {Reps("BM_a", {100, 101, 102},
                          {{"instructions:u", 2000}, {"cycles:u", 1031}})});
  const RunResult plain = Run({"--fail-on", "IPC<-2%"});
  EXPECT_EQ(plain.code, 2);
  EXPECT_THAT(plain.err,
              HasSubstr("unknown metric 'IPC' (these files have IPC:u: "
                        "counters with modifiers keep them, e.g. IPC:u = "
                        "instructions:u / cycles:u)"));
  const RunResult u = Run({"--fail-on", "IPC:u<-2%"});
  EXPECT_EQ(u.code, 1) << u.out << u.err;
  EXPECT_THAT(u.out, HasSubstr("-3.01%"));
  EXPECT_EQ(Run({"--fail-on", "BM_a:IPC:u<-2%"}).code, 1);
  EXPECT_EQ(Run({"--fail-on", "IPC:u<-4%"}).code, 0);
}

TEST_F(CompareGates, FilterThatMatchesNothingIsAnError) {
  Write("base.json", {Reps("BM_a", {100, 101, 102}, {{"instructions", 1}})});
  Write("new.json", {Reps("BM_a", {100, 101, 102}, {{"instructions", 1}})});
  const RunResult r = Run({"--fail-on", "BM_Typo:instructions>+1%"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("gate BM_Typo:instructions>+1%: its filter "
                               "'BM_Typo' matches no benchmark in either "
                               "file"));
  const RunResult global = Run({"--filter", "BM_Typo"});
  EXPECT_EQ(global.code, 2);
  EXPECT_THAT(global.err, HasSubstr("--filter 'BM_Typo' matches no benchmark"));
}

// Files without benchmarks (an empty "benchmarks" array) are no
// comparison: exit 2 naming them, with or without a gate, and a gate
// without a filter never speaks of one. Before: an empty table, exit 0;
// with the gate "its filter '' matches no benchmark".
TEST_F(CompareGates, FilesWithoutBenchmarksAreAnError) {
  Write("base.json", {});
  Write("new.json", {});
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{},
        std::vector<std::string>{"--fail-on", "cpu_time>5%"}}) {
    const RunResult r = Run(args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_THAT(
        r.err, HasSubstr("no benchmarks in either file (base.json, new.json)"));
    EXPECT_THAT(r.out + r.err, Not(HasSubstr("filter")));
  }
  Write("new.json", {Reps("BM_a", {100, 101, 102})});
  const RunResult one = Run({});
  EXPECT_EQ(one.code, 2) << one.out;
  EXPECT_THAT(one.err, HasSubstr("no benchmarks in base.json"));
}

// ---- Any benchmark name can be gated.

TEST_F(CompareGates, TemplateAndRegexCharactersInNames) {
  const std::string sort = "BM_Sort<std::vector<int>>/1024";
  const std::string odd = "BM_f(x)+[1]*?";
  Write("base.json",
        {Reps(sort, {10, 10, 10}, {{"instructions", 1000}, {"cycles", 500}}),
         Reps(odd, {10, 10, 10}, {{"instructions", 1000}, {"cycles", 500}})});
  Write("new.json",
        {Reps(sort, {10, 10, 10}, {{"instructions", 1000}, {"cycles", 520}}),
         Reps(odd, {10, 10, 10}, {{"instructions", 1000}, {"cycles", 500}})});
  // The comparison is the last < or >; the filter keeps its < and >.
  EXPECT_EQ(Run({"--fail-on", sort + ":IPC<-2%"}).code, 1);
  EXPECT_EQ(Run({"--fail-on", "=" + sort + ":IPC<-2%"}).code, 1);
  EXPECT_EQ(Run({"--fail-on", "=" + sort + ":IPC<=-2%"}).code, 1);
  EXPECT_EQ(Run({"--fail-on", "=" + odd + ":IPC<-2%"}).code, 0);
  const RunResult r =
      Run({"--fail-on", "=" + odd + ":IPC<-2%", "--format", "json"});
  EXPECT_THAT(r.out, HasSubstr("\"checked\": 1"));
  // As a regular expression, the odd name needs quoting; =NAME does not.
  absl::StatusOr<Gate> gate =
      ParseGate("=BM_f(x)+[1]*?:IPC<-2%", {"real_time", "IPC"});
  ASSERT_TRUE(gate.ok()) << gate.status();
  EXPECT_TRUE(gate->Applies(odd));
  EXPECT_FALSE(gate->Applies("BM_f(x)+[1]*?/2"));
}

// ---- Noise-aware gates.

TEST_F(CompareGates, ChangeBeyondThresholdMustAlsoBeSignificant) {
  // 5 vs 5, median +6%, but the samples overlap: p = 0.151.
  Write("base.json", {Reps("BM_a", {100, 102, 104, 106, 108})});
  Write("new.json", {Reps("BM_a", {98, 105, 110.24, 111, 120})});
  RunResult r = Run({"--fail-on", "cpu_time>+5%", "--color", "never"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("+6.00%"));
  EXPECT_THAT(r.out, HasSubstr("1 beyond the threshold but not significant"));
  // Fully separated: the exact p is 2/252 = 0.0079 < 0.05: it trips, and
  // the row shows p.
  Write("new.json", {Reps("BM_a", {109, 110, 110.24, 111, 112})});
  r = Run({"--fail-on", "cpu_time>+5%", "--color", "never"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("+6.00%  0.008  5 vs 5  FAIL cpu_time>+5%"));
  // A stricter --alpha holds it back.
  EXPECT_EQ(Run({"--fail-on", "cpu_time>+5%", "--alpha", "0.005"}).code, 0);
}

TEST_F(CompareGates, ThreeRepetitionsCannotReachSignificance) {
  Write("base.json", {Reps("BM_a", {100, 101, 102})});
  Write("new.json", {Reps("BM_a", {120, 121, 122})});
  const RunResult r = Run({"--fail-on", "cpu_time>+5%", "--color", "never"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("these repetitions allow p >= 0.100"));
  EXPECT_NEAR(MinimumP(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MinimumP(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(MinimumP(5, 5), 2.0 / 252, 1e-12);
}

TEST_F(CompareGates, ExactCountersStayGateableAtATenthOfAPercent) {
  // Instructions per iteration of a deterministic loop: repetitions agree
  // within 1e-6; +0.2% trips a 0.1% gate with 3 and even 2 repetitions.
  Write(
      "base.json",
      {Bench{
          "BM_a",
          {{{"real_time", 100}, {"cpu_time", 100}, {"instructions", 6000.001}},
           {{"real_time", 101}, {"cpu_time", 101}, {"instructions", 6000.002}},
           {{"real_time", 99}, {"cpu_time", 99}, {"instructions", 6000.0}}}}});
  Write(
      "new.json",
      {Bench{
          "BM_a",
          {{{"real_time", 100}, {"cpu_time", 100}, {"instructions", 6012.0}},
           {{"real_time", 101}, {"cpu_time", 101}, {"instructions", 6012.003}},
           {{"real_time", 99},
            {"cpu_time", 99},
            {"instructions", 6012.001}}}}});
  const RunResult r =
      Run({"--fail-on", "instructions>+0.1%", "--color", "never"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("+0.20%  exact  3 vs 3  FAIL"));
  EXPECT_EQ(Run({"--fail-on", "instructions>+0.3%"}).code, 0);
}

TEST_F(CompareGates, OneSampleEachIsSaid) {
  Write("base.json", {Reps("BM_a", {100})});
  Write("new.json", {Reps("BM_a", {110})});
  const RunResult r =
      Run({"--fail-on", "cpu_time>+5%", "--format", "markdown"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("rest on one sample each"));
  EXPECT_THAT(r.out, HasSubstr("| n=1 |"));
}

// Two sets of runs of the same example binaries trip no time gate, and the
// same runs with the new side made slower than their noise trip every one.
//
// The machine these tests run on is shared (parallel builds come and go;
// load averages of 15 on 2 cores were seen), so the time spread between
// repetitions can be far above the gates' 5 %. What keeps a same-binary
// comparison from tripping is the significance test, and only when its
// level holds for the whole family of checks:
// - the two sides are measured interleaved, one repetition per process,
//   kReps of each in a random order (the seed is printed), after one
//   warm-up run: which runs are A is independent of whatever the machine's
//   load does, so under the null hypothesis the U test's p is exact (a
//   randomization test). Run back to back, the second run here once read
//   BM_Sequential/4096 +142 % slower, every repetition; in the fixed order
//   A B B A A B B A ..., with Chromium starting beside it, every B run of
//   BM_ReusedPages/pages:16 once read slower than every A (+186 %);
// - a gate trips on one side's being slower, which under the null
//   hypothesis (the same binary) has probability <= alpha/2 per check; with
//   2 gates on every benchmark of every example, alpha is
//   2 * kFamilyWise / checks (Bonferroni), so the chance that any of them
//   trips on noise is <= kFamilyWise whatever the load. At 5 repetitions
//   and alpha 0.05 over 36 checks nothing bounded it (under parallel
//   builds real_time>+5% tripped: BM_ReusedPages/pages:16 +17 %, p 0.032).
// kReps is the fewest repetitions whose smallest p is below that alpha.
// Each run is short (--benchmark_min_time=0.005; 17 runs of every example
// are this test's cost): the level holds however noisy the samples are, so
// longer runs buy only power against a real change, which is printed.
// Why a counter was not counted travels from the benchmark (its
// perfcounters.unavailable context, one entry per reason naming every event
// it applies to) to compare's gate message and report's "Not counted"
// section, for each event and for the metrics derived from them.
TEST(CompareSameBinary, NotCountedReasonsReachCompareAndReport) {
#ifndef PERFCOUNTERS_EXAMPLE_BENCHES
  GTEST_SKIP() << "the examples are not built (PERFCOUNTERS_BUILD_EXAMPLES)";
#else
  const std::vector<std::string> benches =
      absl::StrSplit(PERFCOUNTERS_EXAMPLE_BENCHES, ',');
  std::string pages;
  for (const std::string& b : benches) {
    if (b.ends_with("/pages_bench")) pages = b;
  }
  if (pages.empty()) GTEST_SKIP() << "pages_bench is not built";
  const std::string dir = testing::ScratchPath("not_counted_reasons");
  ASSERT_TRUE(testing::MakeDirectories(dir));
  const std::string out = dir + "/run.json";
  const std::string cmd = absl::StrCat(
      Quote(pages), " --benchmark_min_time=0.01 --benchmark_filter=Reused",
      " --perf_counters=cycles,instructions,page-faults --benchmark_out=",
      Quote(out), " >/dev/null 2>&1");
  ASSERT_EQ(testing::RunShell(cmd).code, 0) << cmd;
  const nlohmann::json run = nlohmann::json::parse(testing::Slurp(out));
  if (!run["context"].contains("perfcounters.unavailable")) {
    GTEST_SKIP() << "cycles and instructions both count here";
  }
  const std::string context = run["context"]["perfcounters.unavailable"];
  bool cycles_missing = false;
  for (const UnavailableGroup& g : ParseUnavailableContext(context)) {
    for (const std::string& k : g.keys) cycles_missing |= k == "cycles";
  }
  if (!cycles_missing) GTEST_SKIP() << "cycles counts here: " << context;

  const RunResult gate = testing::RunTool(
      "compare run.json run.json --fail-on 'cycles>+1%' --fail-on-missing",
      dir);
  EXPECT_THAT(gate.out + gate.err,
              HasSubstr("cycles not counted in either file (cycles"));
  const RunResult report =
      testing::RunTool("report run.json run.json -o report.html", dir);
  ASSERT_EQ(report.code, 0) << report.err;
  const std::string html = testing::Slurp(dir + "/report.html");
  EXPECT_THAT(html, Not(HasSubstr("no reason recorded")));
  EXPECT_THAT(html, HasSubstr("cycles"));
#endif
}

// The gates can still fail: the same measured samples with the new side
// made slower than their noise trip every check (and the test prints how
// many a +5 % and a +10 % change trip against the noise it saw).
TEST(CompareSameBinary, TripsNoTimeGate) {
#ifndef PERFCOUNTERS_EXAMPLE_BENCHES
  GTEST_SKIP() << "the examples are not built (PERFCOUNTERS_BUILD_EXAMPLES)";
#else
  constexpr int kReps = 8;
  constexpr double kFamilyWise = 0.01;
  const std::string dir = testing::ScratchPath("same_binary");
  ASSERT_TRUE(testing::MakeDirectories(dir));
  const std::vector<std::string> benches =
      absl::StrSplit(PERFCOUNTERS_EXAMPLE_BENCHES, ',');
  struct Runs {
    std::string bench;
    nlohmann::json sides[2];
  };
  std::vector<Runs> all;
  size_t checks = 0;
  const unsigned seed = std::random_device()();
  std::printf("order of the sides' runs: seed %u\n", seed);
  std::mt19937 rng(seed);
  for (const std::string& bench : benches) {
    if (!testing::Exists(bench)) continue;
    Runs& runs = all.emplace_back();
    runs.bench = bench;
    const std::string out = dir + "/one.json";
    const std::string cmd = absl::StrCat(
        Quote(bench), " --benchmark_min_time=0.005",
        " --perf_counters=task-clock,page-faults --benchmark_out=", Quote(out),
        " >/dev/null 2>&1");
    ASSERT_EQ(testing::RunShell(cmd).code, 0) << cmd;  // warm-up, not kept
    // kReps runs of each side, in a random order.
    std::vector<int> order;
    for (int i = 0; i < 2 * kReps; ++i) order.push_back(i % 2);
    std::shuffle(order.begin(), order.end(), rng);
    int reps[2] = {0, 0};
    for (const int side : order) {
      ASSERT_EQ(testing::RunShell(cmd).code, 0) << cmd;
      nlohmann::json run = nlohmann::json::parse(testing::Slurp(out));
      if (reps[side] == 0) {
        runs.sides[side] = run;
        runs.sides[side]["benchmarks"] = nlohmann::json::array();
      }
      for (auto& e : run["benchmarks"]) {
        e["repetition_index"] = reps[side];
        runs.sides[side]["benchmarks"].push_back(e);
      }
      ++reps[side];
    }
    checks += 2 * runs.sides[0]["benchmarks"].size() / kReps;
  }
  ASSERT_GT(all.size(), 0u);
  const double alpha = 2 * kFamilyWise / static_cast<double>(checks);
  ASSERT_LT(MinimumP(kReps, kReps), alpha)
      << kReps << " repetitions could never trip a gate at alpha " << alpha;
  std::printf(
      "%zu checks, alpha %.2g per check (smallest p at %d vs %d: "
      "%.2g)\n",
      checks, alpha, kReps, kReps, MinimumP(kReps, kReps));

  // The compare runs on the two sides with the new side's times scaled by
  // `factor`; its exit code and table (unless `table` is null) and JSON.
  const auto compare = [&](const Runs& runs, double factor, RunResult* table,
                           nlohmann::json* json) {
    nlohmann::json next = runs.sides[1];
    for (auto& e : next["benchmarks"]) {
      e["real_time"] = e["real_time"].get<double>() * factor;
      e["cpu_time"] = e["cpu_time"].get<double>() * factor;
    }
    std::ofstream(dir + "/base.json") << runs.sides[0].dump();
    std::ofstream(dir + "/new.json") << next.dump();
    std::vector<std::string> args = {
        "compare",      "base.json",     "new.json",
        "--fail-on",    "real_time>+5%", "--fail-on",
        "cpu_time>+5%", "--alpha",       absl::StrCat(alpha)};
    if (table != nullptr) {
      *table = testing::RunTool(QuoteAll(args) + " --color never", dir);
    }
    const RunResult j =
        testing::RunTool(QuoteAll(args) + " --format json", dir);
    *json = nlohmann::json::parse(j.out, nullptr, false);
  };
  // Violations (real_time and cpu_time gates) in a compare's JSON.
  const auto violations = [](const nlohmann::json& j) {
    size_t n = 0;
    for (const auto& g : j["gates"]) n += g["violations"].size();
    return n;
  };

  size_t tripped_at_5 = 0, tripped_at_10 = 0, gated = 0;
  for (const Runs& runs : all) {
    RunResult r;
    nlohmann::json j;
    compare(runs, 1.0, &r, &j);
    EXPECT_EQ(r.code, 0) << runs.bench << "\n" << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat(kReps, " vs ", kReps)));
    EXPECT_THAT(r.err, Not(HasSubstr("warning")));
    ASSERT_FALSE(j.is_discarded()) << r.out;
    // The noise the gates saw: each side's spread, (max - min) / median;
    // and the largest ratio of two samples of one metric (both sides).
    double widest = 1;
    size_t checked_here = 0;
    for (const auto& b : j["benchmarks"]) {
      for (const auto& m : b["metrics"]) {
        if (m["metric"] != "real_time" && m["metric"] != "cpu_time") continue;
        double spread = 0;
        std::vector<double> both;
        for (const char* side : {"base", "new"}) {
          std::vector<double> v = m[side]["samples"];
          std::sort(v.begin(), v.end());
          spread = std::max(spread, (v.back() - v.front()) / v[v.size() / 2]);
          both.insert(both.end(), v.begin(), v.end());
        }
        const auto [lo, hi] = std::minmax_element(both.begin(), both.end());
        widest = std::max(widest, *hi / *lo);
        ++checked_here;
        std::printf(
            "%-32s %-9s spread %6.2f%%  change %+6.2f%%  p %.3f\n",
            b["name"].get<std::string>().c_str(),
            m["metric"].get<std::string>().c_str(), 100 * spread,
            m["change_pct"].is_number() ? m["change_pct"].get<double>() : 0.0,
            m["p_value"].is_number() ? m["p_value"].get<double>() : 1.0);
        ++gated;
      }
    }
    // The gates can fail: the same samples with the new side slower by
    // more than any two of them differ (and by 6 % more) no longer overlap
    // (p is the smallest possible, below alpha) and change by more than
    // 5 %: every gate check trips.
    compare(runs, 1.06 * widest, &r, &j);
    EXPECT_EQ(r.code, 1) << runs.bench << " x" << 1.06 * widest << "\n"
                         << r.out << r.err;
    EXPECT_EQ(violations(j), checked_here) << runs.bench << "\n" << r.out;
    // What a real 5 % or 10 % change would show against this noise (how
    // many trip depends on the machine's load: printed, not asserted).
    compare(runs, 1.05, nullptr, &j);
    tripped_at_5 += violations(j);
    compare(runs, 1.10, nullptr, &j);
    tripped_at_10 += violations(j);
  }
  std::printf(
      "the same samples made slower trip %zu (+5%%) and %zu (+10%%) "
      "of %zu gate checks\n",
      tripped_at_5, tripped_at_10, gated);
#endif
}

}  // namespace
}  // namespace perfcounters::tools
