// metrics.cc: the derived-metric table (metrics.h) and label matching.
#include "perfcounters/metrics.h"

#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grammar_internal.h"
#include "perfcounters/pmu.h"
#include "text_util.h"

namespace perfcounters {
namespace {

constexpr Metric kMetrics[] = {
    {"ipc", "instructions", "cycles", "instructions per cycle", "", false,
     "insn per cycle", false, true},
    {"cpi", "cycles", "instructions", "cycles per instruction", "", false},
    {"branch-miss-rate", "branch-misses", "branches",
     "mispredicted fraction of branches", "", false, "of all branches", true},
    {"cache-miss-rate", "cache-misses", "cache-references",
     "missed fraction of cache references", "", false, "of all cache refs",
     true},
    {"L1-dcache-load-miss-rate", "L1-dcache-load-misses", "L1-dcache-loads",
     "missed fraction of L1 data cache loads", "", false,
     "of all L1-dcache accesses", true},
    {"LLC-load-miss-rate", "LLC-load-misses", "LLC-loads",
     "missed fraction of last-level cache loads", "", false,
     "of all LL-cache accesses", true},
    {"dTLB-load-miss-rate", "dTLB-load-misses", "dTLB-loads",
     "missed fraction of data TLB loads", "", false,
     "of all dTLB cache accesses", true},
    {"iTLB-load-miss-rate", "iTLB-load-misses", "iTLB-loads",
     "missed fraction of instruction TLB loads", "", false,
     "of all iTLB cache accesses", true},
    {"frontend-stall-ratio", "stalled-cycles-frontend", "cycles",
     "fraction of cycles the frontend stalled", "", false,
     "frontend cycles idle", true},
    {"backend-stall-ratio", "stalled-cycles-backend", "cycles",
     "fraction of cycles the backend stalled", "", false, "backend cycles idle",
     true},
    {"retiring", "topdown-retiring", "slots",
     "fraction of issue slots that retired a uop", "topdown", true, "", false,
     true},
    {"bad-speculation", "topdown-bad-spec", "slots",
     "fraction of issue slots wasted on mispredicted paths", "topdown", true},
    {"frontend-bound", "topdown-fe-bound", "slots",
     "fraction of issue slots the frontend left empty", "topdown", true},
    {"backend-bound", "topdown-be-bound", "slots",
     "fraction of issue slots stalled for the backend", "topdown", true},
};

}  // namespace

std::span<const Metric> Metrics() { return kMetrics; }

const Metric* FindMetric(std::string_view name) {
  for (const Metric& m : kMetrics) {
    if (internal::IEquals(m.name, name)) return &m;
  }
  return nullptr;
}

std::string MetricFormula(const Metric& metric) {
  return internal::Cat(metric.numerator, " / ", metric.denominator);
}

bool IsMetricGroup(std::string_view name) {
  for (const Metric& m : kMetrics) {
    if (!m.group.empty() && internal::IEquals(m.group, name)) return true;
  }
  return false;
}

LabelParts SplitLabel(std::string_view label) {
  const size_t colon = label.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < label.size() &&
      internal::IsModifierString(label.substr(colon + 1))) {
    return {std::string(label.substr(0, colon)),
            std::string(label.substr(colon + 1))};
  }
  return {std::string(label), ""};
}

std::string InputLabel(std::string_view input, std::string_view modifiers,
                       std::string_view pmu) {
  std::string event(input);
  if (!pmu.empty()) event = internal::Cat(pmu, "/", input, "/");
  if (modifiers.empty()) return event;
  return internal::Cat(event, ":", modifiers);
}

std::string MetricLabel(const Metric& metric, std::string_view modifiers) {
  if (modifiers.empty()) return std::string(metric.name);
  return internal::Cat(metric.name, ":", modifiers);
}

absl::StatusOr<std::string> TopdownPmu(const SystemPaths& paths) {
  absl::StatusOr<std::vector<std::string>> pmus = ListPmus(paths);
  if (pmus.ok()) {
    for (const std::string& name : *pmus) {
      if (name != "cpu" && name != "cpu_core") continue;
      absl::StatusOr<Pmu> pmu = LoadPmu(name, paths);
      if (pmu.ok() && pmu->FindAlias("topdown-retiring") != nullptr &&
          pmu->FindAlias("slots") != nullptr) {
        return name;
      }
    }
  }
  return absl::NotFoundError(internal::Cat(
      "this CPU has no top-down events: neither cpu nor cpu_core under ",
      paths.EventSourceDevices(),
      " has events/slots and events/topdown-retiring (Intel core PMUs "
      "since Ice Lake publish them)"));
}

}  // namespace perfcounters
