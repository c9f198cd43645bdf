// report.cc: the HTML/SVG report of `perfcounters report` (see report.h).
#include "report.h"

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
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "counting_source.h"
#include "drift.h"
#include "env_diff.h"
#include "oom_safe_map.h"
#include "report_html.h"
#include "report_profile.h"
#include "report_summary.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;

// One benchmark of one metric, with the size of the last run's change
// against the first for sorting.
struct MetricRow : report_internal::Row {
  std::optional<double> sort_key;
};

// The reason `metric` was not counted in a run, from the file's context.
std::string NotCountedInRun(const BenchmarkFile& file,
                            const std::string& metric) {
  std::string reason = NotCountedReason(UnavailableOf(file), metric);
  if (!reason.empty()) return reason;
  return "no reason recorded in the file (its context has no "
         "perfcounters.unavailable entry for it)";
}

}  // namespace

std::vector<std::string> RunLabels(const std::vector<std::string>& paths) {
  // Split each path into components, then take the fewest trailing
  // components that make the labels of equal file names distinct.
  std::vector<std::vector<std::string>> parts;
  for (const std::string& p : paths) {
    parts.push_back(absl::StrSplit(p, '/', absl::SkipEmpty()));
    if (parts.back().empty()) parts.back().push_back(p);
  }
  std::vector<std::string> labels(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    size_t depth = 1;
    for (; depth <= parts[i].size(); ++depth) {
      auto tail = [&](size_t j) {
        const auto& v = parts[j];
        const size_t d = std::min(depth, v.size());
        return absl::StrJoin(v.end() - d, v.end(), "/");
      };
      bool unique = true;
      for (size_t j = 0; j < paths.size(); ++j) {
        if (j != i && paths[j] != paths[i] && tail(j) == tail(i)) {
          unique = false;
        }
      }
      if (unique) {
        labels[i] = tail(i);
        break;
      }
    }
    if (labels[i].empty()) labels[i] = paths[i];
  }
  // The same path twice: number the repeats.
  for (size_t i = 0; i < paths.size(); ++i) {
    size_t n = 1;
    for (size_t j = 0; j < i; ++j) n += paths[j] == paths[i];
    if (n > 1) absl::StrAppend(&labels[i], " #", n);
  }
  return labels;
}

namespace {

// Every run's summaries and each later run's comparison with the first, as
// rows per metric and benchmark (in order of first appearance).
struct ReportData {
  std::vector<std::string> labels;
  std::vector<std::vector<BenchmarkMetrics>> summaries;
  std::vector<Comparison> comparisons;  // [0] unused
  std::vector<std::string> metrics;
  std::vector<std::vector<MetricRow>> rows;  // [metric][benchmark]
  std::vector<std::string> problems;
};

void Collect(const std::vector<BenchmarkFile>& runs, double alpha,
             ReportData* d) {
  std::vector<std::string> paths;
  for (const BenchmarkFile& f : runs) paths.push_back(f.source);
  d->labels = RunLabels(paths);
  for (const BenchmarkFile& f : runs) d->summaries.push_back(Summarize(f));
  d->comparisons.resize(runs.size());
  for (size_t r = 1; r < runs.size(); ++r) {
    d->comparisons[r] = Compare(runs[0], runs[r]);
    // Common-mode drift is neither an improvement nor a regression.
    MarkCommonMode(
        DetectDrift(d->comparisons[r], alpha, SameBinaryOf(runs[0], runs[r])),
        &d->comparisons[r]);
  }
  OomSafeMap<std::string, size_t> metric_index;
  std::vector<std::string> benchmarks;
  OomSafeMap<std::string, size_t> bench_index;
  for (const auto& summary : d->summaries) {
    for (const BenchmarkMetrics& b : summary) {
      if (bench_index.try_emplace(b.name, benchmarks.size()).second) {
        benchmarks.push_back(b.name);
      }
      for (const auto& [m, unused] : b.metrics) {
        if (metric_index.try_emplace(m, d->metrics.size()).second) {
          d->metrics.push_back(m);
        }
      }
    }
  }
  d->rows.resize(d->metrics.size());
  for (auto& per_metric : d->rows) {
    per_metric.resize(benchmarks.size());
    for (size_t b = 0; b < benchmarks.size(); ++b) {
      per_metric[b].benchmark = benchmarks[b];
      per_metric[b].runs.assign(runs.size(), nullptr);
      per_metric[b].changes.assign(runs.size(), nullptr);
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const BenchmarkMetrics& b : d->summaries[r]) {
      if (!b.problem.empty()) {
        d->problems.push_back(
            absl::StrCat(b.name, " in ", d->labels[r], ": ", b.problem));
      }
      const size_t bi = bench_index[b.name];
      for (const auto& [m, stats] : b.metrics) {
        d->rows[metric_index[m]][bi].runs[r] = &stats;
      }
    }
    if (r == 0) continue;
    for (const BenchmarkComparison& bc : d->comparisons[r].benchmarks) {
      const size_t bi = bench_index[bc.name];
      for (const MetricComparison& m : bc.metrics) {
        auto it = metric_index.find(m.metric);
        if (it == metric_index.end()) continue;
        d->rows[it->second][bi].changes[r] = &m;
      }
    }
  }
  // The last run's change as the writers show it.
  const bool simulated = CountingSource(runs.front()) == "simulate";
  for (auto& per_metric : d->rows) {
    for (MetricRow& row : per_metric) {
      if (runs.size() > 1 && row.changes.back() != nullptr) {
        row.last =
            MakeComparisonRow(row.benchmark, *row.changes.back(), simulated);
      }
    }
  }
}

// Whether run `r` counted the metric of `rows` for some benchmark.
bool CountedIn(const std::vector<MetricRow>& rows, size_t r) {
  return std::any_of(rows.begin(), rows.end(), [&](const MetricRow& row) {
    return row.runs[r] != nullptr && row.runs[r]->median.has_value();
  });
}

// Whether every counted value of the metric of `rows` is 0 (and one is).
bool AllZero(const std::vector<MetricRow>& rows) {
  bool any = false;
  for (const MetricRow& row : rows) {
    for (const SideStats* s : row.runs) {
      if (s == nullptr || !s->median) continue;
      any = true;
      if (*s->median != 0 || std::any_of(s->samples.begin(), s->samples.end(),
                                         [](double v) { return v != 0; })) {
        return false;
      }
    }
  }
  return any;
}

// The rows of a shown metric that some run has, largest change of the last
// run first; rows without a change keep file order at the end.
std::vector<report_internal::Row> SortedRows(std::vector<MetricRow>& rows,
                                             size_t runs) {
  std::vector<MetricRow> present;
  for (MetricRow& row : rows) {
    if (std::none_of(row.runs.begin(), row.runs.end(),
                     [](const SideStats* s) { return s != nullptr; })) {
      continue;
    }
    const MetricComparison* last = row.changes.back();
    if (runs > 1 && last != nullptr && last->change_pct &&
        std::isfinite(*last->change_pct)) {
      row.sort_key = std::fabs(*last->change_pct);
    }
    present.push_back(std::move(row));
  }
  std::stable_sort(present.begin(), present.end(),
                   [](const MetricRow& a, const MetricRow& b) {
                     if (a.sort_key.has_value() != b.sort_key.has_value()) {
                       return a.sort_key.has_value();
                     }
                     return a.sort_key.value_or(0) > b.sort_key.value_or(0);
                   });
  return {present.begin(), present.end()};
}

// Which metrics are shown, which are 0 everywhere (one line each) and
// which were counted nowhere (grouped by reason).
enum class MetricKind { kShown, kZero, kNotCounted };
struct MetricKinds {
  std::vector<MetricKind> kinds;    // per metric of ReportData
  std::vector<std::string> listed;  // the metrics counted somewhere
  std::vector<report_internal::UncountedMetric> not_counted;
  // The summary's items: the shown metrics' benchmarks (pointing into
  // ReportData's rows).
  std::vector<report_internal::SummaryItem> items;
  size_t zero = 0;  // metrics 0 everywhere
};

MetricKinds KindsOf(const std::vector<BenchmarkFile>& runs, const ReportData& d,
                    bool simulated) {
  MetricKinds k;
  k.kinds.assign(d.metrics.size(), MetricKind::kShown);
  for (size_t m = 0; m < d.metrics.size(); ++m) {
    bool counted = false;
    for (size_t r = 0; r < runs.size(); ++r) {
      counted = counted || CountedIn(d.rows[m], r);
    }
    if (!counted) {
      k.kinds[m] = MetricKind::kNotCounted;
      report_internal::UncountedMetric u{d.metrics[m], {}};
      for (size_t r = 0; r < runs.size(); ++r) {
        u.reasons.push_back(
            report_internal::NotCountedReasons(runs[r], d.metrics[m]));
      }
      k.not_counted.push_back(std::move(u));
      continue;
    }
    k.listed.push_back(d.metrics[m]);
    if (AllZero(d.rows[m])) {
      k.kinds[m] = MetricKind::kZero;
      ++k.zero;
      continue;
    }
    for (const MetricRow& row : d.rows[m]) {
      if (std::none_of(row.runs.begin(), row.runs.end(),
                       [](const SideStats* s) { return s != nullptr; })) {
        continue;
      }
      k.items.push_back({d.metrics[m], row.last ? &*row.last : nullptr,
                         KindOfValue(d.metrics[m], simulated)});
    }
  }
  return k;
}

// The page's note on runs counted by the simulator (`run`'s source).
std::string SimulatedSourceNoteHtml(const BenchmarkFile& run) {
  return absl::StrCat(
      "<p class=\"note source\" id=\"source\">Counted by the simulator, "
      "not the PMU: ",
      Esc(SourceDescription(run)),
      ". Instructions, data accesses and branches are exact counts of the "
      "simulated program, cache and branch misses come from callgrind's "
      "models, metrics marked [estimate] are a cost model's estimates "
      "(est_cycles, est_ipc), and the times are valgrind's "
      "(docs/simulate.md).</p>\n");
}

}  // namespace

std::string RenderReport(const std::vector<BenchmarkFile>& runs,
                         const ReportOptions& options) {
  ReportData d;
  Collect(runs, options.alpha, &d);
  const std::vector<std::string>& labels = d.labels;

  // report_command.cc refuses runs of different sources.
  const bool simulated = CountingSource(runs.front()) == "simulate";
  const MetricKinds k = KindsOf(runs, d, simulated);
  const std::vector<MetricKind>& kinds = k.kinds;
  const std::vector<std::string>& listed = k.listed;
  const std::vector<report_internal::UncountedMetric>& not_counted =
      k.not_counted;

  report_internal::Page page(options.title, labels, options.alpha);
  if (runs.size() > 1) {
    page.Append(report_internal::SummaryHtml(k.items, labels.front(),
                                             labels.back(), options.alpha,
                                             not_counted.size(), k.zero));
  }
  if (!options.gates.empty()) {
    page.Gates(options.gates, labels.front(), labels.back());
  }
  size_t paired = 0;
  for (const Comparison& c : d.comparisons) {
    for (const BenchmarkComparison& bc : c.benchmarks) {
      for (const MetricComparison& mc : bc.metrics) {
        paired += mc.evidence == Evidence::kPaired;
      }
    }
  }
  page.RunsTable(runs, d.summaries, paired);
  if (simulated) page.Append(SimulatedSourceNoteHtml(runs.front()));
  page.Append(options.notes_html);
  const std::string profiles = ReportProfileSection(runs, labels);
  page.Nav(listed, !not_counted.empty(), !d.problems.empty(),
           !profiles.empty());
  page.Append(report_internal::NotCountedHtml(not_counted, labels));

  for (size_t m = 0; m < d.metrics.size(); ++m) {
    if (kinds[m] == MetricKind::kNotCounted) continue;
    if (kinds[m] == MetricKind::kZero) {
      size_t benchmarks = 0;
      for (const MetricRow& row : d.rows[m]) {
        benchmarks += std::any_of(
            row.runs.begin(), row.runs.end(),
            [](const SideStats* s) { return s != nullptr && s->median; });
      }
      page.ZeroMetric(d.metrics[m], benchmarks);
      continue;
    }
    // Runs that counted this metric nowhere: their reason, once.
    std::vector<std::string> notes;
    for (size_t r = 0; r < runs.size(); ++r) {
      if (!CountedIn(d.rows[m], r)) {
        notes.push_back(absl::StrCat("Not counted in ", labels[r], ": ",
                                     NotCountedInRun(runs[r], d.metrics[m])));
      }
    }
    const std::vector<report_internal::Row> rows =
        SortedRows(d.rows[m], runs.size());
    page.Metric(d.metrics[m], rows, notes, options.first_rows,
                options.page_rows,
                ValueKindText(KindOfValue(d.metrics[m], simulated)));
  }
  page.Append(profiles);
  page.Problems(d.problems);
  return page.Finish();
}

}  // namespace perfcounters::tools
