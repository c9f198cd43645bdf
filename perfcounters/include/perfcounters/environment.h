// environment.h: `Environment`, the fingerprint of the machine and process
// a measurement runs on — what can make two runs of the same code measure
// differently (CPU, microcode, kernel, frequency governor and boost, SMT,
// hypervisor, PMU, sysctls, C library, build). benchmark_ext writes it into
// gbench's JSON context (`perfcounters.env.<key>`); `perfcounters compare`
// and `report` diff two runs' fingerprints (docs/environment.md).
//
// Every field comes from /proc, /sys or the C library; a field the machine
// does not state is absent from the map, never empty or "0".
#ifndef PERFCOUNTERS_ENVIRONMENT_H_
#define PERFCOUNTERS_ENVIRONMENT_H_

#include <map>
#include <optional>
#include <string>

#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Field key -> value, e.g. "cpu.model_name" -> "AMD EPYC". The keys are
// listed in docs/environment.md; each is present only where the machine
// says.
using Environment = std::map<std::string, std::string>;

// What the machine and this process say now: cpu.* (vendor, model_name,
// family, model, stepping, microcode, online), kernel.release, cpufreq.*
// (driver, governor, energy_perf_preference, boost), smt.* (active,
// control), hypervisor ("none" where the CPU flags say bare metal),
// dmi.sys_vendor, dmi.product_name, pmu.* (hardware, name, gp_counters),
// nmi_watchdog, perf_event_paranoid, thp.enabled, aslr, cpus.affinity,
// cpus.isolated, cpus.nohz_full, glibc.version, perfcounters.version,
// loadavg.start. Reads files under `paths` (tests point it at a fake
// tree); glibc.version and perfcounters.version come from the running
// libraries. Never fails: what cannot be read is absent.
Environment ReadEnvironment(const SystemPaths& paths = {});

// The 1, 5 and 15 minute load averages of <procfs>/loadavg ("0.52 0.61
// 0.70"), or nullopt.
std::optional<std::string> ReadLoadAverage(const SystemPaths& paths = {});

// The version of this library ("0.1.0").
const char* PerfcountersVersion();

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_ENVIRONMENT_H_
