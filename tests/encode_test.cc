// Tests for encode.h: golden renderings in the exact format of `perf stat
// -vv` (perf_event_attr__fprintf). perf_names.h's tables:
// perf_names_test.cc.
#include "perfcounters/encode.h"

#include <linux/perf_event.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/attr.h"
#include "perfcounters/paths.h"
#include "perfcounters/perf_names.h"
#include "support/subprocess.h"

namespace perfcounters {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// A SystemPaths whose sysfs and tracefs do not exist, so goldens never
// depend on the machine.
SystemPaths NoKernelFs() {
  SystemPaths paths;
  paths.sysfs = "/nonexistent/perfcounters-test-sysfs";
  paths.tracefs = {"/nonexistent/perfcounters-test-tracefs"};
  return paths;
}

// What `perf stat -e cycles:u` opens.
TEST(EncodeAttrTest, CyclesUser) {
  Attr a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.sample_type = PERF_SAMPLE_IDENTIFIER;
  a.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a.disabled = a.inherit = a.exclude_kernel = a.exclude_hv = true;
  a.enable_on_exec = a.exclude_guest = true;
  a.size = 128;
  EXPECT_EQ(EncodeAttr(a, NoKernelFs()),
            "perf_event_attr:\n"
            "  type                             0 (PERF_TYPE_HARDWARE)\n"
            "  size                             128\n"
            "  config                           0 (PERF_COUNT_HW_CPU_CYCLES)\n"
            "  sample_type                      IDENTIFIER\n"
            "  read_format                      "
            "TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING\n"
            "  disabled                         1\n"
            "  inherit                          1\n"
            "  exclude_kernel                   1\n"
            "  exclude_hv                       1\n"
            "  enable_on_exec                   1\n"
            "  exclude_guest                    1\n");
}

TEST(EncodeAttrTest, SizeZeroPrintsTheStructSize) {
  Attr a;
  EXPECT_EQ(EncodeAttr(a, NoKernelFs()),
            absl::StrFormat(
                "perf_event_attr:\n"
                "  type                             0 (PERF_TYPE_HARDWARE)\n"
                "  size                             %d\n"
                "  config                           0 "
                "(PERF_COUNT_HW_CPU_CYCLES)\n",
                sizeof(perf_event_attr)));
}

// `perf stat -e r1b:k`.
TEST(EncodeAttrTest, RawEvent) {
  Attr a;
  a.type = PERF_TYPE_RAW;
  a.config = 0x1b;
  a.exclude_user = true;
  a.size = 128;
  EXPECT_EQ(EncodeAttr(a, NoKernelFs()),
            "perf_event_attr:\n"
            "  type                             4 (PERF_TYPE_RAW)\n"
            "  size                             128\n"
            "  config                           0x1b\n"
            "  exclude_user                     1\n");
}

// `perf stat -e mem:0x1000/4:rw`.
TEST(EncodeAttrTest, Breakpoint) {
  Attr a;
  a.type = PERF_TYPE_BREAKPOINT;
  a.config = 0;
  a.sample_period = 1;
  a.bp_type = 3;  // HW_BREAKPOINT_R | HW_BREAKPOINT_W
  a.config1 = 0x1000;
  a.config2 = 4;
  a.disabled = true;
  a.size = 128;
  EXPECT_EQ(EncodeAttr(a, NoKernelFs()),
            "perf_event_attr:\n"
            "  type                             5 (PERF_TYPE_BREAKPOINT)\n"
            "  size                             128\n"
            "  config                           0\n"
            "  { sample_period, sample_freq }   1\n"
            "  disabled                         1\n"
            "  bp_type                          3\n"
            "  { bp_addr, config1 }             0x1000\n"
            "  { bp_len, config2 }              0x4\n");
}

// A sampling attr like `perf record -e cycles:pp -F 4000 -b --user-regs`.
TEST(EncodeAttrTest, SamplingAttr) {
  Attr a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.size = 128;
  a.sample_period = 4000;
  a.freq = true;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK |
                  PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_WEIGHT;
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
  a.disabled = a.mmap = a.comm = a.task = a.sample_id_all = true;
  a.mmap2 = a.comm_exec = a.ksymbol = a.bpf_event = true;
  a.precise_ip = 2;
  a.use_clockid = true;
  a.clockid = -5;
  a.wakeup_events = 1;
  a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
  a.sample_regs_user = 0xff0fff;
  a.sample_stack_user = 8192;
  a.sample_max_stack = 127;
  EXPECT_EQ(
      EncodeAttr(a, NoKernelFs()),
      "perf_event_attr:\n"
      "  type                             0 (PERF_TYPE_HARDWARE)\n"
      "  size                             128\n"
      "  config                           0x1 (PERF_COUNT_HW_INSTRUCTIONS)\n"
      "  { sample_period, sample_freq }   4000\n"
      "  sample_type                      "
      "IP|TID|TIME|PERIOD|BRANCH_STACK|IDENTIFIER|WEIGHT\n"
      "  read_format                      ID|GROUP|LOST\n"
      "  disabled                         1\n"
      "  mmap                             1\n"
      "  comm                             1\n"
      "  freq                             1\n"
      "  task                             1\n"
      "  precise_ip                       2\n"
      "  sample_id_all                    1\n"
      "  mmap2                            1\n"
      "  comm_exec                        1\n"
      "  use_clockid                      1\n"
      "  ksymbol                          1\n"
      "  bpf_event                        1\n"
      "  { wakeup_events, wakeup_watermark } 1\n"
      "  branch_sample_type               USER|ANY\n"
      "  sample_regs_user                 0xff0fff\n"
      "  sample_stack_user                8192\n"
      "  clockid                          -5\n"
      "  sample_max_stack                 127\n");
}

TEST(EncodeAttrTest, SoftwareAndCacheConfigsAreNamed) {
  Attr cs;
  cs.type = PERF_TYPE_SOFTWARE;
  cs.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  EXPECT_THAT(EncodeAttr(cs, NoKernelFs()),
              AllOf(HasSubstr("  type                             1 "
                              "(PERF_TYPE_SOFTWARE)\n"),
                    HasSubstr("  config                           0x3 "
                              "(PERF_COUNT_SW_CONTEXT_SWITCHES)\n")));
  Attr dummy;
  dummy.type = PERF_TYPE_SOFTWARE;
  dummy.config = PERF_COUNT_SW_DUMMY;
  EXPECT_THAT(EncodeAttr(dummy, NoKernelFs()),
              HasSubstr("0x9 (PERF_COUNT_SW_DUMMY)\n"));

  // L1-dcache-load-misses.
  Attr l1;
  l1.type = PERF_TYPE_HW_CACHE;
  l1.config = PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
              PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
  EXPECT_THAT(EncodeAttr(l1, NoKernelFs()),
              AllOf(HasSubstr("3 (PERF_TYPE_HW_CACHE)\n"),
                    HasSubstr("  config                           0x10000 "
                              "(PERF_COUNT_HW_CACHE_RESULT_MISS | "
                              "PERF_COUNT_HW_CACHE_OP_READ | "
                              "PERF_COUNT_HW_CACHE_L1D)\n")));
  // dTLB-store-misses
  l1.config = PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
              PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
  EXPECT_THAT(EncodeAttr(l1, NoKernelFs()),
              HasSubstr("0x10103 (PERF_COUNT_HW_CACHE_RESULT_MISS | "
                        "PERF_COUNT_HW_CACHE_OP_WRITE | "
                        "PERF_COUNT_HW_CACHE_DTLB)\n"));
}

TEST(EncodeAttrTest, UnknownValuesPrintAsNumbersOnly) {
  Attr hw;
  hw.config = 0xa00000001;  // an extended hardware type, as on hybrid x86
  EXPECT_THAT(EncodeAttr(hw, NoKernelFs()),
              HasSubstr("  config                           0xa00000001\n"));
  Attr cache;
  cache.type = PERF_TYPE_HW_CACHE;
  cache.config = 0x20007;  // result 2 does not exist
  EXPECT_THAT(EncodeAttr(cache, NoKernelFs()),
              HasSubstr("  config                           0x20007\n"));
  Attr pmu;
  pmu.type = 10;  // a dynamic PMU type from sysfs
  pmu.config = 0x3c;
  EXPECT_THAT(EncodeAttr(pmu, NoKernelFs()),
              AllOf(HasSubstr("  type                             10\n"),
                    HasSubstr("  config                           0x3c\n")));
}

TEST(EncodeAttrTest, EveryNonZeroFieldIsPrintedAndZeroFieldsAreNot) {
  Attr a;
  a.sample_type = uint64_t{1} << 40;  // a bit perf has no name for
  a.aux_watermark = 4096;
  a.aux_sample_size = 64;
  a.sig_data = 0xfeedface;
  a.sample_regs_intr = 0x3;
  a.watermark = true;
  a.wakeup_events = 8192;
  std::string out = EncodeAttr(a, NoKernelFs());
  EXPECT_THAT(out,
              HasSubstr("  sample_type                      0x10000000000\n"));
  EXPECT_THAT(out, HasSubstr("  watermark                        1\n"));
  EXPECT_THAT(out, HasSubstr("  { wakeup_events, wakeup_watermark } 8192\n"));
  EXPECT_THAT(out, HasSubstr("  sample_regs_intr                 0x3\n"));
  EXPECT_THAT(out, HasSubstr("  aux_watermark                    4096\n"));
  EXPECT_THAT(out, HasSubstr("  aux_sample_size                  64\n"));
  EXPECT_THAT(out,
              HasSubstr("  sig_data                         4277009102\n"));
  EXPECT_THAT(out, Not(HasSubstr("read_format")));
  EXPECT_THAT(out, Not(HasSubstr("disabled")));
  EXPECT_THAT(out, Not(HasSubstr("bp_addr")));
}

TEST(EncodeAttrTest, InvalidPreciseIpIsShownNotTruncated) {
  Attr a;
  a.precise_ip = 5;  // Validate() rejects this; encode must not show 1.
  EXPECT_THAT(EncodeAttr(a, NoKernelFs()),
              HasSubstr("  precise_ip                       5\n"));
}

// A fake tracefs tree: events/<category>/<name>/id.
class FakeTracefs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(::testing::TempDir()) /
            absl::StrFormat("encode_tracefs_%d", getpid());
    std::filesystem::remove_all(root_);
    Add("sched", "sched_switch", 316);
    Add("sched", "sched_wakeup", 318);
    Add("syscalls", "sys_enter_openat", 77);
    paths_.tracefs = {root_.string()};
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Add(const std::string& category, const std::string& name, int id) {
    std::filesystem::path dir = root_ / "events" / category / name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "id") << id << "\n";
  }
  std::filesystem::path root_;
  SystemPaths paths_;
};

TEST_F(FakeTracefs, TracepointConfigIsNamed) {
  Attr a;
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = 77;
  a.sample_period = 1;
  a.size = 128;
  EXPECT_EQ(
      EncodeAttr(a, paths_),
      "perf_event_attr:\n"
      "  type                             2 (PERF_TYPE_TRACEPOINT)\n"
      "  size                             128\n"
      "  config                           0x4d (syscalls:sys_enter_openat)\n"
      "  { sample_period, sample_freq }   1\n");
  a.config = 318;
  EXPECT_THAT(EncodeAttr(a, paths_),
              HasSubstr("  config                           0x13e "
                        "(sched:sched_wakeup)\n"));
  a.config = 999;  // no such id
  EXPECT_THAT(EncodeAttr(a, paths_),
              HasSubstr("  config                           0x3e7\n"));
  EXPECT_THAT(EncodeAttr(a, NoKernelFs()),
              HasSubstr("  config                           0x3e7\n"));
}

// The real tracefs of this machine (mounted when missing and we are root).
TEST(EncodeAttrRealTracefsTest, SchedSwitchIsNamed) {
  SystemPaths paths;
  // access(2), not std::filesystem::exists: tracefs is root's only (mode
  // 0700) on many systems, and exists() throws on EACCES.
  const auto readable = [](const std::string& tracefs) {
    return access((tracefs + "/events/sched/sched_switch/id").c_str(), R_OK) ==
           0;
  };
  std::string dir;
  for (const std::string& candidate : paths.tracefs) {
    if (readable(candidate)) {
      dir = candidate;
      break;
    }
  }
  if (dir.empty() && geteuid() == 0) {
    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
    if (readable("/sys/kernel/tracing")) dir = "/sys/kernel/tracing";
  }
  if (dir.empty()) {
    GTEST_SKIP() << "no tracefs readable by this user (uid " << geteuid()
                 << ") on this machine";
  }
  uint64_t id = 0;
  std::ifstream(dir + "/events/sched/sched_switch/id") >> id;
  ASSERT_NE(id, 0u);
  Attr a;
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = id;
  EXPECT_THAT(
      EncodeAttr(a, paths),
      HasSubstr(absl::StrFormat(
          "  config                           %#x (sched:sched_switch)\n",
          id)));
}

// --- Cross-check against the real perf (linux-perf), when installed. ---

// Runs `perf <arguments> true` and returns the first perf_event_attr block
// perf printed with -vv, or "" when perf could not be run.
std::string PerfAttrBlock(const std::string& arguments) {
  // perf -vv prints the attributes on stderr.
  const std::string output =
      testing::RunShellLine("perf " + arguments + " true").err;
  size_t begin = output.find("perf_event_attr:\n");
  if (begin == std::string::npos) return "";
  size_t end = output.find("----", begin);
  return output.substr(
      begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Older perf (Debian 12's 6.1) prints type and config only when non-zero and
// without the "(NAME)" that newer perf appends; compare what both print.
std::string NormaliseTypeAndConfig(const std::string& block) {
  std::string out;
  for (absl::string_view line :
       absl::StrSplit(block, '\n', absl::SkipEmpty())) {
    std::string text(line);
    if (absl::StartsWith(line, "  type ") ||
        absl::StartsWith(line, "  config ")) {
      size_t paren = text.find(" (");
      if (paren != std::string::npos) text.resize(paren);
      if (absl::EndsWith(text, " 0")) continue;
    }
    absl::StrAppend(&out, text, "\n");
  }
  return out;
}

// The size perf printed, or 0.
uint32_t PerfPrintedSize(const std::string& block) {
  for (absl::string_view line : absl::StrSplit(block, '\n')) {
    uint32_t size = 0;
    if (absl::ConsumePrefix(&line, "  size") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &size)) {
      return size;
    }
  }
  return 0;
}

// What `perf stat` sets on every counting event it opens.
Attr PerfStatDefaults() {
  Attr a;
  a.sample_type = PERF_SAMPLE_IDENTIFIER;
  a.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a.disabled = a.inherit = a.enable_on_exec = true;
  return a;
}

TEST(EncodeAttrPerfTest, MatchesPerfStatVerbose) {
  if (testing::RunShellLine("perf stat -e cs true").code != 0) {
    GTEST_SKIP() << "perf (Debian package linux-perf) is not installed or "
                    "cannot count here";
  }
  struct Case {
    std::string event;
    Attr attr;
  };
  std::vector<Case> cases;
  {
    Attr a = PerfStatDefaults();
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    a.exclude_guest = true;
    cases.push_back({"cs", a});
  }
  {
    Attr a = PerfStatDefaults();
    a.type = PERF_TYPE_BREAKPOINT;
    a.bp_type = 3;
    a.config1 = 0x1000;
    a.config2 = 4;
    a.exclude_guest = true;
    cases.push_back({"mem:0x1000/4:rw", a});
  }
  {
    Attr a = PerfStatDefaults();
    a.type = PERF_TYPE_RAW;
    a.config = 0x1b;
    a.exclude_user = a.exclude_hv = true;
    cases.push_back({"r1b:k", a});
  }
  {
    Attr a = PerfStatDefaults();
    a.type = PERF_TYPE_HW_CACHE;
    a.config = 0x10000;
    a.exclude_guest = true;
    cases.push_back({"L1-dcache-load-misses", a});
  }
  for (Case& c : cases) {
    SCOPED_TRACE(c.event);
    std::string perf = PerfAttrBlock("stat -vv -e '" + c.event + "'");
    ASSERT_FALSE(perf.empty()) << "perf printed no perf_event_attr block";
    c.attr.size = PerfPrintedSize(perf);
    ASSERT_NE(c.attr.size, 0u) << perf;
    EXPECT_EQ(NormaliseTypeAndConfig(EncodeAttr(c.attr, NoKernelFs())),
              NormaliseTypeAndConfig(perf));
  }
}

TEST(EncodeAttrPerfTest, MatchesPerfRecordVerbose) {
  if (testing::RunShellLine("perf stat -e cs true").code != 0) {
    GTEST_SKIP() << "perf (Debian package linux-perf) is not installed or "
                    "cannot count here";
  }
  // Per process: another test run at the same time (another user's, or
  // root's, whose file this user could not replace) writes its own.
  std::string data = absl::StrCat(::testing::TempDir(), "/encode_test_perf.",
                                  getpid(), ".data");
  std::string perf =
      PerfAttrBlock("record -vv -e cs -F 99 -d -o '" + data + "'");
  std::remove(data.c_str());
  ASSERT_FALSE(perf.empty()) << "perf record printed no perf_event_attr";
  // What perf record sets for `-e cs -F 99 -d` (sample addresses).
  Attr a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  a.size = PerfPrintedSize(perf);
  a.sample_period = 99;
  a.freq = true;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC;
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
  a.disabled = a.inherit = a.mmap = a.comm = a.enable_on_exec = true;
  a.task = a.mmap_data = a.sample_id_all = a.exclude_guest = true;
  a.mmap2 = a.comm_exec = a.ksymbol = a.bpf_event = true;
  EXPECT_EQ(NormaliseTypeAndConfig(EncodeAttr(a, NoKernelFs())),
            NormaliseTypeAndConfig(perf));
}

TEST(EncodeAttrPmuTypeTest, DynamicTypesAreNamedFromSysfs) {
  std::filesystem::path root = std::filesystem::path(::testing::TempDir()) /
                               absl::StrFormat("encode_sysfs_%d", getpid());
  std::filesystem::remove_all(root);
  std::filesystem::path devices = root / "bus/event_source/devices";
  for (auto [name, type] : {std::pair<const char*, int>{"mypmu", 42},
                            {"software", 1},
                            {"other", 43}}) {
    std::filesystem::create_directories(devices / name);
    std::ofstream(devices / name / "type") << type << "\n";
  }
  SystemPaths paths = NoKernelFs();
  paths.sysfs = root.string();
  Attr a;
  a.type = 42;
  a.config = 0x3c;
  EXPECT_THAT(EncodeAttr(a, paths),
              HasSubstr("  type                             42 (mypmu)\n"));
  a.type = 44;  // no PMU has it
  EXPECT_THAT(EncodeAttr(a, paths),
              HasSubstr("  type                             44\n"));
  a.type = PERF_TYPE_SOFTWARE;  // fixed types keep their PERF_TYPE_* name
  EXPECT_THAT(EncodeAttr(a, paths),
              HasSubstr("  type                             1 "
                        "(PERF_TYPE_SOFTWARE)\n"));
  std::filesystem::remove_all(root);
}

// Every dynamic PMU of this machine (e.g. msr, uprobe, armv8_pmuv3_0).
TEST(EncodeAttrPmuTypeTest, RealDynamicPmusAreNamed) {
  const std::filesystem::path devices = SystemPaths().EventSourceDevices();
  int checked = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(devices, ec)) {
    uint32_t type = 0;
    std::ifstream(entry.path() / "type") >> type;
    if (type < PERF_TYPE_MAX) continue;
    Attr a;
    a.type = type;
    EXPECT_THAT(EncodeAttr(a),
                HasSubstr(absl::StrFormat("  %-32s %d (%s)\n", "type", type,
                                          entry.path().filename().string())));
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no dynamic PMU in " << devices;
}

}  // namespace
}  // namespace perfcounters
