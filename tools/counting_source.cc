// counting_source.cc: the counting source of a gbench JSON file.
#include "counting_source.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace perfcounters::tools {
namespace {

constexpr char kSourceKey[] = "perfcounters.source";

}  // namespace

std::string SourceDescription(const BenchmarkFile& file) {
  for (const auto& [key, value] : file.context) {
    if (key == kSourceKey) return value;
  }
  return "pmu (no perfcounters.source)";
}

bool IsEstimateMetric(const std::string& metric) {
  return absl::StartsWith(metric, "est_");
}

bool ExactSimulatedCount(const std::string& metric) {
  return metric == "instructions" || metric == "L1-dcache-loads" ||
         metric == "L1-dcache-stores" || metric == "branches";
}

bool SimulatedMachine(const std::string& machine) {
  return absl::EndsWith(machine, kSimulatedMachineSuffix);
}

ValueKind KindOfValue(const std::string& metric, bool simulated) {
  if (IsEstimateMetric(metric)) return ValueKind::kEstimate;
  if (!simulated) return ValueKind::kMeasured;
  if (metric == "real_time" || metric == "cpu_time" ||
      absl::EndsWith(metric, "_per_second")) {
    return ValueKind::kValgrindTime;
  }
  return ValueKind::kSimulated;
}

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kMeasured:
      return "measured";
    case ValueKind::kSimulated:
      return "simulated";
    case ValueKind::kEstimate:
      return "estimate";
    case ValueKind::kValgrindTime:
      return "valgrind_time";
  }
  return "?";
}

std::string ValueKindTag(ValueKind kind) {
  switch (kind) {
    case ValueKind::kMeasured:
      return "";
    case ValueKind::kSimulated:
      return "[simulated]";
    case ValueKind::kEstimate:
      return "[estimate]";
    case ValueKind::kValgrindTime:
      return "[valgrind's time]";
  }
  return "";
}

std::string TaggedMetric(const std::string& metric, bool simulated) {
  const std::string tag = ValueKindTag(KindOfValue(metric, simulated));
  return tag.empty() ? metric : absl::StrCat(metric, " ", tag);
}

std::string ValueKindText(ValueKind kind) {
  switch (kind) {
    case ValueKind::kMeasured:
      return "";
    case ValueKind::kSimulated:
      return "simulated";
    case ValueKind::kEstimate:
      return "estimate: a cost model, not measured";
    case ValueKind::kValgrindTime:
      return "valgrind's time, not the benchmark's";
  }
  return "";
}

std::string CountingSource(const BenchmarkFile& file) {
  for (const auto& [key, value] : file.context) {
    if (key == kSourceKey && absl::StartsWith(value, "simulate")) {
      return "simulate";
    }
  }
  return "pmu";
}

std::string MixedSourcesError(const BenchmarkFile& base,
                              const BenchmarkFile& next) {
  if (CountingSource(base) == CountingSource(next)) return "";
  return absl::StrCat(
      base.source, " was counted by ", SourceDescription(base), " and ",
      next.source, " by ", SourceDescription(next),
      ": a simulated value is never compared with a measured one (nor "
      "valgrind's times with native ones); run both with the same "
      "--perf_counters_source");
}

}  // namespace perfcounters::tools
