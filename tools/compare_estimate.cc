// compare_estimate.cc: which compared values are estimates (multiplexed:
// scaled from part of the batch, or over few multiplexing intervals) and
// how the outputs say so (compare.h).
#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare.h"
#include "perfcounters/counters.h"

namespace perfcounters::tools {

bool Estimated(const std::optional<double>& coverage) {
  return coverage && *coverage < kTrustedCoverage;
}

std::string CoverageNote(const std::optional<double>& coverage) {
  if (!Estimated(coverage)) return "";
  return absl::StrFormat(
      "multiplexed: on the PMU %.1f%% of the batch, an "
      "estimate",
      *coverage * 100);
}

std::optional<double> LowerCoverage(const std::optional<double>& a,
                                    const std::optional<double>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

bool Flagged(const SideStats& side) {
  return Estimated(side.coverage) ||
         (side.mux_intervals && *side.mux_intervals < kFewMuxIntervals);
}

std::string FlagNote(const SideStats& side) {
  if (!Flagged(side)) return "";
  const bool few = side.mux_intervals && *side.mux_intervals < kFewMuxIntervals;
  if (!few) return CoverageNote(side.coverage);
  std::string note = "multiplexed: ";
  if (Estimated(side.coverage)) {
    absl::StrAppendFormat(&note, "on the PMU %.1f%% of the batch, ",
                          *side.coverage * 100);
  }
  absl::StrAppendFormat(&note,
                        "over %.1f multiplexing intervals (fewer than %g): "
                        "a rough estimate",
                        *side.mux_intervals, kFewMuxIntervals);
  return note;
}

std::string EstimateLegend() {
  return absl::StrCat(
      kEstimateMarker,
      ": multiplexed, an estimate scaled from part of the batch (on the PMU "
      "less than all of it, or over fewer than ",
      kFewMuxIntervals, " multiplexing intervals)");
}

}  // namespace perfcounters::tools
