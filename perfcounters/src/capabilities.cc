// capabilities.cc: probing what this machine and process may count, and
// explaining perf_event_open failures in terms of what to change.
#include "perfcounters/capabilities.h"

#include <linux/perf_event.h>
#include <sys/resource.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "errno_text.h"
#include "sysfs_file.h"

namespace perfcounters {
namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;

std::optional<std::string> ReadFile(const std::string& path) {
  absl::StatusOr<std::string> text = internal::ReadTextFile(path);
  if (!text.ok()) return std::nullopt;
  return *std::move(text);
}

std::optional<int> ReadInt(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  int value = 0;
  if (!text || !absl::SimpleAtoi(*text, &value)) return std::nullopt;
  return value;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// PMUs that have a `type` (and perhaps a cpumask) but are not a CPU's
// hardware counters.
bool IsNonCpuPmu(absl::string_view name) {
  constexpr std::array<absl::string_view, 9> kExact = {
      "software", "tracepoint", "breakpoint", "kprobe",   "uprobe",
      "msr",      "power",      "intel_pt",   "intel_bts"};
  constexpr std::array<absl::string_view, 6> kPrefixes = {
      "uncore", "cstate", "power_", "amd_", "arm_spe", "hisi_"};
  for (absl::string_view n : kExact) {
    if (name == n) return true;
  }
  for (absl::string_view p : kPrefixes) {
    if (absl::StartsWith(name, p)) return true;
  }
  return false;
}

// A CPU PMU: a known CPU PMU name, or a PMU dir whose `cpus` file lists the
// CPUs it counts (hybrid x86 and arm PMUs have one; uncore PMUs have a
// `cpumask` instead).
bool IsHardwareCpuPmu(const std::string& dir, absl::string_view name) {
  if (!Exists(dir + "/type")) return false;
  if (name == "cpu" || name == "cpu_core" || name == "cpu_atom") return true;
  if (IsNonCpuPmu(name)) return false;
  constexpr std::array<absl::string_view, 4> kArm = {"armv8_", "armv7_",
                                                     "armv6_", "arm_cortex"};
  for (absl::string_view p : kArm) {
    if (absl::StartsWith(name, p)) return true;
  }
  return Exists(dir + "/cpus");
}

bool HasCpuinfoFlag(const std::string& cpuinfo, absl::string_view flag) {
  for (absl::string_view line : absl::StrSplit(cpuinfo, '\n')) {
    if (!absl::StartsWith(line, "flags") && !absl::StartsWith(line, "Features"))
      continue;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    for (absl::string_view word :
         absl::StrSplit(line.substr(colon + 1), ' ', absl::SkipEmpty())) {
      if (word == flag) return true;
    }
  }
  return false;
}

// The CapEff mask from /proc/self/status, if readable.
std::optional<uint64_t> EffectiveCaps(const std::string& status) {
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (!absl::ConsumePrefix(&line, "CapEff:")) continue;
    uint64_t mask = 0;
    if (absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line), &mask)) {
      return mask;
    }
  }
  return std::nullopt;
}

bool IsHardwareType(uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
         type == PERF_TYPE_RAW;
}

// Why a hardware event cannot be found, as far as the probe can tell.
std::string NoPmuReason(const EventSpec& spec, const Capabilities& caps) {
  if (!IsHardwareType(spec.attr.type)) {
    return absl::StrCat("the kernel has no such event for PMU type ",
                        spec.attr.type, " (config 0x",
                        absl::Hex(spec.attr.config), ")");
  }
  if (!caps.has_hardware_pmu()) {
    return caps.hypervisor
               ? "no hardware PMU in sysfs — this looks like a VM whose "
                 "hypervisor exposes no PMU"
               : "no hardware PMU in sysfs (no cpu/armv8_pmuv3 PMU under "
                 "/sys/bus/event_source/devices)";
  }
  return absl::StrCat("the hardware PMU (",
                      absl::StrJoin(caps.hardware_pmus, ", "),
                      ") does not implement this event");
}

std::string ParanoidAdvice(const EventSpec& spec, const Capabilities& caps) {
  std::string level =
      caps.paranoid ? absl::StrCat(*caps.paranoid) : std::string("unknown");
  std::string advice = absl::StrCat("kernel.perf_event_paranoid is ", level);
  if (caps.cap_perfmon) {
    absl::StrAppend(&advice,
                    " and the process has CAP_PERFMON, so a security module "
                    "(or seccomp) probably denied perf_event_open");
    return advice;
  }
  absl::StrAppend(&advice, " and the process lacks CAP_PERFMON/CAP_SYS_ADMIN");
  // Upstream kernels treat levels above 2 as 2; Debian-patched ones forbid
  // unprivileged perf_event_open entirely at 3. Kernel counting is refused
  // at both, so that advice comes first: lowering 3 to 2 alone does not
  // let an event that includes the kernel open.
  if (caps.paranoid && *caps.paranoid >= 3 && spec.attr.exclude_kernel) {
    absl::StrAppend(&advice, "; level ", *caps.paranoid,
                    " (on kernels with Debian's patch) forbids perf_event_open "
                    "to unprivileged users: run `sysctl "
                    "kernel.perf_event_paranoid=2` (own threads, user space "
                    "only) or grant CAP_PERFMON");
    return advice;
  }
  if (!spec.attr.exclude_kernel && (!caps.paranoid || *caps.paranoid >= 2)) {
    absl::StrAppend(&advice,
                    "; counting kernel code needs level <= 1: add the :u "
                    "modifier to count user space only, or run `sysctl "
                    "kernel.perf_event_paranoid=1`, or grant CAP_PERFMON");
    if (caps.paranoid && *caps.paranoid >= 3) {
      absl::StrAppend(&advice,
                      " (:u works at level 3 on upstream kernels; kernels "
                      "with Debian's patch also need level 2 for it)");
    }
    return advice;
  }
  absl::StrAppend(&advice,
                  "; per-CPU and system-wide counting need level <= 0, "
                  "tracepoints and other users' processes need "
                  "CAP_PERFMON (or level -1): run `sysctl "
                  "kernel.perf_event_paranoid=-1` or grant CAP_PERFMON");
  return advice;
}

}  // namespace

std::string Capabilities::Describe() const {
  auto opt = [](const std::optional<int>& v) {
    return v ? absl::StrCat(*v) : std::string("unknown");
  };
  std::string out;
  absl::StrAppend(&out, "perf_event_paranoid: ", opt(paranoid), "\n");
  absl::StrAppend(&out, "CAP_PERFMON: ", cap_perfmon ? "yes" : "no", "\n");
  absl::StrAppend(&out, "CAP_SYS_ADMIN: ", cap_sys_admin ? "yes" : "no", "\n");
  absl::StrAppend(&out, "hardware PMUs: ",
                  hardware_pmus.empty() ? std::string("none")
                                        : absl::StrJoin(hardware_pmus, ", "),
                  "\n");
  absl::StrAppend(&out, "all PMUs: ", absl::StrJoin(all_pmus, ", "), "\n");
  absl::StrAppend(&out, "hypervisor: ", hypervisor ? "yes" : "no", "\n");
  absl::StrAppend(&out, "nmi_watchdog: ", opt(nmi_watchdog), "\n");
  absl::StrAppend(&out, "rdpmc: ", opt(rdpmc), "\n");
  absl::StrAppend(&out, "mux interval (ms): ", opt(mux_interval_ms), "\n");
  absl::StrAppend(&out, "perf_event_mlock_kb: ", opt(mlock_kb), "\n");
  return out;
}

Capabilities ProbeCapabilities(const SystemPaths& paths) {
  Capabilities caps;
  const std::string sysctl = paths.procfs + "/sys/kernel/";
  caps.paranoid = ReadInt(sysctl + "perf_event_paranoid");
  caps.nmi_watchdog = ReadInt(sysctl + "nmi_watchdog");
  caps.mlock_kb = ReadInt(sysctl + "perf_event_mlock_kb");

  if (std::optional<std::string> status =
          ReadFile(paths.procfs + "/self/status")) {
    if (std::optional<uint64_t> mask = EffectiveCaps(*status)) {
      caps.cap_sys_admin = (*mask >> kCapSysAdmin) & 1;
      caps.cap_perfmon = caps.cap_sys_admin || ((*mask >> kCapPerfmon) & 1);
    }
  }
  if (std::optional<std::string> cpuinfo =
          ReadFile(paths.procfs + "/cpuinfo")) {
    caps.hypervisor = HasCpuinfoFlag(*cpuinfo, "hypervisor");
  }

  const std::string devices = paths.EventSourceDevices();
  if (absl::StatusOr<std::vector<std::string>> names =
          internal::ListDirectory(devices);
      names.ok()) {
    caps.all_pmus = *std::move(names);
  }
  for (const std::string& name : caps.all_pmus) {
    if (IsHardwareCpuPmu(devices + "/" + name, name)) {
      caps.hardware_pmus.push_back(name);
    }
  }

  // The first hardware PMU that has the file says.
  for (const std::string& name : caps.hardware_pmus) {
    const std::string dir = devices + "/" + name;
    if (!caps.mux_interval_ms) {
      caps.mux_interval_ms = ReadInt(dir + "/perf_event_mux_interval_ms");
    }
    if (!caps.rdpmc) caps.rdpmc = ReadInt(dir + "/rdpmc");
  }
  if (!caps.rdpmc) caps.rdpmc = ReadInt(sysctl + "perf_user_access");
  return caps;
}

absl::Status ExplainOpenError(int err, const EventSpec& spec, bool in_group,
                              const Capabilities& caps) {
  const std::string what =
      absl::StrCat(spec.label, ": ", "perf_event_open failed with ",
                   internal::ErrnoText(err));
  const std::string& label = spec.label;
  const std::string name = internal::ErrnoName(err);
  switch (err) {
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(
          absl::StrCat(label, ": permission denied (", name,
                       "): ", ParanoidAdvice(spec, caps)));
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV: {
      std::string reason;
      if (err == EOPNOTSUPP && caps.has_hardware_pmu()) {
        reason =
            "the PMU cannot do what the attr asks (sampling, an exclude_* "
            "bit, precise_ip or branch sampling it lacks)";
      } else {
        reason = NoPmuReason(spec, caps);
      }
      return absl::UnimplementedError(
          absl::StrCat(label, ": not supported by this machine's PMU (", name,
                       "): ", reason));
    }
    case EINVAL:
      if (in_group) {
        return absl::InvalidArgumentError(absl::StrCat(
            label, ": the group does not fit on the PMU (", name,
            "): together the events need more counters than the PMU has, or "
            "mix events that cannot be scheduled together (e.g. different "
            "hardware PMUs); split the group or open the events separately"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": the kernel rejected the attr (", name,
          "): a value it does not accept for this event type (config 0x",
          absl::Hex(spec.attr.config), " of type ", spec.attr.type,
          ", precise_ip, sample_type, read_format or exclude bits) or an "
          "invalid pid/cpu/group leader"));
    case EMFILE: {
      rlimit limit{};
      getrlimit(RLIMIT_NOFILE, &limit);
      return absl::ResourceExhaustedError(absl::StrCat(
          label, ": out of file descriptors (", name,
          "): each counter uses one fd and the process limit RLIMIT_NOFILE "
          "is ",
          limit.rlim_cur, "; raise it (`ulimit -n`) or count fewer events"));
    }
    case ENFILE:
      return absl::ResourceExhaustedError(
          absl::StrCat(label, ": the system-wide open file limit is reached (",
                       name, "): raise fs.file-max or close files"));
    case ENOSPC:
      return absl::ResourceExhaustedError(
          absl::StrCat(label, ": no free slot (", name,
                       "): all hardware breakpoint registers are in use"));
    case EBUSY:
      return absl::UnavailableError(absl::StrCat(
          label, ": the PMU is busy (", name,
          "): another pinned or exclusive event holds the counters it "
          "needs",
          caps.nmi_watchdog.value_or(0) == 1
              ? " (the NMI watchdog holds one: `sysctl kernel.nmi_watchdog=0`)"
              : "",
          "; stop that user or drop pinned/exclusive"));
    case ESRCH:
      return absl::NotFoundError(
          absl::StrCat(label, ": no such thread or process (", name,
                       "): the target pid does not exist"));
    case EBADF:
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": bad file descriptor (", name,
          "): the group leader fd or the cgroup directory fd is not open"));
    case E2BIG:
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": the kernel does not accept this attr size (", name,
          "): it is older than these headers and a field it lacks is "
          "non-zero"));
    case EOVERFLOW:
      return absl::InvalidArgumentError(
          absl::StrCat(label,
                       ": sample_max_stack is above the kernel's "
                       "kernel.perf_event_max_stack (",
                       name, ")"));
    default:
      return absl::Status(absl::ErrnoToStatusCode(err), what);
  }
}

}  // namespace perfcounters
