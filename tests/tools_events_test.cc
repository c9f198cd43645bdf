// tools_events_test.cc: `perfcounters encode` and `stat`, and `list`'s
// vendor events — the built command on this machine's real kernel (the
// rest of `list`: tools_list_test.cc).
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/capabilities.h"
#include "perfcounters/vendor_events.h"
#include "support/as_nobody.h"
#include "support/hw.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/tool_runner.h"

namespace {

// When run as `PERFCOUNTERS_TOUCH_PAGES=N tools_events_test`, this binary is
// the helper that `stat` counts: it touches N fresh pages and exits.
const bool kTouchHelper = [] {
  const char* n = std::getenv("PERFCOUNTERS_TOUCH_PAGES");
  if (n == nullptr) return false;
  if (!perfcounters::tools::testing::TouchFreshPages(std::atol(n))) _exit(3);
  _exit(0);
}();

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using perfcounters::tools::testing::ExpectGolden;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunShell;
using perfcounters::tools::testing::SelfExe;
using perfcounters::tools::testing::ToolPath;

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
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
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
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  const RunResult r = RunTool("stat --json -r 2 -e page-faults -- true");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("\"runs\": 2"));
  EXPECT_THAT(r.out, HasSubstr("\"event\": \"page-faults\""));
  EXPECT_THAT(r.out, HasSubstr("\"status\": \"counted\""));
}

// `stat --json` output of `events` over this binary touching no pages.
nlohmann::json StatJson(const std::string& events) {
  const RunResult r =
      RunTool(absl::StrCat("stat --json -e '", events, "' -- ", SelfExe()),
              "PERFCOUNTERS_TOUCH_PAGES=0");
  EXPECT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
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
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
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
  EXPECT_THAT(pair.err, HasSubstr(" cpi:u\n"));  // its own line
  EXPECT_THAT(pair.err, Not(HasSubstr("<not")));
  // The table's metrics are the ratios of the two counts (--json).
  const nlohmann::json counted = StatJson("{cycles:u,instructions:u}");
  ASSERT_EQ(counted["events"].size(), 2u) << counted.dump(1);
  const double cycles = counted["events"][0].value("value", 0.0);
  const double instructions = counted["events"][1].value("value", 0.0);
  ASSERT_GT(cycles, 0) << counted.dump(1);
  ASSERT_GT(instructions, 0) << counted.dump(1);
  std::map<std::string, double> metrics;
  for (const nlohmann::json& m : counted["metrics"]) {
    metrics[m.value("metric", "")] = m.value("value", -1.0);
  }
  EXPECT_EQ(metrics.size(), 2u) << counted.dump(1);
  EXPECT_DOUBLE_EQ(metrics["ipc:u"], instructions / cycles);
  EXPECT_DOUBLE_EQ(metrics["cpi:u"], cycles / instructions);

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
  EXPECT_THAT(r.err, StartsWith("perfcounters stat: -e: unknown event "
                                "'no-such-event' at offset 0 in "
                                "'no-such-event'"));
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
  EXPECT_EQ(r.err,
            "perfcounters encode: invalid modifier 'q' at offset 7 in "
            "'cycles:q': valid modifiers are u (user), k (kernel), h "
            "(hypervisor), G (guest), H (host), I (exclude idle), p/pp/ppp "
            "(precise), D (pinned), e (exclusive), e.g. cycles:u or "
            "cycles:kpp\n");
  EXPECT_EQ(r.out, "");
}

// --- encode against perf stat -vv ---

// One perf_event_attr as printed: field -> value ("{ bp_addr, config1 }"
// is config1), and what became of the open.
struct AttrBlock {
  std::map<std::string, uint64_t> fields;
  // A field's value; 0 when not printed (both tools omit zero fields).
  uint64_t Get(const std::string& name) const {
    auto it = fields.find(name);
    return it == fields.end() ? 0 : it->second;
  }
  // perf: the open failed and the next block retries the same event
  // (a fallback), rather than giving up with a warning.
  bool retried = false;
};

std::string FieldName(absl::string_view name) {
  name = absl::StripAsciiWhitespace(name);
  if (absl::ConsumePrefix(&name, "{")) {
    absl::ConsumeSuffix(&name, "}");
    const size_t comma = name.rfind(',');
    name = absl::StripAsciiWhitespace(name.substr(comma + 1));
  }
  return std::string(name);
}

// Both tools' "perf_event_attr:" blocks, in order.
std::vector<AttrBlock> ParseAttrBlocks(const std::string& text) {
  std::vector<AttrBlock> blocks;
  bool in_block = false;
  bool failed = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line == "perf_event_attr:") {
      if (!blocks.empty() && failed) blocks.back().retried = true;
      blocks.emplace_back();
      in_block = true;
      failed = false;
      continue;
    }
    if (absl::StartsWith(line, "sys_perf_event_open failed")) failed = true;
    if (absl::StartsWith(line, "Warning:")) failed = false;
    if (!absl::StartsWith(line, "  ")) {
      in_block = false;
      continue;
    }
    if (!in_block) continue;
    // "  name     value [(NAME)]"; names may hold spaces inside { }.
    const size_t brace = line.find('}');
    const size_t split = line.find_first_not_of(
        ' ', brace != absl::string_view::npos ? brace + 1 : 2);
    const size_t gap = brace != absl::string_view::npos
                           ? brace + 1
                           : line.find(' ', line.find_first_not_of(' '));
    if (gap == absl::string_view::npos || split == absl::string_view::npos) {
      continue;
    }
    const std::string name = FieldName(line.substr(0, gap));
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(gap));
    value = value.substr(0, value.find(' '));
    uint64_t v = 0;
    if (absl::ConsumePrefix(&value, "0x")) {
      if (!absl::SimpleHexAtoi(value, &v)) continue;
    } else if (!absl::SimpleAtoi(value, &v)) {
      continue;
    }
    blocks.back().fields[name] = v;
  }
  return blocks;
}

// The fields that say which event is counted and how (perf stat's own
// read_format, disabled, inherit, ... are not the event's; exclude_guest
// is set by perf 6.1 on every event; period/freq perf stat drops).
constexpr const char* kEventFields[] = {
    "type",         "config",       "config1",        "config2",
    "bp_type",      "exclude_user", "exclude_kernel", "exclude_hv",
    "exclude_idle", "exclude_host", "precise_ip",     "pinned",
    "exclusive"};

// The forms of docs/grammar.md's Forms table (`...` spans of the first
// column, placeholders dropped).
std::vector<std::string> DocumentedForms() {
  // kTestdata is <source>/tests/testdata/tools.
  const std::string doc = perfcounters::tools::testing::Slurp(
      perfcounters::tools::testing::kTestdata + "/../../../docs/grammar.md");
  std::vector<std::string> forms;
  bool in_forms = false;
  for (absl::string_view line : absl::StrSplit(doc, '\n')) {
    if (absl::StartsWith(line, "## ")) in_forms = line == "## Forms";
    if (!in_forms || !absl::StartsWith(line, "| `")) continue;
    const absl::string_view first = line.substr(1, line.find(" | ") - 1);
    const std::vector<std::string> parts = absl::StrSplit(first, '`');
    for (size_t i = 1; i < parts.size(); i += 2) {
      if (parts[i] != "...") forms.push_back(parts[i]);
    }
  }
  return forms;
}

TEST(EncodeVsPerf, EveryDocumentedFormEncodesAsPerfOpensIt) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  PERFCOUNTERS_REQUIRE_TESTDATA();
  PERFCOUNTERS_REQUIRE_PERF(perf);
  std::vector<std::string> forms = DocumentedForms();
  ASSERT_GE(forms.size(), 30u) << "the Forms table of docs/grammar.md";
  // The modifiers table, and modifiers perf accepts that we once did not.
  for (const char* more :
       {"cycles:u", "cycles:uk", "cycles:kpp", "task-clock:IpD",
        "page-faults:G", "page-faults:H", "page-faults:e", "cs:u",
        "{task-clock:k,page-faults}:u", "msr/config=0x2,event=0x1/",
        "msr/event=0x1,event=0x2/", "msr/config=0x4,config=0x2/"}) {
    forms.push_back(more);
  }
  int compared = 0;
  for (const std::string& form : forms) {
    SCOPED_TRACE(form);
    if (geteuid() != 0 && absl::StrContains(form, ":sched")) continue;
    const RunResult theirs = perfcounters::tools::testing::RunShell(
        absl::StrCat(perf, " stat -vv -e ",
                     perfcounters::tools::testing::Quote(form), " -- true"));
    const RunResult ours = RunTool(
        absl::StrCat("encode ", perfcounters::tools::testing::Quote(form)));
    std::vector<AttrBlock> perf_events;
    for (const AttrBlock& b : ParseAttrBlocks(theirs.err)) {
      const bool retry_of_previous =
          !perf_events.empty() && perf_events.back().retried;
      if (!retry_of_previous) {
        perf_events.push_back(b);
      } else {
        perf_events.back().retried = b.retried;  // keep skipping retries
      }
    }
    if (perf_events.empty()) {
      // Documented differences (docs/grammar.md): names are
      // case-insensitive here; perf stat refuses freq=; perf 6.1 fails on
      // a category glob with a plain name; a vendor name that libpfm4's
      // table for this CPU knows (RETIRED_INSTRUCTIONS on AMD) is not one
      // of perf's own event names.
      if (form != "CYCLES" && !absl::StrContains(form, "freq=") &&
          form != "*:sched_switch" &&
          !absl::StrContains(ours.out, "[libpfm4 table")) {
        EXPECT_NE(ours.code, 0) << "perf rejects it, encode accepts it:\n"
                                << theirs.err << ours.out;
      }
      continue;
    }
    ASSERT_EQ(ours.code, 0) << ours.err;
    std::vector<AttrBlock> mine = ParseAttrBlocks(ours.out);
    if (absl::StrContains(form, "*")) {
      // Globs expand in name order here, in directory order in perf.
      const auto by_config = [](const AttrBlock& a, const AttrBlock& b) {
        return a.Get("config") < b.Get("config");
      };
      std::sort(mine.begin(), mine.end(), by_config);
      std::sort(perf_events.begin(), perf_events.end(), by_config);
    }
    ASSERT_GE(mine.size(), perf_events.size()) << theirs.err << ours.out;
    for (size_t i = 0; i < perf_events.size(); ++i) {
      for (const char* field : kEventFields) {
        EXPECT_EQ(mine[i].Get(field), perf_events[i].Get(field))
            << "event " << i << " field " << field << "\nperf:\n"
            << theirs.err << "\nencode:\n"
            << ours.out;
      }
      ++compared;
    }
  }
  std::printf("%zu forms, %d events compared with perf stat -vv\n",
              forms.size(), compared);
  EXPECT_GE(compared, 30);
}

// tracefs that an ordinary user may not read (mode 700): they are told so,
// and perf's remedy, not that it is not mounted. A mounted tracefs is made
// mode 700 for the test and given back its mode; an unmounted one is
// mounted mode 700 in a private mount namespace, gone when it exits.
TEST(Tracefs, UnreadableIsSaidAsSuchNotAsNotMounted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to change tracefs";
  const std::string root = "/sys/kernel/tracing";
  const bool mounted = perfcounters::tools::testing::Slurp("/proc/mounts")
                           .find(" " + root + " tracefs ") != std::string::npos;
  struct stat before {};
  if (mounted && stat(root.c_str(), &before) != 0) GTEST_SKIP() << root;
  const std::string as_nobody = absl::StrCat(
      perfcounters::testing::AsNobodyCommand(), " ", Quote(ToolPath()));
  for (const std::string& args :
       {std::string("encode sched:sched_switch"),
        std::string("list --tracepoints sched_switch")}) {
    RunResult r;
    if (mounted) {
      ASSERT_EQ(chmod(root.c_str(), 0700), 0);
      r = RunShell(absl::StrCat(as_nobody, " ", args));
      ASSERT_EQ(chmod(root.c_str(), before.st_mode & 07777), 0);
    } else {
      const std::string inside = absl::StrCat(
          "mount --make-rprivate / && mount -t tracefs -o mode=700 nodev ",
          root, " && exec ", as_nobody, " ", args);
      r = RunShell(absl::StrCat("unshare -m sh -c ", Quote(inside)));
      if (r.err.find("unshare") != std::string::npos ||
          r.err.find("mount: ") != std::string::npos) {
        GTEST_SKIP() << "cannot mount a private tracefs here: " << r.err;
      }
    }
    EXPECT_THAT(r.err, HasSubstr("no permission to read tracefs at "
                                 "/sys/kernel/tracing (mode 700)"))
        << args;
    EXPECT_THAT(r.err, HasSubstr("mount -o remount,mode=755")) << args;
    EXPECT_THAT(r.err, Not(HasSubstr("not mounted"))) << args;
  }
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
