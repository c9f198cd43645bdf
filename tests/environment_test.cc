// Tests of ReadEnvironment: on this machine against /proc, /sys, uname(2),
// sched_getaffinity(2) and confstr(3) read here independently; on fake
// trees, every field from its file and absent where the file is.
#include "perfcounters/environment.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/fake_sysfs.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::FakeTree;
using ::testing::Contains;
using ::testing::Key;
using ::testing::Not;

// The file's first line without its newline, or nullopt.
std::optional<std::string> FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// The value of the first "key<tabs>: value" line of /proc/cpuinfo.
std::optional<std::string> CpuinfoValue(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    while (!name.empty() && (name.back() == '\t' || name.back() == ' ')) {
      name.pop_back();
    }
    if (name != key) continue;
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    return value;
  }
  return std::nullopt;
}

// Checks `env[key]` against `expected`: equal where the machine says,
// absent where it does not.
void ExpectField(const Environment& env, const std::string& key,
                 const std::optional<std::string>& expected) {
  auto it = env.find(key);
  if (!expected.has_value() || expected->empty()) {
    EXPECT_EQ(it, env.end()) << key << " should be absent, is '"
                             << (it == env.end() ? "" : it->second) << "'";
    return;
  }
  ASSERT_NE(it, env.end()) << key << " is absent, the machine says '"
                           << *expected << "'";
  EXPECT_EQ(it->second, *expected) << key;
}

// The CPU list ("0-3,6") of sched_getaffinity's mask.
std::string AffinityList() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(cpu);
    if (last > cpu) out += "-" + std::to_string(last);
    cpu = last;
  }
  return out;
}

TEST(EnvironmentTest, ThisMachineAgreesWithIndependentReads) {
  const Environment env = ReadEnvironment();
  ExpectField(env, "cpu.vendor",
              CpuinfoValue("vendor_id").has_value()
                  ? CpuinfoValue("vendor_id")
                  : CpuinfoValue("CPU implementer"));
  ExpectField(env, "cpu.model_name", CpuinfoValue("model name"));
  ExpectField(env, "cpu.microcode", CpuinfoValue("microcode"));
  if (CpuinfoValue("vendor_id").has_value()) {
    ExpectField(env, "cpu.family", CpuinfoValue("cpu family"));
    ExpectField(env, "cpu.model", CpuinfoValue("model"));
    ExpectField(env, "cpu.stepping", CpuinfoValue("stepping"));
  }
  utsname uts;
  ASSERT_EQ(uname(&uts), 0);
  ExpectField(env, "kernel.release", std::string(uts.release));
  ExpectField(env, "cpus.affinity", AffinityList());
  const std::string cpu = "/sys/devices/system/cpu/";
  ExpectField(env, "cpus.online", FirstLine(cpu + "online"));
  ExpectField(env, "smt.active", FirstLine(cpu + "smt/active"));
  ExpectField(env, "smt.control", FirstLine(cpu + "smt/control"));
  // The first CPU of the affinity list's policy.
  const std::string first =
      AffinityList().substr(0, AffinityList().find_first_of(",-"));
  const std::string policy = cpu + "cpu" + first + "/cpufreq/";
  ExpectField(env, "cpufreq.driver", FirstLine(policy + "scaling_driver"));
  ExpectField(env, "cpufreq.governor", FirstLine(policy + "scaling_governor"));
  std::optional<std::string> boost;
  if (auto no_turbo = FirstLine(cpu + "intel_pstate/no_turbo")) {
    boost = *no_turbo == "1" ? "off" : "on";
  } else if (auto b = FirstLine(policy + "boost")) {
    boost = *b == "1" ? "on" : "off";
  } else if (auto b2 = FirstLine(cpu + "cpufreq/boost")) {
    boost = *b2 == "1" ? "on" : "off";
  }
  ExpectField(env, "cpufreq.boost", boost);
  ExpectField(env, "perf_event_paranoid",
              FirstLine("/proc/sys/kernel/perf_event_paranoid"));
  ExpectField(env, "nmi_watchdog", FirstLine("/proc/sys/kernel/nmi_watchdog"));
  ExpectField(env, "aslr", FirstLine("/proc/sys/kernel/randomize_va_space"));
  std::optional<std::string> thp =
      FirstLine("/sys/kernel/mm/transparent_hugepage/enabled");
  if (thp.has_value()) {
    const size_t open = thp->find('[');
    thp = thp->substr(open + 1, thp->find(']') - open - 1);
  }
  ExpectField(env, "thp.enabled", thp);
  // The CPU flags say whether there is a hypervisor.
  const std::optional<std::string> flags = CpuinfoValue("flags");
  if (flags.has_value()) {
    const bool hv =
        (" " + *flags + " ").find(" hypervisor ") != std::string::npos;
    ASSERT_THAT(env, Contains(Key("hypervisor")));
    if (hv) {
      EXPECT_NE(env.at("hypervisor"), "none");
    } else if (!FirstLine("/sys/hypervisor/type").has_value()) {
      EXPECT_EQ(env.at("hypervisor"), "none");
    }
  }
  ExpectField(env, "dmi.sys_vendor", FirstLine("/sys/class/dmi/id/sys_vendor"));
  // glibc's own answer through another interface: "glibc 2.36".
  char buf[64] = {};
  ASSERT_GT(confstr(_CS_GNU_LIBC_VERSION, buf, sizeof(buf)), 0u);
  ExpectField(env, "glibc.version", std::string(buf).substr(6));
  ExpectField(env, "perfcounters.version", std::string(PerfcountersVersion()));
  // Three load averages, numbers with two decimals.
  ASSERT_THAT(env, Contains(Key("loadavg.start")));
  EXPECT_THAT(env.at("loadavg.start"),
              ::testing::MatchesRegex("[0-9]+\\.[0-9][0-9] [0-9]+\\.[0-9][0-9] "
                                      "[0-9]+\\.[0-9][0-9]"));
  for (const auto& [key, value] : env) {
    EXPECT_FALSE(value.empty()) << key << " is empty";
  }
}

// An Intel machine's tree: every field from its file.
TEST(EnvironmentTest, FakeIntelTreeGivesEachFieldFromItsFile) {
  FakeTree tree;
  tree.Write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
             "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6154\n"
             "stepping\t: 4\nmicrocode\t: 0x2007006\n"
             "flags\t\t: fpu vme de sse\n\n"
             "processor\t: 1\nvendor_id\t: OtherVendor\nmicrocode\t: 0x1\n");
  tree.Write("proc/self/status", "Name:\tx\nCpus_allowed_list:\t2-3,5\n");
  tree.Write("proc/sys/kernel/osrelease", "6.1.0-test");
  tree.Write("proc/sys/kernel/nmi_watchdog", "1");
  tree.Write("proc/sys/kernel/perf_event_paranoid", "2");
  tree.Write("proc/sys/kernel/randomize_va_space", "0");
  tree.Write("proc/loadavg", "1.50 0.25 0.10 2/300 4242");
  tree.Write("sys/devices/system/cpu/online", "0-7");
  tree.Write("sys/devices/system/cpu/isolated", "");
  tree.Write("sys/devices/system/cpu/nohz_full", "(null)");
  tree.Write("sys/devices/system/cpu/smt/active", "1");
  tree.Write("sys/devices/system/cpu/smt/control", "on");
  // The policy of CPU 2 (the first allowed), not CPU 0's.
  tree.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
             "performance");
  tree.Write("sys/devices/system/cpu/cpu2/cpufreq/scaling_governor",
             "powersave");
  tree.Write("sys/devices/system/cpu/cpu2/cpufreq/scaling_driver",
             "intel_pstate");
  tree.Write("sys/devices/system/cpu/intel_pstate/no_turbo", "1");
  tree.Write("sys/kernel/mm/transparent_hugepage/enabled",
             "always madvise [never]");
  tree.AddX86Cpu();
  tree.Pmu("cpu", "caps/pmu_name", "skylake");
  tree.Pmu("cpu", "caps/num_counters", "4");
  tree.Pmu("software", "type", "1");
  const Environment env = ReadEnvironment(tree.Paths());
  const std::vector<std::pair<std::string, std::string>> want = {
      {"cpu.vendor", "GenuineIntel"},
      {"cpu.family", "6"},
      {"cpu.model", "85"},
      {"cpu.model_name", "Intel(R) Xeon(R) Gold 6154"},
      {"cpu.stepping", "4"},
      {"cpu.microcode", "0x2007006"},
      {"cpus.affinity", "2-3,5"},
      {"cpus.online", "0-7"},
      {"cpus.isolated", "none"},
      {"cpus.nohz_full", "none"},
      {"cpufreq.driver", "intel_pstate"},
      {"cpufreq.governor", "powersave"},
      {"cpufreq.boost", "off"},
      {"smt.active", "1"},
      {"smt.control", "on"},
      {"hypervisor", "none"},
      {"pmu.hardware", "cpu"},
      {"pmu.name", "skylake"},
      {"pmu.gp_counters", "4"},
      {"kernel.release", "6.1.0-test"},
      {"nmi_watchdog", "1"},
      {"perf_event_paranoid", "2"},
      {"aslr", "0"},
      {"thp.enabled", "never"},
      {"loadavg.start", "1.50 0.25 0.10"},
  };
  for (const auto& [key, value] : want) ExpectField(env, key, value);
  EXPECT_THAT(env, Not(Contains(Key("cpufreq.energy_perf_preference"))));
  EXPECT_THAT(env, Not(Contains(Key("dmi.sys_vendor"))));
}

// A guest whose flags say "hypervisor": named after sysfs, else DMI; an
// acpi-cpufreq boost file; an empty file is absent, not "".
TEST(EnvironmentTest, FakeGuestTreeNamesTheHypervisor) {
  FakeTree tree;
  tree.Write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
             "flags\t\t: fpu hypervisor sse\n");
  tree.Write("sys/class/dmi/id/sys_vendor", "QEMU");
  tree.Write("sys/devices/system/cpu/cpufreq/boost", "1");
  tree.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "");
  tree.Pmu("software", "type", "1");
  Environment env = ReadEnvironment(tree.Paths());
  ExpectField(env, "hypervisor", std::string("QEMU"));
  ExpectField(env, "dmi.sys_vendor", std::string("QEMU"));
  ExpectField(env, "cpufreq.boost", std::string("on"));
  ExpectField(env, "cpufreq.governor", std::nullopt);
  ExpectField(env, "pmu.hardware", std::string("none"));
  ExpectField(env, "cpu.microcode", std::nullopt);
  tree.Write("sys/hypervisor/type", "xen");
  env = ReadEnvironment(tree.Paths());
  ExpectField(env, "hypervisor", std::string("xen"));
}

// arm64's cpuinfo names; no flags line, so no word on a hypervisor.
TEST(EnvironmentTest, FakeArmTreeUsesArmNames) {
  FakeTree tree;
  tree.Write("proc/cpuinfo",
             "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"
             "CPU implementer\t: 0x41\nCPU architecture: 8\n"
             "CPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n");
  const Environment env = ReadEnvironment(tree.Paths());
  ExpectField(env, "cpu.vendor", std::string("0x41"));
  ExpectField(env, "cpu.family", std::string("8"));
  ExpectField(env, "cpu.variant", std::string("0x3"));
  ExpectField(env, "cpu.model", std::string("0xd0c"));
  ExpectField(env, "cpu.stepping", std::string("1"));
  ExpectField(env, "hypervisor", std::nullopt);
}

// An empty tree: only what the running libraries say.
TEST(EnvironmentTest, EmptyTreeLeavesEveryMachineFieldAbsent) {
  FakeTree tree;
  const Environment env = ReadEnvironment(tree.Paths());
  for (const auto& [key, value] : env) {
    EXPECT_TRUE(key == "glibc.version" || key == "perfcounters.version")
        << key << " = '" << value << "' from an empty tree";
  }
  EXPECT_THAT(env, Contains(Key("perfcounters.version")));
  EXPECT_EQ(ReadLoadAverage(tree.Paths()), std::nullopt);
}

}  // namespace
}  // namespace perfcounters
