// compare_metrics.cc: what compare knows of a metric by its name (compare.h):
// the core's derived metric it is, its name in the outputs, whether it is a
// time and which way is better, and why it was not counted.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compare.h"
#include "perfcounters/metrics.h"

namespace perfcounters::tools {

TableMetric FindTableMetric(absl::string_view name) {
  LabelParts parts = SplitLabel(std::string_view(name.data(), name.size()));
  const Metric* metric = FindMetric(parts.event);
  if (metric == nullptr) return {};
  return {metric, std::move(parts.modifiers)};
}

std::string CompareMetricName(const Metric& metric,
                              absl::string_view modifiers) {
  if (&metric == FindMetric("ipc")) {
    return modifiers.empty() ? "IPC" : absl::StrCat("IPC:", modifiers);
  }
  return MetricLabel(metric,
                     std::string_view(modifiers.data(), modifiers.size()));
}

bool IsTimeValued(absl::string_view metric) {
  if (metric == "real_time" || metric == "cpu_time") return true;
  for (absl::string_view clock : {"task-clock", "cpu-clock"}) {
    if (absl::StartsWith(metric, clock) &&
        (metric.size() == clock.size() || metric[clock.size()] == ':')) {
      return true;
    }
  }
  return false;
}

Better BetterDirection(absl::string_view metric) {
  if (const TableMetric t = FindTableMetric(metric); t.metric != nullptr) {
    return t.metric->higher_is_better ? Better::kHigher : Better::kLower;
  }
  const std::string m = absl::AsciiStrToLower(metric);
  if (absl::StrContains(m, "per_second") || absl::StrContains(m, "hit")) {
    return Better::kHigher;
  }
  for (const char* worse : {"time", "cycles", "instructions", "miss", "fault",
                            "switch", "clock", "migrations", "stall"}) {
    if (absl::StrContains(m, worse)) return Better::kLower;
  }
  return Better::kUnknown;
}

std::vector<UnavailableGroup> UnavailableOf(const BenchmarkFile& file) {
  for (const auto& [key, value] : file.context) {
    if (key == "perfcounters.unavailable") {
      return ParseUnavailableContext(value);
    }
  }
  return {};
}

std::string NotCountedReason(const std::vector<UnavailableGroup>& unavailable,
                             absl::string_view metric) {
  std::vector<std::string> labels = {std::string(metric)};
  if (const TableMetric t = FindTableMetric(metric); t.metric != nullptr) {
    labels = {InputLabel(t.metric->numerator, t.modifiers, ""),
              InputLabel(t.metric->denominator, t.modifiers, "")};
  }
  std::vector<std::string> reasons;
  for (const UnavailableGroup& group : unavailable) {
    std::vector<absl::string_view> named;
    for (const std::string& label : labels) {
      if (std::find(group.keys.begin(), group.keys.end(), label) !=
          group.keys.end()) {
        named.push_back(label);
      }
    }
    if (!named.empty()) {
      reasons.push_back(
          absl::StrCat(absl::StrJoin(named, ", "), ": ", group.reason));
    }
  }
  return absl::StrJoin(reasons, "; ");
}

}  // namespace perfcounters::tools
