// encode.h: renders an Attr the way `perf stat -vv` prints perf_event_attr:
// perf's field names, one `name value` per line, zero fields omitted. This
// backs `perfcounters encode`.
#ifndef PERFCOUNTERS_ENCODE_H_
#define PERFCOUNTERS_ENCODE_H_

#include <string>

#include "perfcounters/attr.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The perf_event_attr block as perf prints it, e.g.
//   perf_event_attr:
//     type                             0 (PERF_TYPE_HARDWARE)
//     size                             128
//     config                           0 (PERF_COUNT_HW_CPU_CYCLES)
//     exclude_kernel                   1
// Tracepoint configs are named `category:name` from the tracefs found in
// `paths`, and dynamic PMU types by the sysfs PMU that has them (as perf
// does); where neither can be read only the number shows.
std::string EncodeAttr(const Attr& attr, const SystemPaths& paths = {});

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_ENCODE_H_
