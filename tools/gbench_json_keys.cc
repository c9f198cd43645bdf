// gbench_json_side_keys.cc: benchmark_ext's side keys of a counted counter
// in a Google Benchmark JSON row ("<label>.coverage",
// "<label>.mux_intervals", docs/benchmark_ext.md), kept beside the counters
// instead of read as counters of their own.
#include <cmath>
#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gbench_json_internal.h"

namespace perfcounters::tools::gbench_json_internal {

SideKey SplitSideKey(absl::string_view key, absl::string_view& label) {
  constexpr absl::string_view kCoverage = ".coverage";
  constexpr absl::string_view kMuxIntervals = ".mux_intervals";
  if (absl::EndsWith(key, kCoverage)) {
    label = key.substr(0, key.size() - kCoverage.size());
    return SideKey::kCoverage;
  }
  if (absl::EndsWith(key, kMuxIntervals)) {
    label = key.substr(0, key.size() - kMuxIntervals.size());
    return SideKey::kMuxIntervals;
  }
  return SideKey::kNone;
}

void AddSideValue(SideKey key, uint32_t label, bool is_number, double number,
                  RunEntry& entry) {
  if (!is_number || !std::isfinite(number)) return;
  if (key == SideKey::kCoverage && number >= 0 && number <= 1) {
    entry.coverages.emplace_back(label, number);
  }
  if (key == SideKey::kMuxIntervals && number > 0) {
    entry.mux_intervals.emplace_back(label, number);
  }
}

}  // namespace perfcounters::tools::gbench_json_internal
