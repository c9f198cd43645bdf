// environment.cc: the run's fingerprint, read from /proc and /sys.
#include "perfcounters/environment.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_join.h"
#include "perfcounters/capabilities.h"
#include "sysfs_file.h"
#include "text_util.h"

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#ifndef PERFCOUNTERS_VERSION_STRING
#define PERFCOUNTERS_VERSION_STRING "unknown"
#endif

namespace perfcounters {
namespace {

using internal::Cat;
using internal::Split;
using internal::Trim;

// The file's text without surrounding whitespace; nullopt when it cannot
// be read or says nothing.
std::optional<std::string> ReadSysValue(const std::string& path) {
  absl::StatusOr<std::string> text = internal::ReadTextFile(path);
  if (!text.ok()) return std::nullopt;
  std::string value(Trim(*text));
  if (value.empty()) return std::nullopt;
  return value;
}

void PutField(Environment* env, const std::string& key,
              std::optional<std::string> value) {
  if (value.has_value() && !value->empty()) (*env)[key] = *std::move(value);
}

// "key : value" lines of the first processor block of /proc/cpuinfo.
std::vector<std::pair<std::string, std::string>> FirstCpuBlock(
    std::string_view cpuinfo) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (std::string_view line : Split(cpuinfo, '\n')) {
    if (Trim(line).empty()) {
      if (!fields.empty()) break;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    fields.emplace_back(std::string(Trim(line.substr(0, colon))),
                        std::string(Trim(line.substr(colon + 1))));
  }
  return fields;
}

std::optional<std::string> CpuField(
    const std::vector<std::pair<std::string, std::string>>& fields,
    std::string_view key) {
  for (const auto& [k, v] : fields) {
    if (k == key && !v.empty()) return v;
  }
  return std::nullopt;
}

// Whether the space-separated list `flags` has `flag`.
bool HasWord(std::string_view flags, std::string_view flag) {
  for (std::string_view word : Split(flags, ' ')) {
    if (Trim(word) == flag) return true;
  }
  return false;
}

// cpu.*, from the first processor of cpuinfo (x86 names, else arm64's).
// Returns the "flags" line, if any, for the hypervisor.
std::optional<std::string> ReadCpu(const SystemPaths& paths, Environment* env) {
  absl::StatusOr<std::string> cpuinfo =
      internal::ReadTextFile(paths.procfs + "/cpuinfo");
  if (!cpuinfo.ok()) return std::nullopt;
  const auto fields = FirstCpuBlock(*cpuinfo);
  const auto either = [&](std::string_view x86, std::string_view arm) {
    std::optional<std::string> v = CpuField(fields, x86);
    return v.has_value() ? v : CpuField(fields, arm);
  };
  PutField(env, "cpu.vendor", either("vendor_id", "CPU implementer"));
  PutField(env, "cpu.model_name", CpuField(fields, "model name"));
  PutField(env, "cpu.family", either("cpu family", "CPU architecture"));
  PutField(env, "cpu.model", either("model", "CPU part"));
  PutField(env, "cpu.variant", CpuField(fields, "CPU variant"));
  PutField(env, "cpu.stepping", either("stepping", "CPU revision"));
  PutField(env, "cpu.microcode", CpuField(fields, "microcode"));
  return CpuField(fields, "flags");
}

// The first CPU of a list such as "2-5,8", or nullopt.
std::optional<int> FirstCpu(std::string_view list) {
  int cpu = 0;
  bool digits = false;
  for (char c : list) {
    if (c < '0' || c > '9') break;
    if (cpu > 100000) return std::nullopt;
    cpu = cpu * 10 + (c - '0');
    digits = true;
  }
  if (!digits) return std::nullopt;
  return cpu;
}

// cpufreq.*: the frequency policy of the first CPU this process may run on.
void ReadFrequency(const SystemPaths& paths, int cpu, Environment* env) {
  const std::string system = paths.sysfs + "/devices/system/cpu";
  const std::string policy = Cat(system, "/cpu", cpu, "/cpufreq/");
  PutField(env, "cpufreq.driver", ReadSysValue(policy + "scaling_driver"));
  PutField(env, "cpufreq.governor", ReadSysValue(policy + "scaling_governor"));
  PutField(env, "cpufreq.energy_perf_preference",
           ReadSysValue(policy + "energy_performance_preference"));
  // intel_pstate says "no turbo"; acpi-cpufreq and amd-pstate say "boost".
  if (std::optional<std::string> no_turbo =
          ReadSysValue(system + "/intel_pstate/no_turbo")) {
    if (*no_turbo == "0" || *no_turbo == "1") {
      (*env)["cpufreq.boost"] = *no_turbo == "1" ? "off" : "on";
      return;
    }
  }
  for (const std::string& path :
       {policy + "boost", system + "/cpufreq/boost"}) {
    if (std::optional<std::string> boost = ReadSysValue(path)) {
      if (*boost == "0" || *boost == "1") {
        (*env)["cpufreq.boost"] = *boost == "1" ? "on" : "off";
        return;
      }
    }
  }
}

// hypervisor: its name (sysfs hypervisor/type, else the DMI vendor) where
// the CPU flags or sysfs say there is one, "none" where the x86 flags say
// bare metal; absent where nothing says (arm64 without sysfs hypervisor).
void ReadHypervisor(const SystemPaths& paths,
                    const std::optional<std::string>& flags, Environment* env) {
  const std::string dmi = paths.sysfs + "/class/dmi/id/";
  std::optional<std::string> vendor = ReadSysValue(dmi + "sys_vendor");
  PutField(env, "dmi.sys_vendor", vendor);
  PutField(env, "dmi.product_name", ReadSysValue(dmi + "product_name"));
  std::optional<std::string> type =
      ReadSysValue(paths.sysfs + "/hypervisor/type");
  const bool flagged = flags.has_value() && HasWord(*flags, "hypervisor");
  if (type.has_value()) {
    (*env)["hypervisor"] = *type;
  } else if (flagged) {
    (*env)["hypervisor"] = vendor.value_or("yes");
  } else if (flags.has_value()) {
    (*env)["hypervisor"] = "none";
  }
}

// pmu.*: the hardware CPU PMUs, the first one's model name and counters
// where its caps/ directory says.
void ReadPmu(const SystemPaths& paths, Environment* env) {
  const Capabilities caps = ProbeCapabilities(paths);
  if (caps.all_pmus.empty()) return;  // the directory could not be listed
  if (!caps.has_hardware_pmu()) {
    (*env)["pmu.hardware"] = "none";
    return;
  }
  (*env)["pmu.hardware"] = absl::StrJoin(caps.hardware_pmus, ",");
  const std::string dir = Cat(paths.EventSourceDevices(), "/",
                              caps.hardware_pmus.front(), "/caps/");
  PutField(env, "pmu.name", ReadSysValue(dir + "pmu_name"));
  PutField(env, "pmu.gp_counters", ReadSysValue(dir + "num_counters"));
}

// "always [madvise] never" -> "madvise".
std::optional<std::string> Bracketed(std::optional<std::string> text) {
  if (!text.has_value()) return std::nullopt;
  const size_t open = text->find('[');
  const size_t close = text->find(']', open);
  if (open == std::string::npos || close == std::string::npos) return text;
  return text->substr(open + 1, close - open - 1);
}

// A CPU list file that is empty (or "(null)") when the kernel has none.
std::optional<std::string> CpuListOrNone(const std::string& path) {
  absl::StatusOr<std::string> text = internal::ReadTextFile(path);
  if (!text.ok()) return std::nullopt;
  const std::string_view list = Trim(*text);
  if (list.empty() || list == "(null)") return "none";
  return std::string(list);
}

// Cpus_allowed_list of <procfs>/self/status.
std::optional<std::string> Affinity(const SystemPaths& paths) {
  absl::StatusOr<std::string> status =
      internal::ReadTextFile(paths.procfs + "/self/status");
  if (!status.ok()) return std::nullopt;
  for (std::string_view line : Split(*status, '\n')) {
    constexpr std::string_view kKey = "Cpus_allowed_list:";
    if (line.substr(0, kKey.size()) == kKey) {
      const std::string_view list = Trim(line.substr(kKey.size()));
      if (!list.empty()) return std::string(list);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ReadLoadAverage(const SystemPaths& paths) {
  std::optional<std::string> text = ReadSysValue(paths.procfs + "/loadavg");
  if (!text.has_value()) return std::nullopt;
  std::vector<std::string_view> parts = Split(*text, ' ');
  if (parts.size() < 3) return std::nullopt;
  return Cat(parts[0], " ", parts[1], " ", parts[2]);
}

const char* PerfcountersVersion() { return PERFCOUNTERS_VERSION_STRING; }

Environment ReadEnvironment(const SystemPaths& paths) {
  Environment env;
  const std::optional<std::string> flags = ReadCpu(paths, &env);
  const std::string system = paths.sysfs + "/devices/system/cpu/";
  PutField(&env, "cpus.online", ReadSysValue(system + "online"));
  const std::optional<std::string> affinity = Affinity(paths);
  PutField(&env, "cpus.affinity", affinity);
  PutField(&env, "cpus.isolated", CpuListOrNone(system + "isolated"));
  PutField(&env, "cpus.nohz_full", CpuListOrNone(system + "nohz_full"));
  ReadFrequency(paths, FirstCpu(affinity.value_or("0")).value_or(0), &env);
  PutField(&env, "smt.active", ReadSysValue(system + "smt/active"));
  PutField(&env, "smt.control", ReadSysValue(system + "smt/control"));
  ReadHypervisor(paths, flags, &env);
  ReadPmu(paths, &env);
  const std::string sysctl = paths.procfs + "/sys/kernel/";
  PutField(&env, "kernel.release", ReadSysValue(sysctl + "osrelease"));
  PutField(&env, "nmi_watchdog", ReadSysValue(sysctl + "nmi_watchdog"));
  PutField(&env, "perf_event_paranoid",
           ReadSysValue(sysctl + "perf_event_paranoid"));
  PutField(&env, "aslr", ReadSysValue(sysctl + "randomize_va_space"));
  PutField(&env, "thp.enabled",
           Bracketed(ReadSysValue(paths.sysfs +
                                  "/kernel/mm/transparent_hugepage/enabled")));
#if defined(__GLIBC__)
  env["glibc.version"] = gnu_get_libc_version();
#endif
  env["perfcounters.version"] = PerfcountersVersion();
  PutField(&env, "loadavg.start", ReadLoadAverage(paths));
  return env;
}

}  // namespace perfcounters
