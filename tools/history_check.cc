// history_check.cc: `history check` without the command line
// (history_check.h).
#include "history_check.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/types/span.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "compare_rows.h"
#include "counting_source.h"
#include "nlohmann/json.hpp"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/internal/status_macros.h"
#include "statistics.h"

namespace perfcounters::tools {
namespace {

// The verdict line's words for `code` (ExitCode(gates)): an exit 2 says
// whether gates were refused for an environment difference, checked
// nothing, or both.
std::string VerdictWords(int code, const std::vector<GateResult>& gates) {
  if (code == 0) return "passed";
  if (code == 1) return "FAILED (a gate was violated)";
  size_t refused = 0;
  for (const GateResult& g : gates) {
    if (g.status == GateStatus::kRefused) ++refused;
  }
  if (refused == 0) {
    return "ERROR (a gate checked nothing or matched no benchmark)";
  }
  return absl::StrCat("ERROR (", refused, " of ", gates.size(),
                      " gate(s) refused: the environments differ; see the "
                      "gates above)");
}

double RelativeSpread(absl::Span<const double> v, double median) {
  if (v.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  if (median == 0) return *hi == *lo ? 0 : INFINITY;
  return (*hi - *lo) / std::fabs(median);
}

MetricComparison Judge(std::string metric, SideStats base, SideStats next) {
  MetricComparison m;
  m.metric = std::move(metric);
  m.base = std::move(base);
  m.next = std::move(next);
  if (!m.base.median || !m.next.median) return m;
  const double b = *m.base.median, n = *m.next.median;
  m.change_pct = b != 0   ? (n - b) / std::fabs(b) * 100
                 : n == b ? 0
                          : std::copysign(INFINITY, n);
  if (m.base.samples.size() < 2) {
    m.evidence = Evidence::kOneSample;
  } else if (RelativeSpread(m.base.samples, b) <= kExactSpread &&
             RelativeSpread(m.next.samples, n) <= kExactSpread) {
    m.evidence = Evidence::kExact;
  } else {
    m.evidence = Evidence::kUTest;  // p from the prediction test
    m.p_value = PredictionP(m.base.samples, n);
  }
  return m;
}

// What compare's skip reasons say of "base" and "new", for a history.
std::string HistoryWording(const std::string& reason) {
  return absl::StrReplaceAll(reason, {{" in base", " in the history"},
                                      {" from base", " from the history"},
                                      {" in new", " in the new run"},
                                      {" from new", " from the new run"},
                                      {"new: ", "the new run: "}});
}

// The rows of the gated metrics, as JSON and as text, and the estimates
// among their values.
struct CheckRows {
  nlohmann::json json = nlohmann::json::array();
  std::string text, estimates;
};

CheckRows CheckRowsOf(const Comparison& comparison,
                      const std::vector<GateResult>& gates, bool md) {
  CheckRows rows;
  for (const BenchmarkComparison& bc : comparison.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      bool gated = false;
      for (const GateResult& g : gates) gated |= g.metric == m.metric;
      if (!gated || !m.next.median) continue;
      // Measured, simulated, or a cost model's estimate: said with the name.
      const ComparisonRow cells =
          MakeComparisonRow(bc.name, m, comparison.simulated);
      nlohmann::json row = {{"benchmark", bc.name},
                            {"metric", m.metric},
                            {"value_kind", ValueKindName(cells.kind)},
                            {"history_runs", m.base.samples.size()},
                            {"new", *m.next.median}};
      row["history_median"] =
          m.base.median ? nlohmann::json(*m.base.median) : nlohmann::json();
      row["change_percent"] = m.change_pct && std::isfinite(*m.change_pct)
                                  ? nlohmann::json(*m.change_pct)
                                  : nlohmann::json();
      row["p_value"] =
          m.p_value ? nlohmann::json(*m.p_value) : nlohmann::json();
      // Multiplexed values are estimates: said, never trusted silently.
      row["coverage"] =
          m.next.coverage ? nlohmann::json(*m.next.coverage) : nlohmann::json();
      row["history_coverage"] =
          m.base.coverage ? nlohmann::json(*m.base.coverage) : nlohmann::json();
      rows.json.push_back(row);
      for (const auto& [side, coverage] :
           {std::pair{"the new run", m.next.coverage},
            std::pair{"the history", m.base.coverage}}) {
        if (Estimated(coverage)) {
          absl::StrAppend(&rows.estimates, md ? "- " : "  ", bc.name, " ",
                          m.metric, " in ", side, ": ", CoverageNote(coverage),
                          "\n");
        }
      }
      const char* mark =
          Estimated(m.next.coverage) || Estimated(m.base.coverage)
              ? " (multiplexed)"
              : "";
      const std::string history =
          m.base.median ? absl::StrCat(cells.base_value, " (",
                                       m.base.samples.size(), " runs)")
                        : "none";
      rows.text +=
          md ? absl::StrCat("| ", bc.name, " | ", cells.metric, " | ", history,
                            " | ", cells.next_value, " | ", cells.change, " | ",
                            cells.p, " |", mark, "\n")
             : absl::StrFormat("  %-40s %-16s %22s %12s %9s %7s%s\n", bc.name,
                               cells.metric, history, cells.next_value,
                               cells.change, cells.p, mark);
    }
  }
  return rows;
}

nlohmann::json CheckViolationsJson(const std::vector<GateViolation>& vs) {
  nlohmann::json a = nlohmann::json::array();
  for (const GateViolation& v : vs) {
    a.push_back({{"benchmark", v.benchmark},
                 {"metric", v.metric},
                 {"value", v.value},
                 {"p_value", v.p ? nlohmann::json(*v.p) : nlohmann::json()}});
  }
  return a;
}

// A gate's result as JSON.
nlohmann::json CheckGateJson(const GateResult& g) {
  nlohmann::json jg = {{"gate", g.gate},
                       {"status", StatusName(g.status)},
                       {"checked", g.checked},
                       {"message", HistoryWording(g.message)}};
  jg["violations"] = CheckViolationsJson(g.violations);
  jg["not_significant"] = CheckViolationsJson(g.not_significant);
  nlohmann::json skipped = nlohmann::json::array();
  for (const GateSkip& s : g.not_evaluated) {
    skipped.push_back(
        {{"benchmark", s.benchmark}, {"reason", HistoryWording(s.reason)}});
  }
  jg["not_evaluated"] = skipped;
  return jg;
}

// A gate's result as text: its line, its violations, what it left out.
void AppendCheckGateText(std::string& gates_text, const Comparison& comparison,
                         const GateResult& g, bool md) {
  absl::StrAppend(
      &gates_text, md ? "- " : "", "gate ", g.gate, ": ", StatusName(g.status),
      " (", g.checked, " checked, ", g.violations.size(), " violated, ",
      g.not_significant.size(), " beyond it but not significant)",
      g.message.empty() ? "" : ": ", HistoryWording(g.message), "\n");
  for (const GateViolation& v : g.violations) {
    absl::StrAppend(
        &gates_text, md ? "  - " : "    ", v.benchmark, " ",
        TaggedMetric(v.metric, comparison.simulated), " ",
        g.relative ? FormatChange(v.value) : FormatValue(v.metric, v.value),
        v.p ? absl::StrFormat(" (p %.3g)", *v.p) : "", "\n");
  }
  for (const GateSkip& s : g.not_evaluated) {
    absl::StrAppend(&gates_text, md ? "  - " : "    ",
                    "not checked: ", s.benchmark, ": ",
                    HistoryWording(s.reason), "\n");
  }
}

}  // namespace

absl::StatusOr<std::string> MachineHint(HistoryStore& store,
                                        const CheckOptions& options) {
  ASSIGN_OR_RETURN(auto machines, StoredMachines(store, options.branch));
  for (const auto& [machine, runs] : machines) {
    if (machine == options.machine) return std::string();
  }
  const std::string branch =
      options.branch.empty()
          ? ""
          : absl::StrCat(" of branch '", options.branch, "'");
  if (machines.empty()) {
    return absl::StrCat("the history has no runs", branch);
  }
  // Nearest names first.
  std::stable_sort(machines.begin(), machines.end(),
                   [&](const auto& a, const auto& b) {
                     return internal::EditDistance(options.machine, a.first) <
                            internal::EditDistance(options.machine, b.first);
                   });
  std::vector<std::string> listed;
  for (size_t i = 0; i < machines.size() && i < 5; ++i) {
    listed.push_back(absl::StrCat("'", machines[i].first, "' (",
                                  machines[i].second, " runs)"));
  }
  return absl::StrCat(
      "no run of machine '", options.machine, "' is in the history", branch,
      "; it has runs of ", absl::StrJoin(listed, ", "),
      machines.size() > listed.size() ? ", ..." : "", ": give --machine '",
      machines[0].first, "' to check against that machine's runs");
}

std::vector<std::string> CheckMetricNames(const BenchmarkFile& run) {
  Comparison c;
  for (BenchmarkMetrics& b : Summarize(run)) {
    BenchmarkComparison bc;
    for (auto& [metric, next] : b.metrics) {
      MetricComparison m;
      m.metric = std::move(metric);
      bc.metrics.push_back(std::move(m));
    }
    c.benchmarks.push_back(std::move(bc));
  }
  return MetricNames(c);
}

double PredictionP(absl::Span<const double> history, double value) {
  const size_t n = history.size();
  if (n < 2) return 1;
  double mean = 0;
  for (double v : history) mean += v;
  mean /= static_cast<double>(n);
  double ss = 0;
  for (double v : history) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (sd == 0) return value == mean ? 1 : 0;
  const double t =
      (value - mean) / (sd * std::sqrt(1 + 1 / static_cast<double>(n)));
  return StudentTwoSidedP(t, static_cast<double>(n - 1));
}

absl::StatusOr<Comparison> CompareWithHistory(HistoryStore& store,
                                              const BenchmarkFile& run,
                                              const std::string& digest,
                                              const CheckOptions& options) {
  Comparison out;
  out.base_source =
      absl::StrCat(store.Name(), " (machine ", options.machine,
                   options.branch.empty() ? ", every branch" : ", branch ",
                   options.branch, ")");
  out.next_source = run.source;
  // The history of a simulated run is simulated too (history add keeps it
  // a series of its own).
  out.simulated = CountingSource(run) == "simulate";
  if (out.simulated) out.source_description = SourceDescription(run);
  std::vector<BenchmarkMetrics> summary = Summarize(run);
  std::vector<std::string> names;
  names.reserve(summary.size());
  for (const BenchmarkMetrics& b : summary) names.push_back(b.name);
  out.benchmarks.reserve(summary.size());
  static const std::vector<SeriesPoint> kNone;
  // One benchmark at a time: its history is read, judged and dropped.
  auto judge = [&](size_t i, RecentHistory& history) {
    BenchmarkMetrics& b = summary[i];
    BenchmarkComparison bc;
    bc.name = b.name;
    bc.next_problem = b.problem;
    for (auto& [metric, next] : b.metrics) {
      const auto it = history.find(metric);
      const std::vector<SeriesPoint>& points =
          it == history.end() ? kNone : it->second;
      SideStats base;
      base.present = !points.empty();
      std::vector<double> values;
      std::vector<std::optional<double>> coverages;
      std::vector<int64_t> runs;
      for (const SeriesPoint& p : points) {
        if (p.value) {
          values.push_back(*p.value);
          coverages.push_back(p.coverage);
          runs.push_back(p.run_id);
        } else {
          ++base.not_counted;
        }
      }
      // A fingerprint change that can move the metric starts a new level.
      std::vector<size_t> boundaries;
      for (size_t k = 1; options.fingerprints && k < runs.size(); ++k) {
        if (!options.fingerprints->Moved(metric, runs[k - 1], runs[k])
                 .empty()) {
          boundaries.push_back(k);
        }
      }
      // The level since the last change point, at most `window` runs: after
      // a drift that ended, the runs since; during a drift, its runs.
      size_t first = 0;
      const std::vector<ChangePoint> cps =
          FindChangePointsWithin(values, boundaries, options.change_points);
      for (const ChangePoint& cp : cps) {
        const bool ended =
            cp.kind == ChangeKind::kDrift && cp.last_index + 1 < values.size();
        first = std::max(first, ended ? cp.last_index + 1 : cp.index);
      }
      if (values.size() - first > options.window) {
        first = values.size() - options.window;
      }
      base.samples.assign(values.begin() + first, values.end());
      for (size_t k = first; k < coverages.size(); ++k) {
        base.coverage = LowerCoverage(base.coverage, coverages[k]);
      }
      if (!base.samples.empty()) base.median = Median(base.samples);
      bc.metrics.push_back(Judge(metric, std::move(base), std::move(next)));
    }
    out.benchmarks.push_back(std::move(bc));
  };
  RETURN_IF_ERROR(ForEachRecentHistory(store, names, options.metrics,
                                       options.machine, options.branch,
                                       options.lookback, digest, judge));
  // Geometric means of new / history, as compare's.
  out.geomean = Geomeans(out.benchmarks);
  return out;
}

std::string RenderCheck(const Comparison& comparison,
                        const std::vector<GateResult>& gates, Format format,
                        const CheckOptions& options) {
  const bool md = format == Format::kMarkdown;
  const CheckRows rows = CheckRowsOf(comparison, gates, md);
  nlohmann::json json_gates = nlohmann::json::array();
  std::string gates_text;
  for (const GateResult& g : gates) {
    json_gates.push_back(CheckGateJson(g));
    AppendCheckGateText(gates_text, comparison, g, md);
  }
  const int code = ExitCode(gates);
  if (format == Format::kJson) {
    nlohmann::json out = {
        {"machine", options.machine},
        {"counting_source", comparison.simulated ? "simulate" : "pmu"},
        {"branch", options.branch},
        {"window", options.window},
        {"gates", json_gates},
        {"rows", rows.json},
        {"exit_code", code},
        {"trusted_coverage", kTrustedCoverage}};
    return out.dump(2) + "\n";
  }
  const std::string header =
      md ? "| benchmark | metric | history | new | change | p "
           "|\n|---|---|---|---|---|---|\n"
         : absl::StrFormat("  %-40s %-16s %22s %12s %9s %7s\n", "benchmark",
                           "metric", "history (median)", "new", "change", "p");
  return absl::StrCat(md ? "### perfcounters history check\n\n" : "",
                      "history: ", comparison.base_source,
                      "\nnew run: ", comparison.next_source, "\n",
                      comparison.simulated
                          ? absl::StrCat("counted by the simulator, not the "
                                         "PMU: ",
                                         comparison.source_description,
                                         " ([estimate]: a cost model's, never "
                                         "measured; docs/simulate.md)\n")
                          : "",
                      "\n", gates_text, "\n", header, rows.text,
                      rows.estimates.empty()
                          ? ""
                          : absl::StrCat("\nestimates (their verdicts rest on "
                                         "scaled counts):\n",
                                         rows.estimates),
                      "\nverdict: ", VerdictWords(code, gates), "\n");
}

}  // namespace perfcounters::tools
