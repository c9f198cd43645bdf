// event_spec.h: `EventSpec`, one parsed event ready to open, and
// `GroupSpec`, events the user asked to be scheduled together.
//
// An EventSpec is what the grammar (grammar.h) produces from text such as
// `cycles:u`, `r01c2`, `cpu/event=0x3c,umask=0/` or `sched:sched_switch`:
// the Attr to open, the label to report it under, and how to present its
// value (the sysfs alias's .scale and .unit).
#ifndef PERFCOUNTERS_EVENT_SPEC_H_
#define PERFCOUNTERS_EVENT_SPEC_H_

#include <string>
#include <vector>

#include "perfcounters/attr.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// One event: its attr plus how to name and present it.
struct EventSpec {
  // The label counters are reported under: the canonical `perf list` name
  // for known events (e.g. "cycles", "L1-dcache-load-misses") with the
  // user's modifiers appended ("cycles:u"), or the user's text otherwise.
  std::string label;
  // Exactly what the user typed for this event (modifiers included).
  std::string text;
  // The attr to open. read_format is left to the opener.
  Attr attr;
  // The PMU name for sysfs PMUs and generic events ("cpu", "software",
  // "tracepoint", "breakpoint", "armv8_pmuv3_0", ...).
  std::string pmu;
  // Multiply raw counts by this to get `unit` (sysfs events/<alias>.scale).
  double scale = 1.0;
  // Unit of the scaled value (sysfs events/<alias>.unit), e.g. "MiB".
  std::string unit;
  // For a vendor event name resolved through libpfm4 (vendor_events.h):
  // the table that resolved it, e.g. "skl", "icl", "amd64_fam19h_zen3",
  // "arm_ac57". Empty for every other form.
  std::string vendor_table;

  friend bool operator==(const EventSpec&, const EventSpec&) = default;
};

// Events to be opened as one group (the first is the leader). The grammar's
// `{a,b}` yields one GroupSpec with user_group = true; a plain event yields a
// GroupSpec of one with user_group = false.
struct GroupSpec {
  std::vector<EventSpec> events;
  // True when the user wrote braces: the events must stay together.
  bool user_group = false;
  // Group-wide modifiers written after the closing brace (e.g. `{a,b}:u`),
  // already applied to each member; kept for display.
  std::string modifiers;

  friend bool operator==(const GroupSpec&, const GroupSpec&) = default;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_EVENT_SPEC_H_
