// hybrid.h: hybrid CPUs (Intel's cpu_core + cpu_atom, and newer cpu_*
// core PMUs): which core PMUs sysfs lists, and the grammar's rule for a
// generic hardware event that names no PMU on such a machine.
//
// The kernel opens a generic hardware or cache event whose config has no PMU
// type in bits 32-63 (PERF_PMU_TYPE_SHIFT) on ONE core PMU only (the one
// with type PERF_TYPE_RAW, cpu_core on Intel): a thread that runs on the
// other cores would go uncounted and its count would be extrapolated. perf
// silently opens one event per core PMU instead; perfcounters asks the user
// to choose, so that every reported number names the cores it counted.
// `cpu_core/cycles/` sets the PMU type in config bits 32-63 itself
// (grammar.h).
#ifndef PERFCOUNTERS_HYBRID_H_
#define PERFCOUNTERS_HYBRID_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// One core PMU of a hybrid CPU.
struct HybridPmu {
  // "cpu_core", "cpu_atom", ...
  std::string name;
  // Its perf_event_attr.type (the value for config bits 32-63).
  uint32_t type = 0;

  friend bool operator==(const HybridPmu&, const HybridPmu&) = default;
};

// The hybrid core PMUs under <sysfs>/bus/event_source/devices (every PMU
// named cpu_* with a readable type file), sorted by name. Fewer than two:
// not a hybrid machine (an empty list when sysfs cannot be read).
std::vector<HybridPmu> HybridCorePmus(const SystemPaths& paths = {});

// OK unless `spec` is a generic hardware or cache event without a PMU type
// in config bits 32-63 and the machine has two or more hybrid core PMUs;
// then InvalidArgument naming the PMUs and the events to write instead
// (e.g. cpu_core/cycles/u and cpu_atom/cycles/u).
absl::Status CheckGenericEventOnHybrid(const EventSpec& spec,
                                       const SystemPaths& paths = {});

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_HYBRID_H_
