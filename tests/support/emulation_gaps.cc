// The one list of events that the emulated arm64 PMU (QEMU 7.2 PMUv3 under
// Debian's cloud-arm64 kernel, see tests/arm64/README.md) cannot count: every
// generic event other than cycles/instructions fails there with ENOENT, and
// every PERF_TYPE_HW_CACHE event does too. Tests of these events skip even in
// a run that requires hardware; every other hardware test must pass there.
#include <array>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "support/hw.h"

namespace perfcounters::testing {
namespace {

constexpr std::array<std::string_view, 10> kGenericGaps = {
    "cache-references",
    "cache-misses",
    "branches",
    "branch-instructions",
    "branch-misses",
    "bus-cycles",
    "ref-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "idle-cycles-frontend"};

// Hardware cache events are spelled <cache>-<op>-<result> or <cache>-<op>s.
constexpr std::array<std::string_view, 7> kCachePrefixes = {
    "l1-dcache-", "l1-icache-", "llc-", "dtlb-", "itlb-", "branch-", "node-"};

}  // namespace

bool IsEmulationGap(std::string_view event) {
  std::string name =
      absl::AsciiStrToLower(absl::string_view(event.data(), event.size()));
  if (auto colon = name.find(':'); colon != std::string::npos) {
    name.resize(colon);  // drop modifiers
  }
  for (std::string_view gap : kGenericGaps) {
    if (name == gap) return true;
  }
  for (std::string_view prefix : kCachePrefixes) {
    if (absl::StartsWith(name,
                         absl::string_view(prefix.data(), prefix.size()))) {
      return true;
    }
  }
  return false;
}

}  // namespace perfcounters::testing
