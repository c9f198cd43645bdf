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
#include "drift.h"
#include "oom_safe_map.h"
#include "report_html.h"
#include "report_profile.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;
using report_internal::kPalette;

// One benchmark of one metric, with the size of the last run's change
// against the first for sorting.
struct MetricRow : report_internal::Row {
  std::optional<double> sort_key;
};

// The reason `metric` was not counted in a run, from the file's context.
std::string NotCountedInRun(const BenchmarkFile& file,
                            const std::string& metric) {
  const std::string reason = NotCountedReason(UnavailableOf(file), metric);
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

std::string RenderReport(const std::vector<BenchmarkFile>& runs,
                         const ReportOptions& options) {
  std::vector<std::string> paths;
  for (const BenchmarkFile& f : runs) paths.push_back(f.source);
  const std::vector<std::string> labels = RunLabels(paths);
  std::vector<std::vector<BenchmarkMetrics>> summaries;
  for (const BenchmarkFile& f : runs) summaries.push_back(Summarize(f));
  // Each later run against the first.
  std::vector<Comparison> comparisons(runs.size());
  for (size_t r = 1; r < runs.size(); ++r) {
    comparisons[r] = Compare(runs[0], runs[r]);
    // Common-mode drift is neither an improvement nor a regression.
    MarkCommonMode(DetectDrift(comparisons[r], options.alpha), &comparisons[r]);
  }

  // Metrics and benchmarks in order of first appearance.
  std::vector<std::string> metrics;
  OomSafeMap<std::string, size_t> metric_index;
  std::vector<std::string> benchmarks;
  OomSafeMap<std::string, size_t> bench_index;
  for (const auto& summary : summaries) {
    for (const BenchmarkMetrics& b : summary) {
      if (bench_index.try_emplace(b.name, benchmarks.size()).second) {
        benchmarks.push_back(b.name);
      }
      for (const auto& [m, unused] : b.metrics) {
        if (metric_index.try_emplace(m, metrics.size()).second) {
          metrics.push_back(m);
        }
      }
    }
  }
  // rows[metric][benchmark]
  std::vector<std::vector<MetricRow>> rows(metrics.size());
  for (auto& per_metric : rows) {
    per_metric.resize(benchmarks.size());
    for (size_t b = 0; b < benchmarks.size(); ++b) {
      per_metric[b].benchmark = benchmarks[b];
      per_metric[b].runs.assign(runs.size(), nullptr);
      per_metric[b].changes.assign(runs.size(), nullptr);
    }
  }
  std::vector<std::string> problems;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const BenchmarkMetrics& b : summaries[r]) {
      if (!b.problem.empty()) {
        problems.push_back(
            absl::StrCat(b.name, " in ", labels[r], ": ", b.problem));
      }
      const size_t bi = bench_index[b.name];
      for (const auto& [m, stats] : b.metrics) {
        rows[metric_index[m]][bi].runs[r] = &stats;
      }
    }
    if (r == 0) continue;
    for (const BenchmarkComparison& bc : comparisons[r].benchmarks) {
      const size_t bi = bench_index[bc.name];
      for (const MetricComparison& m : bc.metrics) {
        auto it = metric_index.find(m.metric);
        if (it == metric_index.end()) continue;
        rows[it->second][bi].changes[r] = &m;
      }
    }
  }

  report_internal::Page page(options.title, labels, options.alpha);
  page.RunsTable(runs, summaries);
  page.Append(options.notes_html);
  if (!options.gates.empty()) {
    page.Gates(options.gates, labels.front(), labels.back());
  }

  // Metrics counted nowhere: one line each, with the reason.
  std::vector<std::string> shown_metrics;
  std::vector<std::pair<std::string, std::string>> not_counted;
  for (size_t m = 0; m < metrics.size(); ++m) {
    bool counted = false;
    std::vector<size_t> runs_without;
    for (size_t r = 0; r < runs.size(); ++r) {
      bool in_run = false;
      for (const MetricRow& row : rows[m]) {
        if (row.runs[r] != nullptr && row.runs[r]->median) in_run = true;
      }
      counted = counted || in_run;
      if (!in_run) runs_without.push_back(r);
    }
    if (counted) {
      shown_metrics.push_back(metrics[m]);
      continue;
    }
    std::vector<std::string> reasons;
    for (size_t r : runs_without) {
      reasons.push_back(
          absl::StrCat(labels[r], ": ", NotCountedInRun(runs[r], metrics[m])));
    }
    not_counted.emplace_back(metrics[m], absl::StrJoin(reasons, " | "));
  }
  const std::string profiles = ReportProfileSection(runs, labels);
  page.Nav(shown_metrics, !not_counted.empty(), !problems.empty(),
           !profiles.empty());
  page.NotCounted(not_counted);

  for (size_t m = 0; m < metrics.size(); ++m) {
    if (std::find(shown_metrics.begin(), shown_metrics.end(), metrics[m]) ==
        shown_metrics.end()) {
      continue;
    }
    std::vector<MetricRow> present;
    for (MetricRow& row : rows[m]) {
      if (std::none_of(row.runs.begin(), row.runs.end(),
                       [](const SideStats* s) { return s != nullptr; })) {
        continue;
      }
      const MetricComparison* last = row.changes.back();
      if (runs.size() > 1 && last != nullptr && last->change_pct &&
          std::isfinite(*last->change_pct)) {
        row.sort_key = std::fabs(*last->change_pct);
      }
      present.push_back(std::move(row));
    }
    // Largest change first; rows without a change keep file order at the end.
    std::stable_sort(present.begin(), present.end(),
                     [](const MetricRow& a, const MetricRow& b) {
                       if (a.sort_key.has_value() != b.sort_key.has_value()) {
                         return a.sort_key.has_value();
                       }
                       return a.sort_key.value_or(0) > b.sort_key.value_or(0);
                     });
    // Runs that counted this metric nowhere: their reason, once.
    std::vector<std::string> notes;
    for (size_t r = 0; r < runs.size(); ++r) {
      bool in_run = false;
      for (const MetricRow& row : present) {
        if (row.runs[r] != nullptr && row.runs[r]->median) in_run = true;
      }
      if (!in_run) {
        notes.push_back(absl::StrCat("Not counted in ", labels[r], ": ",
                                     NotCountedInRun(runs[r], metrics[m])));
      }
    }
    std::vector<report_internal::Row> out_rows(present.begin(), present.end());
    page.Metric(metrics[m], out_rows, notes, options.first_rows,
                options.page_rows);
  }
  page.Append(profiles);
  page.Problems(problems);
  return page.Finish();
}

}  // namespace perfcounters::tools
