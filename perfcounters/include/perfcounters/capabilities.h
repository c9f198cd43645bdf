// capabilities.h: what this machine and process may count, and human
// explanations for open failures.
//
// ProbeCapabilities() reads the paranoid level, capabilities, the PMUs in
// sysfs (is there a hardware PMU at all?), the NMI watchdog, rdpmc mode, mux
// interval and mlock limit. ExplainOpenError() turns an errno from
// perf_event_open into a Status whose message says what to change.
#ifndef PERFCOUNTERS_CAPABILITIES_H_
#define PERFCOUNTERS_CAPABILITIES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Facts about this machine's perf_event support. Optional members are empty
// when the fact could not be read.
struct Capabilities {
  // kernel.perf_event_paranoid (-1..4).
  std::optional<int> paranoid;
  // The process has CAP_PERFMON (or CAP_SYS_ADMIN, which implies it).
  bool cap_perfmon = false;
  bool cap_sys_admin = false;
  // Names of the hardware CPU PMUs found in sysfs (e.g. "cpu", "cpu_core",
  // "cpu_atom", "armv8_pmuv3_0"). Empty: no hardware PMU (typical of a VM
  // whose hypervisor exposes none).
  std::vector<std::string> hardware_pmus;
  // Every PMU name under <sysfs>/bus/event_source/devices.
  std::vector<std::string> all_pmus;
  // True when running under a hypervisor (cpuinfo "hypervisor" flag).
  bool hypervisor = false;
  // kernel.nmi_watchdog (1 takes a hardware counter on x86).
  std::optional<int> nmi_watchdog;
  // <pmu>/rdpmc (x86) or kernel.perf_user_access (arm64).
  std::optional<int> rdpmc;
  // perf_event_mux_interval_ms of the first hardware PMU that has one.
  std::optional<int> mux_interval_ms;
  // kernel.perf_event_mlock_kb.
  std::optional<int> mlock_kb;

  bool has_hardware_pmu() const { return !hardware_pmus.empty(); }
  // A human summary, one fact a line.
  std::string Describe() const;
};

// Reads the facts above (never fails; unreadable facts stay empty).
Capabilities ProbeCapabilities(const SystemPaths& paths = {});

// Explains a failed perf_event_open for `spec`: EACCES/EPERM name the sysctl
// or capability, ENOENT/EOPNOTSUPP say the event is not supported by this
// machine's PMU (and why, e.g. no hardware PMU in this VM), EINVAL inside a
// group says the group does not fit, EMFILE names the fd limit, EBUSY a
// pinned/exclusive conflict. The status code follows the errno
// (PermissionDenied, Unimplemented, InvalidArgument, ResourceExhausted,
// Unavailable, ...).
absl::Status ExplainOpenError(int err, const EventSpec& spec, bool in_group,
                              const Capabilities& caps);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_CAPABILITIES_H_
