// gbench_json_keys.cc: what each key of a Google Benchmark JSON entry is:
// one of gbench's fields, a counter, or one of benchmark_ext's side keys of
// a counted counter ("<label>.coverage", "<label>.mux_intervals",
// docs/benchmark_ext.md), kept beside the counters instead of read as
// counters of their own.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gbench_json_internal.h"
#include "oom_safe_map.h"

namespace perfcounters::tools::gbench_json_internal {

namespace {

const OomSafeMap<std::string, Field>& FieldTable() {
  static const auto* table = new OomSafeMap<std::string, Field>{
      {"name", Field::kName},
      {"run_name", Field::kRunName},
      {"run_type", Field::kRunType},
      {"aggregate_name", Field::kAggregateName},
      {"repetition_index", Field::kRepetitionIndex},
      {"iterations", Field::kIterations},
      {"real_time", Field::kRealTime},
      {"cpu_time", Field::kCpuTime},
      {"time_unit", Field::kTimeUnit},
      {"error_occurred", Field::kErrorOccurred},
      {"error_message", Field::kErrorMessage},
      {"skipped", Field::kSkipped},
      {"skip_message", Field::kSkipMessage},
      {"family_index", Field::kIgnored},
      {"per_family_instance_index", Field::kIgnored},
      {"repetitions", Field::kIgnored},
      {"threads", Field::kIgnored},
      {"label", Field::kIgnored},
      {"aggregate_unit", Field::kIgnored},
      {"big_o", Field::kIgnored},
      {"cpu_coefficient", Field::kIgnored},
      {"real_coefficient", Field::kIgnored},
      {"rms", Field::kIgnored},
      {"complexity", Field::kIgnored},
      {"perfcounters_profile", Field::kProfile},  // docs/profiles.md
  };
  return *table;
}

}  // namespace

Field ClassifyField(absl::string_view key) {
  const auto it = FieldTable().find(key);
  return it == FieldTable().end() ? Field::kCounter : it->second;
}

bool IsNotCountedText(absl::string_view s) {
  return s == "<not counted>" || s == "not counted" || s == "<not supported>" ||
         s == "not supported";
}

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
    entry.details.mutable_get().coverages.emplace_back(label, number);
  }
  if (key == SideKey::kMuxIntervals && number > 0) {
    entry.details.mutable_get().mux_intervals.emplace_back(label, number);
  }
}

}  // namespace perfcounters::tools::gbench_json_internal
