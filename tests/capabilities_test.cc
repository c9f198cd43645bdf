// Tests of ProbeCapabilities against fake procfs/sysfs trees and this
// machine, and of ExplainOpenError's messages, including a real EMFILE.
#include "perfcounters/capabilities.h"

#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "support/event_helpers.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::Message;
using ::perfcounters::testing::SoftwareAttr;
using ::perfcounters::testing::Spec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A temporary directory tree, removed at the end of the test.
class FakeTree {
 public:
  FakeTree() {
    char tmpl[] = "/tmp/perfcounters_caps_XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  ~FakeTree() { std::filesystem::remove_all(root_); }

  // Writes `content` to root/relative, creating directories.
  void Write(const std::string& relative, const std::string& content) {
    const std::filesystem::path path = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

SystemPaths PathsFor(const FakeTree& tree) {
  SystemPaths paths;
  paths.sysfs = tree.root() + "/sys";
  paths.procfs = tree.root() + "/proc";
  paths.tracefs = {tree.root() + "/tracing"};
  return paths;
}

constexpr char kDevices[] = "sys/bus/event_source/devices/";

TEST(ProbeCapabilitiesTest, ReadsEveryFactFromAFakeX86Tree) {
  FakeTree tree;
  tree.Write("proc/sys/kernel/perf_event_paranoid", "2\n");
  tree.Write("proc/sys/kernel/nmi_watchdog", "1\n");
  tree.Write("proc/sys/kernel/perf_event_mlock_kb", "516\n");
  tree.Write("proc/self/status",
             "Name:\ttest\nCapInh:\t0000000000000000\n"
             "CapEff:\t0000004000000000\nCapBnd:\t000001ffffffffff\n");
  tree.Write("proc/cpuinfo",
             "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n");
  tree.Write(absl::StrCat(kDevices, "cpu/type"), "4\n");
  tree.Write(absl::StrCat(kDevices, "cpu/rdpmc"), "2\n");
  tree.Write(absl::StrCat(kDevices, "cpu/perf_event_mux_interval_ms"), "4\n");
  tree.Write(absl::StrCat(kDevices, "software/type"), "1\n");
  tree.Write(absl::StrCat(kDevices, "tracepoint/type"), "2\n");
  tree.Write(absl::StrCat(kDevices, "uncore_imc_0/type"), "17\n");
  tree.Write(absl::StrCat(kDevices, "uncore_imc_0/cpumask"), "0\n");
  tree.Write(absl::StrCat(kDevices, "cstate_core/type"), "18\n");
  tree.Write(absl::StrCat(kDevices, "cstate_core/cpumask"), "0-3\n");
  tree.Write(absl::StrCat(kDevices, "msr/type"), "9\n");

  const Capabilities caps = ProbeCapabilities(PathsFor(tree));
  EXPECT_EQ(caps.paranoid, 2);
  EXPECT_EQ(caps.nmi_watchdog, 1);
  EXPECT_EQ(caps.mlock_kb, 516);
  EXPECT_TRUE(caps.cap_perfmon);  // bit 38
  EXPECT_FALSE(caps.cap_sys_admin);
  EXPECT_TRUE(caps.hypervisor);
  EXPECT_THAT(caps.hardware_pmus, ElementsAre("cpu"));
  EXPECT_THAT(caps.all_pmus,
              ElementsAre("cpu", "cstate_core", "msr", "software", "tracepoint",
                          "uncore_imc_0"));
  EXPECT_EQ(caps.rdpmc, 2);
  EXPECT_EQ(caps.mux_interval_ms, 4);
  EXPECT_TRUE(caps.has_hardware_pmu());

  const std::string text = caps.Describe();
  EXPECT_THAT(text, HasSubstr("perf_event_paranoid: 2\n"));
  EXPECT_THAT(text, HasSubstr("CAP_PERFMON: yes\n"));
  EXPECT_THAT(text, HasSubstr("CAP_SYS_ADMIN: no\n"));
  EXPECT_THAT(text, HasSubstr("hardware PMUs: cpu\n"));
  EXPECT_THAT(text, HasSubstr("hypervisor: yes\n"));
  EXPECT_THAT(text, HasSubstr("nmi_watchdog: 1\n"));
  EXPECT_THAT(text, HasSubstr("rdpmc: 2\n"));
  EXPECT_THAT(text, HasSubstr("mux interval (ms): 4\n"));
  EXPECT_THAT(text, HasSubstr("perf_event_mlock_kb: 516\n"));
}

TEST(ProbeCapabilitiesTest, HybridAndArmPmus) {
  FakeTree tree;
  tree.Write("proc/self/status", "CapEff:\t0000000000200000\n");  // bit 21
  tree.Write("proc/sys/kernel/perf_user_access", "1\n");
  tree.Write(absl::StrCat(kDevices, "cpu_core/type"), "4\n");
  tree.Write(absl::StrCat(kDevices, "cpu_core/cpus"), "0-7\n");
  tree.Write(absl::StrCat(kDevices, "cpu_atom/type"), "10\n");
  tree.Write(absl::StrCat(kDevices, "cpu_atom/cpus"), "8-15\n");
  tree.Write(absl::StrCat(kDevices, "armv8_pmuv3_0/type"), "8\n");
  tree.Write(absl::StrCat(kDevices, "armv8_pmuv3_0/cpus"), "0\n");
  tree.Write(absl::StrCat(kDevices, "armv8_pmuv3_0/perf_event_mux_interval_ms"),
             "4\n");
  tree.Write(absl::StrCat(kDevices, "armv8_cortex_a53/type"), "9\n");
  tree.Write(absl::StrCat(kDevices, "arm_spe_0/type"), "11\n");
  tree.Write(absl::StrCat(kDevices, "arm_spe_0/cpus"), "0\n");
  tree.Write(absl::StrCat(kDevices, "breakpoint/type"), "5\n");
  tree.Write(absl::StrCat(kDevices, "kprobe/type"), "6\n");
  tree.Write(absl::StrCat(kDevices, "uprobe/type"), "7\n");
  tree.Write(absl::StrCat(kDevices, "power/type"), "12\n");
  // A directory without a type file is not a PMU one can open.
  tree.Write(absl::StrCat(kDevices, "cpu_half/cpus"), "0\n");

  const Capabilities caps = ProbeCapabilities(PathsFor(tree));
  EXPECT_TRUE(caps.cap_sys_admin);
  EXPECT_TRUE(caps.cap_perfmon);  // implied by CAP_SYS_ADMIN
  EXPECT_THAT(
      caps.hardware_pmus,
      ElementsAre("armv8_cortex_a53", "armv8_pmuv3_0", "cpu_atom", "cpu_core"));
  EXPECT_EQ(caps.mux_interval_ms, 4);  // the first PMU that has the file
  EXPECT_EQ(caps.rdpmc, 1);            // kernel.perf_user_access
  EXPECT_FALSE(caps.hypervisor);
  EXPECT_FALSE(caps.paranoid.has_value());
}

TEST(ProbeCapabilitiesTest, EmptyTreeLeavesFactsEmpty) {
  FakeTree tree;
  const Capabilities caps = ProbeCapabilities(PathsFor(tree));
  EXPECT_FALSE(caps.paranoid.has_value());
  EXPECT_FALSE(caps.nmi_watchdog.has_value());
  EXPECT_FALSE(caps.rdpmc.has_value());
  EXPECT_FALSE(caps.mux_interval_ms.has_value());
  EXPECT_FALSE(caps.mlock_kb.has_value());
  EXPECT_FALSE(caps.cap_perfmon);
  EXPECT_FALSE(caps.cap_sys_admin);
  EXPECT_FALSE(caps.hypervisor);
  EXPECT_TRUE(caps.all_pmus.empty());
  EXPECT_FALSE(caps.has_hardware_pmu());
  EXPECT_THAT(caps.Describe(), HasSubstr("perf_event_paranoid: unknown\n"));
  EXPECT_THAT(caps.Describe(), HasSubstr("hardware PMUs: none\n"));
}

TEST(ProbeCapabilitiesTest, ThisMachineMatchesProcAndSysfs) {
  const Capabilities caps = ProbeCapabilities();
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 0;
  ASSERT_TRUE(in >> paranoid);
  EXPECT_EQ(caps.paranoid, paranoid);
  std::vector<std::string> pmus;
  for (const auto& entry :
       std::filesystem::directory_iterator("/sys/bus/event_source/devices")) {
    pmus.push_back(entry.path().filename().string());
  }
  std::sort(pmus.begin(), pmus.end());
  EXPECT_EQ(caps.all_pmus, pmus);
  for (const std::string& pmu : caps.hardware_pmus) {
    EXPECT_THAT(pmus, ::testing::Contains(pmu));
    EXPECT_THAT(pmu,
                Not(::testing::AnyOf("software", "tracepoint", "breakpoint",
                                     "uprobe", "kprobe", "msr")));
  }
  if (geteuid() == 0) {
    // Root in the initial user namespace has every capability.
    EXPECT_TRUE(caps.cap_sys_admin);
    EXPECT_TRUE(caps.cap_perfmon);
  }
}

EventSpec CyclesSpec() {
  Attr attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  return Spec(attr, "cycles");
}

TEST(ExplainOpenErrorTest, PermissionNamesTheSysctlAndTheFix) {
  Capabilities caps;
  caps.paranoid = 2;
  absl::Status s = ExplainOpenError(EACCES, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_EQ(Message(s),
            "cycles: permission denied (EACCES): "
            "kernel.perf_event_paranoid is 2 and the process lacks "
            "CAP_PERFMON/CAP_SYS_ADMIN; counting kernel code needs level <= "
            "1: add the :u modifier to count user space only, or run `sysctl "
            "kernel.perf_event_paranoid=1`, or grant CAP_PERFMON");

  // Level 3 and up (a Debian/Android patch; upstream treats it as 2):
  // kernel code still needs level 1, and :u needs level 2 where enforced.
  caps.paranoid = 4;
  s = ExplainOpenError(EPERM, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_THAT(Message(s), HasSubstr("(EPERM)"));
  EXPECT_THAT(Message(s), HasSubstr("counting kernel code needs level <= 1"));
  EXPECT_THAT(Message(s), HasSubstr("kernels that enforce level 3 need "
                                    "level 2 for that"));
  EventSpec user_cycles = CyclesSpec();
  user_cycles.attr.exclude_kernel = true;
  s = ExplainOpenError(EPERM, user_cycles, false, caps);
  EXPECT_THAT(Message(s), HasSubstr("level 4 forbids perf_event_open"));
  EXPECT_THAT(Message(s), HasSubstr("kernel.perf_event_paranoid=2"));

  // An event that happens in the kernel gets no :u advice (it would count
  // 0 there).
  caps.paranoid = 2;
  Attr cs;
  cs.type = PERF_TYPE_SOFTWARE;
  cs.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  s = ExplainOpenError(EACCES, Spec(cs, "context-switches"), false, caps);
  EXPECT_THAT(Message(s), HasSubstr("context-switches happens in the kernel "
                                    "(with :u it would count 0)"));
  EXPECT_THAT(Message(s), HasSubstr("kernel.perf_event_paranoid=1"));
  EXPECT_THAT(Message(s), Not(HasSubstr("add the :u")));

  caps.paranoid = 1;
  EventSpec user = CyclesSpec();
  user.attr.exclude_kernel = true;
  s = ExplainOpenError(EACCES, user, false, caps);
  EXPECT_THAT(Message(s), HasSubstr("per-CPU and system-wide counting need "
                                    "level <= 0"));
  caps.cap_perfmon = true;
  s = ExplainOpenError(EACCES, user, false, caps);
  EXPECT_THAT(Message(s), HasSubstr("has CAP_PERFMON, so a security module"));
}

TEST(ExplainOpenErrorTest, NotSupported) {
  Capabilities vm;
  vm.hypervisor = true;
  absl::Status s = ExplainOpenError(ENOENT, CyclesSpec(), false, vm);
  EXPECT_TRUE(absl::IsUnimplemented(s));
  EXPECT_EQ(Message(s),
            "cycles: not supported by this machine's PMU (ENOENT): no "
            "hardware PMU in sysfs — this looks like a VM whose hypervisor "
            "exposes no PMU");

  Capabilities metal;
  s = ExplainOpenError(ENOENT, CyclesSpec(), false, metal);
  EXPECT_THAT(Message(s), HasSubstr("no hardware PMU in sysfs (no cpu"));

  Capabilities arm;
  arm.hardware_pmus = {"armv8_pmuv3_0"};
  EventSpec cache = CyclesSpec();
  cache.label = "L1-dcache-load-misses";
  cache.attr.type = PERF_TYPE_HW_CACHE;
  s = ExplainOpenError(ENOENT, cache, false, arm);
  EXPECT_EQ(Message(s),
            "L1-dcache-load-misses: not supported by this machine's PMU "
            "(ENOENT): the hardware PMU (armv8_pmuv3_0) does not implement "
            "this event");
  s = ExplainOpenError(EOPNOTSUPP, CyclesSpec(), false, arm);
  EXPECT_TRUE(absl::IsUnimplemented(s));
  EXPECT_THAT(Message(s), HasSubstr("(EOPNOTSUPP): the PMU cannot do what"));
}

TEST(ExplainOpenErrorTest, OtherErrnos) {
  Capabilities caps;
  caps.nmi_watchdog = 1;
  absl::Status s = ExplainOpenError(EINVAL, CyclesSpec(), true, caps);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_THAT(Message(s),
              HasSubstr("cycles: the group does not fit on the PMU (EINVAL)"));
  s = ExplainOpenError(EINVAL, CyclesSpec(), false, caps);
  EXPECT_THAT(Message(s), HasSubstr("the kernel rejected the attr (EINVAL)"));
  s = ExplainOpenError(EBUSY, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsUnavailable(s));
  EXPECT_THAT(Message(s), HasSubstr("pinned or exclusive"));
  EXPECT_THAT(Message(s), HasSubstr("sysctl kernel.nmi_watchdog=0"));
  s = ExplainOpenError(EMFILE, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsResourceExhausted(s));
  EXPECT_THAT(Message(s), HasSubstr("RLIMIT_NOFILE"));
  s = ExplainOpenError(ESRCH, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsNotFound(s));
  s = ExplainOpenError(ENOSPC, CyclesSpec(), false, caps);
  EXPECT_TRUE(absl::IsResourceExhausted(s));
  EXPECT_THAT(Message(s), HasSubstr("breakpoint"));
  s = ExplainOpenError(EIO, CyclesSpec(), false, caps);
  EXPECT_EQ(Message(s),
            "cycles: perf_event_open failed with EIO (Input/output error)");
}

// A real EMFILE: lower RLIMIT_NOFILE just above the fds in use and open
// events until the kernel refuses.
TEST(ExplainOpenErrorTest, RealEmfileNamesTheLimit) {
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  const int in_use = testing::OpenFdCount();
  rlimit low = old;
  low.rlim_cur = static_cast<rlim_t>(in_use) + 8;
  // fds are numbered from 0; the highest in use may be above the count.
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<Event> events;
  absl::Status failure;
  // User space only: an ordinary user at perf_event_paranoid 2 may open it.
  Attr dummy = SoftwareAttr(PERF_COUNT_SW_DUMMY);
  dummy.exclude_kernel = true;
  dummy.exclude_hv = true;
  for (int i = 0; i < 64 && failure.ok(); ++i) {
    absl::StatusOr<Event> e = Event::Open(dummy, "dummy");
    if (e.ok()) {
      events.push_back(*std::move(e));
    } else {
      failure = e.status();
    }
  }
  events.clear();
  setrlimit(RLIMIT_NOFILE, &old);
  EXPECT_TRUE(absl::IsResourceExhausted(failure)) << failure;
  EXPECT_THAT(Message(failure),
              HasSubstr(absl::StrCat("dummy: out of file descriptors (EMFILE):"
                                     " each counter uses one fd and the "
                                     "process limit RLIMIT_NOFILE is ",
                                     low.rlim_cur)));
}

}  // namespace
}  // namespace perfcounters
