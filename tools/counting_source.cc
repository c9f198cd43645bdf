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
