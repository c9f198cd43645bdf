// compare_format.cc: how `perfcounters compare` writes one value, change
// or p-value for people, and which changes matter (compare.h, "Output").
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compare.h"
#include "compare_output.h"
#include "compare_output_internal.h"
#include "counting_source.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {
namespace {

// Four significant digits with trailing zeros kept (1.000, 12.50, 995.0),
// so that columns of times line up.
std::string FourDigits(double v) {
  const double a = std::fabs(v);
  if (a >= 1000 || a == 0) return absl::StrFormat("%.0f", v);
  if (a >= 100) return absl::StrFormat("%.1f", v);
  if (a >= 10) return absl::StrFormat("%.2f", v);
  if (a >= 1) return absl::StrFormat("%.3f", v);
  return absl::StrFormat("%.4g", v);
}

}  // namespace

std::string FormatChange(const std::optional<double>& change) {
  if (!change) return "n/a";
  if (std::isinf(*change)) return *change > 0 ? "+inf%" : "-inf%";
  return absl::StrFormat("%+.2f%%", *change);
}

std::string FormatP(const MetricComparison& m) {
  switch (m.evidence) {
    case Evidence::kNone:
      return "";
    case Evidence::kOneSample:
      return "n=1";
    case Evidence::kExact:
      return "exact";
    case Evidence::kUTest:
    case Evidence::kPaired:
      break;
  }
  if (!m.p_value) return "";
  if (*m.p_value < 0.001) return "<0.001";
  return absl::StrFormat("%.3f", *m.p_value);
}

bool Changed(const MetricComparison& m, double alpha) {
  if (!m.change_pct || !Significant(m, alpha)) return false;
  const double floor = m.evidence == Evidence::kExact ? 0.1 : 1.0;
  return std::fabs(*m.change_pct) >= floor;
}

int ChangeDirection(const MetricComparison& m) {
  const Better better = BetterDirection(m.metric);
  if (better == Better::kUnknown || !m.change_pct || *m.change_pct == 0 ||
      m.common_mode) {
    return 0;
  }
  const bool up = *m.change_pct > 0;
  return up == (better == Better::kLower) ? 1 : -1;
}

std::string FormatValue(absl::string_view metric, double value) {
  if (IsTimeValued(metric)) {
    const double a = std::fabs(value);
    if (a < 1e3) return absl::StrCat(FourDigits(value), " ns");
    if (a < 1e6) return absl::StrCat(FourDigits(value / 1e3), " us");
    if (a < 1e9) return absl::StrCat(FourDigits(value / 1e6), " ms");
    return absl::StrCat(FourDigits(value / 1e9), " s");
  }
  const double a = std::fabs(value);
  if (FindTableMetric(metric).metric != nullptr) {
    // Ratios: 3 decimals, 3 significant digits below 0.1 (a miss rate).
    return a >= 0.1 || a == 0 ? absl::StrFormat("%.3f", value)
                              : absl::StrFormat("%.3g", value);
  }
  if (a != 0 && a < 1e-3) {
    // 3 significant digits as a decimal (0.00000179, not 1.79197e-06).
    const int decimals =
        std::min(15, 2 - static_cast<int>(std::floor(std::log10(a))));
    return absl::StrFormat("%.*f", decimals, value);
  }
  if (a < 1e6) return absl::StrFormat("%.6g", value);
  if (a < 1e9) return absl::StrFormat("%.4gM", value / 1e6);
  if (a < 1e12) return absl::StrFormat("%.4gG", value / 1e9);
  return absl::StrFormat("%.4gT", value / 1e12);
}

namespace compare_internal {

// Whether neither side of `m` has a value (not counted, or absent).
bool NoValue(const MetricComparison& m) {
  return !m.base.median && !m.next.median;
}

// The metrics with no value on either side, once each, not once per
// benchmark: (metric, "not counted in either file (13 benchmarks): why").
std::vector<std::pair<std::string, std::string>> Uncounted(
    const Comparison& c) {
  std::vector<std::string> order;
  OomSafeMap<std::string, size_t> count;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      if (!NoValue(m)) continue;
      if (count[m.metric]++ == 0) order.push_back(m.metric);
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& metric : order) {
    const std::string base = NotCountedReason(c.base_unavailable, metric);
    const std::string next = NotCountedReason(c.next_unavailable, metric);
    std::string why = base == next || next.empty() ? base
                      : base.empty()
                          ? next
                          : absl::StrCat("base: ", base, "; new: ", next);
    out.emplace_back(
        metric,
        absl::StrCat("not counted in either file (", count[metric],
                     count[metric] == 1 ? " benchmark)" : " benchmarks)",
                     why.empty() ? "" : absl::StrCat(": ", why)));
  }
  return out;
}

std::string ComplexityNote(const Comparison& c) {
  if (c.complexity.empty()) return "";
  return absl::StrCat(
      "complexity rows (gbench's BigO/RMS fit of a family, not runs) are "
      "neither compared nor gated: ",
      EscapeControlBytes(absl::StrJoin(c.complexity, ", ")));
}

std::string LabelledMetric(const Comparison& c, const std::string& metric) {
  return TaggedMetric(metric, c.simulated);
}

std::string SimulatedNote(const Comparison& c) {
  if (!c.simulated) return "";
  return absl::StrCat(
      "counted by the simulator, not the PMU (", c.source_description,
      "): [simulated] values are exact counts or callgrind's cache and "
      "branch models of the simulated program (instructions, "
      "L1-dcache-loads/-stores and branches are the same every run: one run "
      "a side decides them, 'exact'), [estimate] values a cost "
      "model's (est_cycles, est_ipc: never measured cycles or IPC), "
      "[valgrind's time] the time under valgrind (docs/simulate.md)");
}

}  // namespace compare_internal

}  // namespace perfcounters::tools
