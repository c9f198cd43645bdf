// tools_events_test.cc: `perfcounters list`, `encode` and `stat` — the
// built command on this machine's real kernel.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/capabilities.h"
#include "perfcounters/vendor_events.h"
#include "support/hw.h"
#include "support/sanitizers.h"
#include "testing/tool_runner.h"

namespace {

// When run as `PERFCOUNTERS_TOUCH_PAGES=N tools_events_test`, this binary is
// the helper that `stat` counts: it touches N fresh pages and exits.
const bool kTouchHelper = [] {
  const char* n = std::getenv("PERFCOUNTERS_TOUCH_PAGES");
  if (n == nullptr) return false;
  const long pages = std::atol(n);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0) {
    char* p =
        static_cast<char*>(mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) _exit(3);
    madvise(p, pages * page, MADV_NOHUGEPAGE);  // one fault per page
    for (long i = 0; i < pages; ++i) p[i * page] = 1;
  }
  _exit(0);
}();

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using perfcounters::tools::testing::ExpectGolden;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::SelfExe;

RunResult RunTool(const std::string& args, const std::string& env = "") {
  return perfcounters::tools::testing::RunTool(args, "", env);
}

// Mean page-faults of `stat -x, -r 3` on the helper touching `pages`.
double PageFaults(long pages) {
  const RunResult r =
      RunTool(absl::StrCat("stat -x, -r 3 -e page-faults -- ", SelfExe()),
              absl::StrCat("PERFCOUNTERS_TOUCH_PAGES=", pages));
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> fields = absl::StrSplit(r.err, ',');
  EXPECT_GE(fields.size(), 3u) << r.err;
  if (fields.size() < 3) return -1;
  EXPECT_EQ(fields[2], "page-faults");
  double v = -1;
  EXPECT_TRUE(absl::SimpleAtod(fields[0], &v)) << r.err;
  return v;
}

TEST(Stat, PageFaultsOfAKnownNumberOfPages) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  constexpr long kPages = 2000;
  const double none = PageFaults(0);
  const double some = PageFaults(kPages);
  std::printf("page-faults: %.1f with 0 pages, %.1f with %ld pages\n", none,
              some, kPages);
  ASSERT_GT(none, 0);  // exec and start-up fault too: counted from exec
  EXPECT_GE(some - none, kPages * 0.99);
  EXPECT_LE(some - none, kPages * 1.02 + 20);
}

TEST(Stat, TableExitCodeAndNotSupported) {
  const RunResult r =
      RunTool("stat -e page-faults,task-clock,cycles -- sh -c 'exit 3'");
  EXPECT_EQ(r.code, 3) << "the command's exit code";
  EXPECT_THAT(r.err, HasSubstr("Performance counter stats for 'sh -c exit 3'"));
  EXPECT_THAT(r.err, HasSubstr("page-faults"));
  EXPECT_THAT(r.err, HasSubstr("CPUs utilized"));
  EXPECT_THAT(r.err, HasSubstr("Command exited with status 3"));
  if (!perfcounters::ProbeCapabilities().has_hardware_pmu()) {
    EXPECT_THAT(r.err, HasSubstr("<not supported>      cycles"));
  }
}

TEST(Stat, JsonOutput) {
  const RunResult r = RunTool("stat --json -r 2 -e page-faults -- true");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr("\"runs\": 2"));
  EXPECT_THAT(r.err, HasSubstr("\"event\": \"page-faults\""));
  EXPECT_THAT(r.err, HasSubstr("\"status\": \"counted\""));
}

// `stat --json` output of `events` over this binary touching no pages.
nlohmann::json StatJson(const std::string& events) {
  const RunResult r =
      RunTool(absl::StrCat("stat --json -e '", events, "' -- ", SelfExe()),
              "PERFCOUNTERS_TOUCH_PAGES=0");
  EXPECT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.err, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.err;
  return j;
}

TEST(Stat, BracedEventsAreOneGroup) {
  const nlohmann::json j =
      StatJson("{task-clock,page-faults},context-switches");
  ASSERT_TRUE(j.contains("events")) << j.dump();
  ASSERT_EQ(j["events"].size(), 3u) << j.dump();
  for (int i : {0, 1}) {
    EXPECT_EQ(j["events"][i]["group"], 0) << j.dump();
    EXPECT_EQ(j["events"][i]["status"], "counted") << j.dump();
    EXPECT_DOUBLE_EQ(j["events"][i]["running_pct"].get<double>(), 100);
  }
  EXPECT_FALSE(j["events"][2].contains("group")) << j.dump();
  EXPECT_GT(j["events"][1]["value"].get<double>(), 0);  // exec faults
}

// A software event the kernel does not have (config 0x99) leads the group
// on every machine.
TEST(Stat, MembersOfAGroupWhoseLeaderCannotOpenSaySo) {
  const nlohmann::json j = StatJson("{software/config=0x99/,task-clock}");
  ASSERT_EQ(j["events"].size(), 2u) << j.dump();
  EXPECT_EQ(j["events"][0]["status"], "not supported");
  EXPECT_THAT(j["events"][0].value("reason", ""), HasSubstr("ENOENT"));
  EXPECT_EQ(j["events"][1]["status"], "not supported");
  EXPECT_EQ(j["events"][1]["reason"],
            "its group leader software/config=0x99/ cannot be opened");
  EXPECT_FALSE(j["events"][1].contains("value"));
}

// In the arm64 machine (6 counters + the cycle counter): a braced pair is
// counted together with IPC. Of 7 instructions events in one group the
// kernel takes 6 (they run together: exactly equal counts, never
// multiplexed) and refuses the 7th at open, which is reported with the
// reason; the same 7 events ungrouped are multiplexed and all counted.
TEST(Stat, HardwareGroups) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  PERFCOUNTERS_REQUIRE_EVENT("cycles:u");
  const RunResult pair = RunTool(
      absl::StrCat("stat -e '{cycles:u,instructions:u}' -- ", SelfExe()),
      "PERFCOUNTERS_TOUCH_PAGES=0");
  EXPECT_EQ(pair.code, 0) << pair.err;
  EXPECT_THAT(pair.err, HasSubstr("insn per cycle"));
  EXPECT_THAT(pair.err, Not(HasSubstr("<not")));

  std::string seven;
  for (int i = 0; i < 7; ++i) {
    absl::StrAppend(&seven, i ? "," : "", "instructions:u");
  }
  const nlohmann::json grouped = StatJson(absl::StrCat("{", seven, "}"));
  ASSERT_EQ(grouped["events"].size(), 7u) << grouped.dump();
  const nlohmann::json& first = grouped["events"][0];
  ASSERT_EQ(first["status"], "counted") << grouped.dump(1);
  for (int i = 0; i < 6; ++i) {
    const nlohmann::json& e = grouped["events"][i];
    EXPECT_EQ(e["status"], "counted") << grouped.dump(1);
    EXPECT_EQ(e["value"], first["value"]) << grouped.dump(1);
    EXPECT_EQ(e["running_pct"], 100.0) << grouped.dump(1);
  }
  const nlohmann::json& seventh = grouped["events"][6];
  EXPECT_EQ(seventh["status"], "not supported") << grouped.dump(1);
  EXPECT_FALSE(seventh.contains("value")) << grouped.dump(1);
  EXPECT_THAT(seventh.value("reason", ""),
              HasSubstr("the group does not fit on the PMU"));

  const nlohmann::json loose = StatJson(seven);
  ASSERT_EQ(loose["events"].size(), 7u) << loose.dump();
  double least_running = 100;
  for (const nlohmann::json& e : loose["events"]) {
    EXPECT_EQ(e["status"], "counted") << loose.dump(1);
    least_running = std::min(least_running, e.value("running_pct", 100.0));
  }
  EXPECT_LT(least_running, 100) << "7 events on 6 counters are multiplexed\n"
                                << loose.dump(1);
}

TEST(Stat, BadInput) {
  RunResult r = RunTool("stat -- /nonexistent/command");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot execute '/nonexistent/command': No "
                               "such file or directory"));
  r = RunTool("stat -e no-such-event -- true");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-e 'no-such-event'"));
  r = RunTool("stat -r 0 -- true");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-r must be >= 1"));
  r = RunTool("stat");
  EXPECT_EQ(r.code, 2);
}

TEST(Encode, Golden) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r =
      RunTool("encode cycles:u page-faults '{instructions,branches}:k'");
  EXPECT_EQ(r.code, 0) << r.err;
  ExpectGolden(r.out, "encode.txt");
}

TEST(Encode, BadEvent) {
  const RunResult r = RunTool("encode cycles:q");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("perfcounters encode: 'cycles:q': "));
  EXPECT_EQ(r.out, "");
}

TEST(List, SoftwareAvailableHardwareExplained) {
  const RunResult r = RunTool("list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults"));
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (absl::StartsWith(line, "task-clock ") ||
        absl::StartsWith(line, "page-faults ") ||
        absl::StartsWith(line, "context-switches ")) {
      EXPECT_THAT(std::string(line), HasSubstr("software    available"))
          << line;
    }
    if (absl::StartsWith(line, "instructions ")) {
      if (perfcounters::ProbeCapabilities().has_hardware_pmu()) {
        EXPECT_THAT(std::string(line), HasSubstr("available")) << line;
      } else {
        EXPECT_THAT(std::string(line),
                    HasSubstr("hardware    unavailable: instructions: "
                              "not supported by this machine's PMU"))
            << line;
      }
    }
  }
}

TEST(List, GoldenJsonForAPattern) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r = RunTool("list --json faults");
  EXPECT_EQ(r.code, 0) << r.err;
  ExpectGolden(r.out, "list_faults.json");
}

// --- Vendor events (libpfm4), with a table of this architecture chosen by
// --table, so the output is the same on every machine.

#if defined(__x86_64__)
constexpr char kTable[] = "skl";
constexpr char kVendorName[] = "mem_load_retired.l3_miss:u";
constexpr char kVendorConfig[] = "0x20d1";
constexpr bool kX86 = true;
#else
constexpr char kTable[] = "arm_ac57";
constexpr char kVendorName[] = "inst_retired:u";
constexpr char kVendorConfig[] = "0x8";
constexpr bool kX86 = false;
#endif

TEST(Encode, VendorNameSaysWhichTableResolvedIt) {
  if (!perfcounters::HaveLibpfm()) {
    const RunResult r = RunTool("encode INST_RETIRED:ANY_P");
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("this build lacks libpfm4"));
    return;
  }
  RunResult r =
      RunTool(absl::StrCat("encode --table ", kTable, " ", kVendorName));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              StartsWith(absl::StrCat("# ", kVendorName, "  [libpfm4 table ",
                                      kTable, "]\nperf_event_attr:\n")));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("  config", std::string(27, ' '),
                                            kVendorConfig, "\n")));
  EXPECT_THAT(r.out, HasSubstr("  exclude_kernel                   1\n"));
  r = RunTool(absl::StrCat("encode --table ", kTable, " INST_RETIRED:BOGUS"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("'BOGUS' is not a umask or modifier of"));
  r = RunTool("encode --table no_such_cpu cycles");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("no table 'no_such_cpu'"));
  EXPECT_THAT(r.err, HasSubstr(kTable));
}

TEST(List, VendorEventsOfATableWithUmasks) {
  if (!perfcounters::HaveLibpfm()) {
    const RunResult r = RunTool("list --vendor");
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("this build lacks libpfm4"));
    return;
  }
#if defined(__x86_64__)
  RunResult r = RunTool("list --vendor --table skl mem_load_retired.l3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("vendor events (libpfm4 table skl); "));
  EXPECT_THAT(r.out, HasSubstr("\nskl::MEM_LOAD_RETIRED  [0xd1]  "));
  EXPECT_THAT(r.out, HasSubstr("\n    :L3_MISS  [0x20]  "));
  EXPECT_THAT(r.out, HasSubstr("\n    :L3_HIT  [0x4]  "));
  EXPECT_THAT(r.out, Not(HasSubstr(":L1_HIT")));  // only matching umasks
  r = RunTool("list --vendor --json --table skl 'inst_retired'");
#else
  RunResult r = RunTool("list --vendor --json --table arm_ac57 'inst_retired'");
#endif
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_array()) << r.out;
  bool found = false;
  for (const nlohmann::json& e : j) {
    if (e["name"] != "INST_RETIRED") continue;
    found = true;
    EXPECT_EQ(e["table"], kTable);
    EXPECT_EQ(e["code"], kX86 ? "0xc0" : "0x8");
    EXPECT_FALSE(e["description"].get<std::string>().empty());
  }
  EXPECT_TRUE(found) << r.out;
  // The default list ends with this machine's vendor section.
  r = RunTool("list --table " + std::string(kTable) + " no_such_event_xyz");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("vendor events (libpfm4 table ",
                                            kTable, ")")));
}

}  // namespace
