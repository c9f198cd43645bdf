// drift.cc: common-mode drift of the times of two runs.
#include "drift.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compare_output.h"
#include "env_diff.h"
#include "gbench_json.h"
#include "oom_safe_map.h"
#include "statistics.h"

namespace perfcounters::tools {
namespace {

const MetricComparison* Find(const BenchmarkComparison& bc,
                             absl::string_view metric) {
  for (const MetricComparison& m : bc.metrics) {
    if (m.metric == metric) return &m;
  }
  return nullptr;
}

bool HasChange(const MetricComparison* m) {
  return m != nullptr && m->change_pct && std::isfinite(*m->change_pct);
}

// The time metrics of the comparison, in order of first appearance.
std::vector<std::string> TimeMetrics(const Comparison& c) {
  std::vector<std::string> out;
  for (const std::string& m : MetricNames(c)) {
    if (IsTimeValued(m)) out.push_back(m);
  }
  return out;
}

std::string Pct(double v) { return absl::StrFormat("%+.1f %%", v); }

// What the statement says when no member has instruction counts: what the
// binaries tell. `way`: "faster" or "slower".
std::string UncheckedText(SameBinary binary, const char* way) {
  switch (binary) {
    case SameBinary::kSame:
      return absl::StrCat(
          "; without instruction counts (no PMU), but the same binary ran "
          "both times (its build-id): the machine was ",
          way, " in the second run");
    case SameBinary::kDifferent:
      return absl::StrCat(
          "; without instruction counts (no PMU) and with another binary in "
          "the second run, whether the code changed cannot be told: the "
          "machine was ",
          way, " in the second run, or the code changed alike everywhere");
    case SameBinary::kUnknown:
      break;
  }
  return absl::StrCat(
      "; without instruction counts (no PMU) nothing tells the machine from "
      "the code: the machine was ",
      way, " in the second run, or the code changed alike everywhere");
}

// Whether nothing told the members' machine from their code.
bool Untold(const DriftMetric& d) {
  return d.unchecked == d.members.size() && d.binary != SameBinary::kSame;
}

// One benchmark that moved with the majority: a member (its instructions,
// where it has any, did not change), or an exception.
void Classify(const BenchmarkComparison& bc, double change, double alpha,
              DriftMetric* d, std::vector<double>* changes) {
  bool counted = false;
  for (const MetricComparison& m : bc.metrics) {
    if (ClassifyMetric(m.metric, "") != MetricClass::kInstructions ||
        !HasChange(&m)) {
      continue;
    }
    counted = true;
    if (Changed(m, alpha)) {
      d->exceptions.push_back({bc.name, m.metric, *m.change_pct, change, 0});
      return;
    }
  }
  d->members.push_back(bc.name);
  changes->push_back(change);
  if (!counted) ++d->unchecked;
}

}  // namespace

std::vector<DriftMetric> DetectDrift(const Comparison& comparison, double alpha,
                                     SameBinary binary) {
  std::vector<DriftMetric> out;
  for (const std::string& metric : TimeMetrics(comparison)) {
    DriftMetric d;
    d.metric = metric;
    d.binary = binary;
    std::vector<std::pair<const BenchmarkComparison*, double>> up, down;
    for (const BenchmarkComparison& bc : comparison.benchmarks) {
      const MetricComparison* m = Find(bc, metric);
      if (!HasChange(m)) continue;
      ++d.compared;
      if (!Changed(*m, alpha)) continue;
      (*m->change_pct > 0 ? up : down).emplace_back(&bc, *m->change_pct);
    }
    const size_t need = std::max(kMinDriftBenchmarks, d.compared / 2 + 1);
    const auto& major = up.size() >= down.size() ? up : down;
    if (major.size() < need) continue;
    d.direction = &major == &up ? 1 : -1;
    std::vector<double> changes;
    for (const auto& [bc, change] : major) {
      Classify(*bc, change, alpha, &d, &changes);
    }
    // Mostly the code's changes: no drift to name.
    if (d.members.size() < need) continue;
    d.low_pct = *std::min_element(changes.begin(), changes.end());
    d.high_pct = *std::max_element(changes.begin(), changes.end());
    d.median_pct = Median(changes);
    for (DriftException& e : d.exceptions) {
      e.against_drift_pct =
          ((1 + e.time_change_pct / 100) / (1 + d.median_pct / 100) - 1) * 100;
    }
    out.push_back(std::move(d));
  }
  return out;
}

void MarkCommonMode(const std::vector<DriftMetric>& drifts,
                    Comparison* comparison) {
  for (const DriftMetric& d : drifts) {
    // The exceptions' times too: their raw change is mostly the drift's,
    // so it is no headline either way; DriftText gives their change
    // against the drift, and their instruction change is headlined.
    OomSafeSet<std::string> members(d.members.begin(), d.members.end());
    for (const DriftException& e : d.exceptions) members.insert(e.benchmark);
    for (BenchmarkComparison& bc : comparison->benchmarks) {
      if (!members.contains(bc.name)) continue;
      for (MetricComparison& m : bc.metrics) {
        if (m.metric == d.metric) m.common_mode = true;
      }
    }
  }
}

std::string DriftText(const std::vector<DriftMetric>& drifts, bool markdown) {
  std::string out;
  const char* code = markdown ? "`" : "";
  for (const DriftMetric& d : drifts) {
    const char* way = d.direction < 0 ? "faster" : "slower";
    absl::StrAppend(
        &out, markdown ? "**Common-mode drift:** " : "common-mode drift: ",
        d.members.size(), " of ", d.compared, " benchmarks' ", code, d.metric,
        code, " moved ", Pct(d.low_pct), " to ", Pct(d.high_pct),
        " together (median ", Pct(d.median_pct), ")");
    if (d.unchecked == d.members.size()) {
      absl::StrAppend(&out, UncheckedText(d.binary, way));
    } else {
      absl::StrAppend(
          &out, " while their instruction counts did not",
          d.unchecked == 0 ? ""
          : d.binary == SameBinary::kSame
              ? absl::StrCat(" (", d.unchecked,
                             " of them have none to check, but the same "
                             "binary ran both times)")
              : absl::StrCat(" (", d.unchecked, " of them have none to check)"),
          ": the machine was ", way, " in the second run");
    }
    absl::StrAppend(&out, "; these ", d.metric,
                    " changes are not counted as improvements or "
                    "regressions\n");
    for (const DriftException& e : d.exceptions) {
      absl::StrAppend(&out, markdown ? "- " : "  ", code,
                      EscapeControlBytes(e.benchmark), code, ": ",
                      e.instructions_metric, " ",
                      Pct(e.instructions_change_pct), ", ", d.metric, " ",
                      Pct(e.time_change_pct), " (", Pct(e.against_drift_pct),
                      " against the drift): the code changed; its ", d.metric,
                      " change counts only against the drift, not as an "
                      "improvement or regression\n");
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json DriftJson(const std::vector<DriftMetric>& drifts) {
  using json = nlohmann::ordered_json;
  json out = json::array();
  for (const DriftMetric& d : drifts) {
    json x;
    x["metric"] = d.metric;
    x["direction"] = d.direction < 0 ? "faster" : "slower";
    x["compared"] = d.compared;
    x["members"] = d.members;
    x["low_pct"] = d.low_pct;
    x["high_pct"] = d.high_pct;
    x["median_pct"] = d.median_pct;
    x["without_instruction_counts"] = d.unchecked;
    x["binary"] = SameBinaryName(d.binary);
    json exceptions = json::array();
    for (const DriftException& e : d.exceptions) {
      exceptions.push_back(
          {{"benchmark", e.benchmark},
           {"instructions_metric", e.instructions_metric},
           {"instructions_change_pct", e.instructions_change_pct},
           {"time_change_pct", e.time_change_pct},
           {"against_drift_pct", e.against_drift_pct}});
    }
    x["exceptions"] = std::move(exceptions);
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<std::string> NoteDriftOnGates(
    const std::vector<DriftMetric>& drifts, std::vector<GateResult>* results) {
  std::vector<std::string> notes;
  for (GateResult& g : *results) {
    for (const DriftMetric& d : drifts) {
      if (g.metric != d.metric) continue;
      const std::string note = absl::StrCat(
          "verdict unreliable: ", d.members.size(), " of ", d.compared,
          " benchmarks' ", d.metric, " moved ", Pct(d.low_pct), " to ",
          Pct(d.high_pct),
          Untold(d) ? " together (common-mode drift: the machine, or the "
                      "code alike everywhere, which cannot be told apart "
                      "without instruction counts)"
                    : " together (common-mode drift: the machine, not the "
                      "code)",
          d.unchecked == d.members.size()
              ? "; without a PMU, gate the simulated source's instruction "
                "counts (--perf_counters_source=simulate, docs/simulate.md), "
                "or rerun both builds interleaved (perfcounters ab)"
              : "; gate instructions, or rerun both builds interleaved "
                "(perfcounters ab)");
      absl::StrAppend(&g.message, g.message.empty() ? "" : "; ", note);
      notes.push_back(
          absl::StrCat("gate ", ShortForMessage(g.gate), ": ", note));
    }
  }
  return notes;
}

}  // namespace perfcounters::tools
