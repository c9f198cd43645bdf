// perfcounters.h: the whole core library in one include.
//
// Hardware performance counters over perf_event_open(2): counting a region
// by event names (counters.h, over plan.h and the derived metrics of
// metrics.h), the perf event grammar (grammar.h) and the event tables
// (event_catalog.h, generic_events.h, perf_names.h, vendor_events.h,
// hybrid.h), the attr (attr.h), opened events and groups (event.h, group.h),
// readings, deltas and scaling (counts.h), capability probing and error
// explanations (capabilities.h), perf-style attr printing (encode.h), sysfs
// PMUs and tracepoints (pmu.h, tracepoint.h), sampling through the ring
// buffer (ring_buffer.h, records.h), profiles and their symbols (profile.h,
// symbols.h), user-space reads (user_read.h), the simulated source's event
// names (simulated_events.h), the machine's fingerprint (environment.h) and
// where the kernel's files are (paths.h). export.h only says what a shared
// build exports.
#ifndef PERFCOUNTERS_PERFCOUNTERS_H_
#define PERFCOUNTERS_PERFCOUNTERS_H_

#include "perfcounters/attr.h"              // IWYU pragma: export
#include "perfcounters/capabilities.h"      // IWYU pragma: export
#include "perfcounters/counters.h"          // IWYU pragma: export
#include "perfcounters/counts.h"            // IWYU pragma: export
#include "perfcounters/encode.h"            // IWYU pragma: export
#include "perfcounters/environment.h"       // IWYU pragma: export
#include "perfcounters/event.h"             // IWYU pragma: export
#include "perfcounters/event_catalog.h"     // IWYU pragma: export
#include "perfcounters/event_spec.h"        // IWYU pragma: export
#include "perfcounters/generic_events.h"    // IWYU pragma: export
#include "perfcounters/grammar.h"           // IWYU pragma: export
#include "perfcounters/group.h"             // IWYU pragma: export
#include "perfcounters/hybrid.h"            // IWYU pragma: export
#include "perfcounters/metrics.h"           // IWYU pragma: export
#include "perfcounters/paths.h"             // IWYU pragma: export
#include "perfcounters/perf_names.h"        // IWYU pragma: export
#include "perfcounters/plan.h"              // IWYU pragma: export
#include "perfcounters/pmu.h"               // IWYU pragma: export
#include "perfcounters/profile.h"           // IWYU pragma: export
#include "perfcounters/records.h"           // IWYU pragma: export
#include "perfcounters/ring_buffer.h"       // IWYU pragma: export
#include "perfcounters/simulated_events.h"  // IWYU pragma: export
#include "perfcounters/symbols.h"           // IWYU pragma: export
#include "perfcounters/tracepoint.h"        // IWYU pragma: export
#include "perfcounters/user_read.h"         // IWYU pragma: export
#include "perfcounters/vendor_events.h"     // IWYU pragma: export

#endif  // PERFCOUNTERS_PERFCOUNTERS_H_
