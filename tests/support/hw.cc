#include "support/hw.h"

#include <cstdlib>
#include <string>
#include <string_view>

#include "perfcounters/event.h"
#include "perfcounters/grammar.h"

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

}  // namespace perfcounters::testing
