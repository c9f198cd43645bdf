// benchmark_ext_console_test.cc: what a person sees on the console of a
// benchmark with counters (benchmark_ext/src/console.cc).
//
// The golden tests run examples/pages_bench and compare its console output
// (stderr lines of perfcounters, and the table) with
// tests/testdata/console/*.txt after masking every number: on a machine
// without a hardware PMU (natively here and in CI) and with a full PMU (the
// emulated arm64 machine). To update a golden file, run the test with
// PERFCOUNTERS_UPDATE_GOLDEN=1 (natively; in the emulated machine the
// masked output is printed on a mismatch). The other tests check the parts
// of the presentation one by one.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/capabilities.h"
#include "perfcounters/plan.h"
#include "support/hw.h"
#include "support/subprocess.h"

namespace {

using ::perfcounters::Plan;
using ::perfcounters::benchmark_ext_internal::GroupUnavailable;
using ::perfcounters::benchmark_ext_internal::ReasonLine;
using ::perfcounters::benchmark_ext_internal::TidyForConsole;
using ::perfcounters::testing::ReadFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kEvents[] =
    "--perf_counters=cycles,instructions,task-clock,page-faults";

// pages_bench: at its build path (natively, and mirrored in the emulated
// machine), else next to this test binary.
std::string FindExample() {
  if (access(PERFCOUNTERS_PAGES_BENCH, X_OK) == 0) {
    return PERFCOUNTERS_PAGES_BENCH;
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.find_last_of('/'));
  return access((dir + "/pages_bench").c_str(), X_OK) == 0
             ? dir + "/pages_bench"
             : "";
}

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
  nlohmann::json json;  // --benchmark_out
};

// Runs pages_bench with `args`, --benchmark_min_time=0.01 and a JSON file
// output.
Output RunExample(const std::vector<std::string>& args) {
  Output o;
  const std::string bench = FindExample();
  EXPECT_FALSE(bench.empty()) << "pages_bench not found";
  if (bench.empty()) return o;
  char dir_template[] = "/tmp/pc_console_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string json_path = dir + "/out.json";
  perfcounters::testing::Command command;
  command.argv = {bench};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.argv.insert(command.argv.end(), {"--benchmark_min_time=0.01",
                                           "--benchmark_out=" + json_path,
                                           "--benchmark_out_format=json"});
  command.unset_env = {"PERFCOUNTERS_EVENTS"};
  perfcounters::testing::RunResult run =
      perfcounters::testing::RunCommand(command);
  EXPECT_NE(run.code, -1) << run.err;
  o.exit_code = run.code;
  o.out = std::move(run.out);
  o.err = std::move(run.err);
  o.json = nlohmann::json::parse(ReadFile(json_path), nullptr,
                                 /*allow_exceptions=*/false);
  unlink(json_path.c_str());
  rmdir(dir.c_str());
  return o;
}

// A number as gbench and we print it (1234, 5.67k, 890m, 12.3M/s, 45%), alone
// or after `=`, becomes `#`; runs of spaces become one.
std::string MaskLine(const std::string& line) {
  static const std::regex number(
      "-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?[kMGTPEmunpf]?(/s)?%?");
  std::string out;
  for (const absl::string_view t :
       absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    std::string token(t);
    const size_t eq = token.rfind('=');
    const std::string value =
        eq == std::string::npos ? token : token.substr(eq + 1);
    if (std::regex_match(value, number)) {
      token = (eq == std::string::npos ? "" : token.substr(0, eq + 1)) + "#";
    }
    out += (out.empty() ? "" : " ") + token;
  }
  return out;
}

// The console as the golden files hold it: perfcounters' stderr lines
// (gbench's own context, dates and load, is left out), then the table from
// its first rule on; every number masked.
std::string Masked(const Output& o) {
  std::string text = "# stderr\n";
  for (const absl::string_view line : absl::StrSplit(o.err, '\n')) {
    if (absl::StartsWith(line, "perfcounters")) {
      text += MaskLine(std::string(line)) + "\n";
    }
  }
  text += "# stdout\n";
  bool table = false;
  for (const absl::string_view line : absl::StrSplit(o.out, '\n')) {
    table = table || absl::StartsWith(line, "---");
    if (table && !line.empty()) text += MaskLine(std::string(line)) + "\n";
  }
  return text;
}

void ExpectGolden(const Output& o, const std::string& name) {
  const std::string path =
      std::string(PERFCOUNTERS_CONSOLE_TESTDATA) + "/" + name;
  const std::string masked = Masked(o);
  if (const char* update = std::getenv("PERFCOUNTERS_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << masked;
  }
  EXPECT_EQ(masked, ReadFile(path))
      << "golden " << path << "; the whole output:\n"
      << o.err << o.out;
}

// Every value of `keys` in the console table ("key=value" form) has at
// most `digits` significant digits.
void ExpectRounded(const std::string& table,
                   const std::vector<std::string>& keys, int digits) {
  for (const std::string& key : keys) {
    const std::regex value(" " + key + "=([0-9.]+)");
    int seen = 0;
    for (std::sregex_iterator it(table.begin(), table.end(), value), end;
         it != end; ++it, ++seen) {
      std::string d = (*it)[1];
      d.erase(std::remove(d.begin(), d.end(), '.'), d.end());
      d.erase(0, d.find_first_not_of('0'));
      while (d.size() > 1 && d.back() == '0') d.pop_back();
      EXPECT_LE(d.size(), static_cast<size_t>(digits))
          << key << "=" << (*it)[1] << " in\n"
          << table;
    }
    EXPECT_GT(seen, 0) << key << " not in\n" << table;
  }
}

bool NoHardwarePmu() {
  return !perfcounters::ProbeCapabilities().has_hardware_pmu();
}

// The golden outputs count task-clock and page-faults, which an ordinary
// user cannot open at some kernel.perf_event_paranoid levels (the
// benchmark counts them in user space only, as :u).
#define REQUIRE_SOFTWARE_EVENTS()                                          \
  for (const char* e : {"task-clock:u", "page-faults:u"}) {                \
    const std::string why = perfcounters::testing::WhyEventUnavailable(e); \
    if (!why.empty()) GTEST_SKIP() << "needs " << e << ": " << why;        \
  }

TEST(ConsoleGolden, NoPmu) {
  if (!NoHardwarePmu()) GTEST_SKIP() << "this machine has a hardware PMU";
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample({kEvents});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectGolden(o, "pages_bench.no_pmu.txt");
  ExpectRounded(o.out, {"task-clock"}, 4);
}

TEST(ConsoleGolden, NoPmuTabular) {
  if (!NoHardwarePmu()) GTEST_SKIP() << "this machine has a hardware PMU";
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample({kEvents, "--benchmark_counters_tabular=true"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectGolden(o, "pages_bench.no_pmu.tabular.txt");
}

TEST(ConsoleGolden, FullPmu) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample({kEvents});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectGolden(o, "pages_bench.pmu.txt");
  ExpectRounded(o.out, {"cycles", "instructions", "task-clock"}, 4);
  ExpectRounded(o.out, {"ipc"}, 3);
}

TEST(ConsoleGolden, FullPmuTabular) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample({kEvents, "--benchmark_counters_tabular=true"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectGolden(o, "pages_bench.pmu.tabular.txt");
}

// The file output keeps what the console leaves out.
TEST(Console, JsonKeepsEverything) {
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample({kEvents, "--benchmark_filter=Reused"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ASSERT_TRUE(o.json.is_object()) << o.err;
  const nlohmann::json& context = o.json["context"];
  EXPECT_TRUE(context.contains("perfcounters.calibrate")) << context.dump();
  EXPECT_TRUE(context.contains("perfcounters.read_path.groups"));
  EXPECT_TRUE(context.contains("perfcounters.calibration.task-clock"));
  EXPECT_THAT(o.err, Not(HasSubstr("perfcounters.calibrate")));
  EXPECT_THAT(o.err, Not(HasSubstr("perfcounters.read_path.groups")));
  EXPECT_THAT(o.err, HasSubstr("perfcounters.read_path: "));
  EXPECT_THAT(o.err, HasSubstr("perfcounters.events: cycles,instructions"));
  for (const nlohmann::json& b : o.json["benchmarks"]) {
    EXPECT_TRUE(b.contains("task-clock")) << b.dump();
    if (NoHardwarePmu()) {
      EXPECT_EQ(b["cycles.not_counted"], 1) << b.dump();
      EXPECT_EQ(b["instructions.not_counted"], 1) << b.dump();
    }
  }
  EXPECT_THAT(o.out, Not(HasSubstr("not_counted")));
}

TEST(Console, VerboseShowsEverything) {
  REQUIRE_SOFTWARE_EVENTS();
  const Output o = RunExample(
      {kEvents, "--benchmark_filter=Reused", "--perf_counters_verbose"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("perfcounters.calibrate: true"));
  EXPECT_THAT(o.err, HasSubstr("perfcounters.calibration.task-clock: "));
  EXPECT_THAT(o.err, HasSubstr("perfcounters.read_path.groups: "));
  EXPECT_THAT(o.err, HasSubstr("perfcounters: read path: "));
  if (NoHardwarePmu()) {
    EXPECT_THAT(o.out, HasSubstr("cycles.not_counted=1"));
    EXPECT_THAT(o.err, HasSubstr("perfcounters.unavailable: cycles, "
                                 "instructions: not supported"));
  }
}

// A plan whose unavailable events have the reasons the planner writes.
Plan PlanWith(std::vector<perfcounters::Unavailable> unavailable) {
  Plan plan;
  plan.unavailable = std::move(unavailable);
  for (const auto& u : plan.unavailable) plan.requested_keys.push_back(u.key);
  return plan;
}

TEST(Console, OneLinePerReasonWithoutTheNameOrTrivialGroups) {
  const std::string no_pmu =
      ": not supported by this machine's PMU (ENOENT): no hardware PMU in "
      "sysfs — this looks like a VM whose hypervisor exposes no PMU";
  const Plan plan = PlanWith({
      {"cycles", "cycles" + no_pmu + " [member 1 of 1 in group {cycles}]"},
      {"sched:sched_switch",
       "sched:sched_switch: permission denied (EACCES): ask root"},
      {"instructions",
       "instructions" + no_pmu + " [member 1 of 1 in group {instructions}]"},
      {"cycles#2", "cycles" + no_pmu + " [member 1 of 1 in group {cycles}]"},
      {"a",
       "its group {a,b} cannot be scheduled: b: too big [member 2 of 2 "
       "in group {a,b}]"},
      {"b",
       "its group {a,b} cannot be scheduled: b: too big [member 2 of 2 "
       "in group {a,b}]"},
  });
  const std::vector<ReasonLine> full = GroupUnavailable(plan, nullptr);
  ASSERT_EQ(full.size(), 3u);
  EXPECT_THAT(full[0].keys, ElementsAre("cycles", "instructions", "cycles#2"));
  EXPECT_EQ(full[0].reason, no_pmu.substr(2));
  EXPECT_THAT(full[1].keys, ElementsAre("sched:sched_switch"));
  EXPECT_EQ(full[1].reason, "permission denied (EACCES): ask root");
  // The member that matters stays named.
  EXPECT_THAT(full[2].keys, ElementsAre("a", "b"));
  EXPECT_THAT(full[2].reason, HasSubstr("[member 2 of 2 in group {a,b}]"));

  // The JSON context says the same, in the format the tools read.
  const std::vector<perfcounters::UnavailableGroup> read =
      perfcounters::ParseUnavailableContext(
          perfcounters::benchmark_ext_internal::UnavailableContext(plan));
  ASSERT_EQ(read.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(read[i].keys, full[i].keys);
    EXPECT_EQ(read[i].reason, full[i].reason);
  }

  perfcounters::Capabilities vm;
  vm.hypervisor = true;
  const std::vector<ReasonLine> short_lines = GroupUnavailable(plan, &vm);
  ASSERT_EQ(short_lines.size(), 3u);
  EXPECT_EQ(short_lines[0].reason,
            "no hardware PMU here (a VM without a virtual PMU); software "
            "events still count");
}

benchmark::BenchmarkReporter::Run RunWith(
    const std::vector<std::pair<std::string, double>>& counters) {
  benchmark::BenchmarkReporter::Run run;
  for (const auto& [name, value] : counters) run.counters[name] = value;
  return run;
}

TEST(Console, TidyLeavesOutNotCountedAndFullCoverageAndRounds) {
  Plan plan = PlanWith({{"cycles", "no"}});
  plan.requested_keys = {"instructions", "cycles", "task-clock"};
  plan.derived.push_back({"ipc", "instructions", "cycles"});
  benchmark::BenchmarkReporter::Run run = RunWith({
      {"instructions", 20006.034},
      {"instructions.coverage", 0.99951},
      {"task-clock", 840834.25},
      {"task-clock.coverage", 0.612345},
      {"cycles.not_counted", 1},
      {"ipc", 1.234567},
      {"items_per_second", 1.234567},  // not ours: unchanged
      {"other.not_counted", 1},        // not ours: unchanged
  });
  TidyForConsole(plan, &run);
  std::vector<std::pair<std::string, double>> got;
  for (const auto& [name, c] : run.counters) got.emplace_back(name, c.value);
  EXPECT_THAT(
      got, ElementsAre(
               std::pair<std::string, double>("instructions", 20010),
               std::pair<std::string, double>("ipc", 1.23),
               std::pair<std::string, double>("items_per_second", 1.234567),
               std::pair<std::string, double>("other.not_counted", 1),
               std::pair<std::string, double>("task-clock", 840800),
               std::pair<std::string, double>("task-clock.coverage", 0.612)));
}

// Counts in warnings read as numbers, not in exponent notation.
TEST(Console, CountsInMessagesAreReadable) {
  using ::perfcounters::benchmark_ext_internal::ReadableCount;
  EXPECT_EQ(ReadableCount(16051234.4), "16051234");
  EXPECT_EQ(ReadableCount(2.5e12), "2500000000000");
  EXPECT_EQ(ReadableCount(100000), "100000");
  EXPECT_EQ(ReadableCount(841), "841");
  EXPECT_EQ(ReadableCount(841.5), "841.5");
  EXPECT_EQ(ReadableCount(0.25), "0.25");
  EXPECT_EQ(ReadableCount(-3), "-3");
}

TEST(Console, ContextOnTheConsole) {
  using ::perfcounters::benchmark_ext_internal::ShowContextOnConsole;
  EXPECT_TRUE(ShowContextOnConsole("perfcounters.events", false));
  EXPECT_TRUE(ShowContextOnConsole("perfcounters.read_path", false));
  EXPECT_FALSE(ShowContextOnConsole("perfcounters.read_path.groups", false));
  EXPECT_FALSE(ShowContextOnConsole("perfcounters.calibrate", false));
  EXPECT_FALSE(ShowContextOnConsole("perfcounters.unavailable", false));
  EXPECT_TRUE(ShowContextOnConsole("perfcounters.calibrate", true));
  EXPECT_TRUE(ShowContextOnConsole("my_own_key", false));
}

}  // namespace
