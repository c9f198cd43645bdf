#include "support/hw.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "absl/strings/str_cat.h"
#include "perfcounters/attr.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "support/event_helpers.h"
#include "support/loops.h"

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
  absl::StatusOr<Count> count = event->CountCall([] { probe = probe + 1; });
  if (!count.ok()) return std::string(count.status().message());
  if (count->value != 1) {
    return absl::StrCat(
        "a write breakpoint opened but counted ", count->value,
        " of 1 write (the hypervisor does not deliver debug exceptions)");
  }
  return "";
}

int InstructionsCapacity() {
  constexpr int kMost = 64;
  std::vector<Event> events;
  for (int i = 0; i < kMost; ++i) {
    Attr attr = HardwareUserAttr(PERF_COUNT_HW_INSTRUCTIONS);
    attr.disabled = false;
    attr.pinned = true;
    absl::StatusOr<Event> event = Event::Open(attr, "instructions:u");
    if (!event.ok()) break;
    events.push_back(*std::move(event));
    // A pinned event that does not fit goes into error state at once (its
    // read returns 0 bytes); the loop gives the others a moment to count.
    TwoInstructionLoop(1000);
    absl::StatusOr<Count> count = events.back().ReadCount();
    if (!count.ok() || count->running == 0) {
      return static_cast<int>(events.size()) - 1;
    }
  }
  return static_cast<int>(events.size());
}

uint16_t ExpectedPmcWidth(bool wide) {
#if defined(__aarch64__)
  return wide ? 64 : 32;
#elif defined(__x86_64__)
  (void)wide;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // Vendor "GenuineIntel": ebx "Genu", edx "ineI", ecx "ntel".
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x756e6547 &&
      eax >= 0xa && __get_cpuid(0xa, &eax, &ebx, &ecx, &edx) &&
      (eax & 0xff) >= 1) {
    return static_cast<uint16_t>((eax >> 16) & 0xff);  // bit width
  }
  return 48;
#else
  (void)wide;
  return 0;
#endif
}

bool ExactUserInstructions() {
  // The arm64 runner sets it for its -icount machine (tests/arm64/).
  return std::getenv("PERFCOUNTERS_ICOUNT_SHIFT") != nullptr;
}

}  // namespace perfcounters::testing
