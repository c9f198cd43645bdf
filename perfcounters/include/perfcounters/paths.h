// paths.h: `SystemPaths`, where the library looks for sysfs, tracefs and
// procfs. Tests point these at fake trees; production code uses defaults.
#ifndef PERFCOUNTERS_PATHS_H_
#define PERFCOUNTERS_PATHS_H_

#include <string>
#include <vector>

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Roots of the kernel's pseudo file systems the library reads.
struct SystemPaths {
  // sysfs mount point; PMUs are under <sysfs>/bus/event_source/devices.
  std::string sysfs = "/sys";
  // procfs mount point; sysctls are under <procfs>/sys/kernel.
  std::string procfs = "/proc";
  // tracefs candidates, tried in order.
  std::vector<std::string> tracefs = {"/sys/kernel/tracing",
                                      "/sys/kernel/debug/tracing"};

  // <sysfs>/bus/event_source/devices
  std::string EventSourceDevices() const {
    return sysfs + "/bus/event_source/devices";
  }
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_PATHS_H_
