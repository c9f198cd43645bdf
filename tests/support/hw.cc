#include "support/hw.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "perfcounters/attr.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "support/event_helpers.h"

namespace perfcounters::testing {

bool HardwareRequired() {
  const char* v = std::getenv("PERFCOUNTERS_REQUIRE_HW");
  return v != nullptr && std::string_view(v) == "1";
}

std::string WhyEventUnavailable(std::string_view event) {
  absl::StatusOr<EventSpec> spec = ParseEvent(event);
  if (!spec.ok()) return std::string(spec.status().message());
  absl::StatusOr<Event> opened = Event::Open(*spec);
  if (!opened.ok()) return std::string(opened.status().message());
  return "";
}

std::string WhyBreakpointsDoNotCount() {
  static volatile uint64_t probe = 0;
  Attr attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_W;
  attr.config1 = reinterpret_cast<uint64_t>(&probe);  // bp_addr
  attr.config2 = HW_BREAKPOINT_LEN_8;                 // bp_len
  attr.disabled = true;
  attr.exclude_kernel = true;
  attr.exclude_hv = true;
  attr.read_format = kCountFormat;
  absl::StatusOr<Event> event = Event::Open(attr, "mem:probe:w");
  if (!event.ok()) return std::string(event.status().message());
  absl::StatusOr<Count> count = event->Measure([] { probe = probe + 1; });
  if (!count.ok()) return std::string(count.status().message());
  if (count->value != 1) {
    return absl::StrCat(
        "a write breakpoint opened but counted ", count->value,
        " of 1 write (the hypervisor does not deliver debug exceptions)");
  }
  return "";
}

}  // namespace perfcounters::testing
