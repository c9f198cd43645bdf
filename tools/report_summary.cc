// report_summary.cc: the head of `perfcounters report`'s page (see
// report_summary.h).
#include "report_summary.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compare_output.h"
#include "report_html.h"
#include "statistics.h"

namespace perfcounters::tools::report_internal {
namespace {

// Items of one class shown by name in the summary, largest change first.
constexpr size_t kNamed = 5;

std::string Plural(size_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// "BM_x cpu_time +13% (p 0.008)", linked to the metric's section.
std::string ItemHtml(const SummaryItem& item) {
  const ComparisonRow& row = *item.row;
  const Evidence evidence = row.comparison->evidence;
  const std::string said =
      evidence == Evidence::kExact       ? " (exact counter)"
      : evidence == Evidence::kOneSample ? " (one sample a side)"
      : row.p.empty()                    ? ""
                      : absl::StrCat(" (p ", Esc(row.p), ")");
  return absl::StrCat("<a href=\"#m-", Esc(item.metric), "\">",
                      Esc(row.benchmark), " ", Esc(row.metric), "</a> ",
                      Esc(row.change), said);
}

// One line of the summary: the class's count and its largest items.
std::string ClassLine(const char* css, const std::string& what,
                      std::vector<const SummaryItem*> items,
                      const std::string& note) {
  std::stable_sort(
      items.begin(), items.end(),
      [](const SummaryItem* a, const SummaryItem* b) {
        return std::fabs(a->row->comparison->change_pct.value_or(0)) >
               std::fabs(b->row->comparison->change_pct.value_or(0));
      });
  std::vector<std::string> named;
  for (size_t i = 0; i < items.size() && i < kNamed; ++i) {
    named.push_back(ItemHtml(*items[i]));
  }
  std::string line = absl::StrCat("<li class=\"", css, "\" data-count=\"",
                                  items.size(), "\"><b>", what, "</b>", note);
  if (!named.empty()) {
    absl::StrAppend(&line, ": ", absl::StrJoin(named, ", "));
    if (items.size() > kNamed) {
      absl::StrAppend(&line, " and ", items.size() - kNamed, " more");
    }
  }
  return line + "</li>\n";
}

// Why the untestable items cannot be significant: "3 vs 3 repetitions
// allow p 0.100 at best, never below 0.05; 4 or more a side can".
std::string UntestableWhy(const std::vector<const SummaryItem*>& items,
                          double alpha) {
  size_t n1 = 0, n2 = 0;
  bool same = true;
  double best = 1;
  for (const SummaryItem* item : items) {
    const size_t a = item->row->comparison->base.samples.size(),
                 b = item->row->comparison->next.samples.size();
    if (item == items.front()) {
      n1 = a;
      n2 = b;
    }
    same = same && a == n1 && b == n2;
    best = std::min(best, MinimumP(a, b));
  }
  size_t enough = 2;
  while (enough < 64 && MinimumP(enough, enough) >= alpha) ++enough;
  return absl::StrCat(" (",
                      same ? absl::StrCat(n1, " vs ", n2, " repetitions allow")
                           : std::string("these repetitions allow"),
                      " p ", absl::StrFormat("%.3f", best),
                      " at best, never below ", absl::StrFormat("%g", alpha),
                      ": not tested, not unchanged; ", enough,
                      " or more repetitions a side can tell)");
}

// The summary's verdict: regressions, else changes of unknown direction,
// else changes that cannot be significant (`untestable_what`, "" for
// none), else none.
std::string VerdictHtml(size_t regressions, size_t unknown,
                        const std::string& untestable_what,
                        const std::string& untestable_why,
                        const std::string& base, const std::string& next) {
  if (regressions > 0) {
    return absl::StrCat(Plural(regressions, "regression", "regressions"),
                        " in ", Esc(next), " against ", Esc(base));
  }
  if (unknown > 0) {
    return absl::StrCat("No regression of a known direction; ",
                        Plural(unknown, "change", "changes"),
                        " of unknown direction in ", Esc(next), " against ",
                        Esc(base));
  }
  if (!untestable_what.empty()) {
    return absl::StrCat("No significant regression, but ", untestable_what,
                        " in ", Esc(next), " against ", Esc(base),
                        untestable_why);
  }
  return absl::StrCat("No regression in ", Esc(next), " against ", Esc(base));
}

}  // namespace

ChangeClass Classify(const MetricComparison* change, double alpha) {
  if (change == nullptr || !change->change_pct) {
    return ChangeClass::kNotCompared;
  }
  if (!Changed(*change, alpha)) {
    const bool untestable = change->evidence == Evidence::kUTest &&
                            std::fabs(*change->change_pct) >= 1.0 &&
                            MinimumP(change->base.samples.size(),
                                     change->next.samples.size()) >= alpha;
    return untestable ? ChangeClass::kUntestable : ChangeClass::kUnchanged;
  }
  if (change->common_mode) return ChangeClass::kCommonMode;
  const int d = ChangeDirection(*change);
  return d > 0   ? ChangeClass::kRegression
         : d < 0 ? ChangeClass::kImprovement
                 : ChangeClass::kUnknownDirection;
}

std::string SummaryHtml(const std::vector<SummaryItem>& items,
                        const std::string& base, const std::string& next,
                        double alpha, size_t not_counted, size_t all_zero) {
  std::vector<const SummaryItem*> by_class[7];
  // Changes of valgrind's times: the simulator's speed, not the code's.
  std::vector<const SummaryItem*> valgrind_times;
  for (const SummaryItem& item : items) {
    const ChangeClass c =
        Classify(item.row != nullptr ? item.row->comparison : nullptr, alpha);
    if (item.kind == ValueKind::kValgrindTime && c != ChangeClass::kUnchanged &&
        c != ChangeClass::kNotCompared) {
      valgrind_times.push_back(&item);
      continue;
    }
    by_class[static_cast<int>(c)].push_back(&item);
  }
  const auto count = [&](ChangeClass c) {
    return by_class[static_cast<int>(c)].size();
  };
  const size_t regressions = count(ChangeClass::kRegression);
  const size_t unknown = count(ChangeClass::kUnknownDirection);
  const auto& untestable = by_class[static_cast<int>(ChangeClass::kUntestable)];
  const std::string untestable_what =
      absl::StrCat(Plural(untestable.size(), "change", "changes"),
                   " of 1 % or more that cannot be significant");
  const std::string untestable_why =
      untestable.empty() ? "" : UntestableWhy(untestable, alpha);
  const std::string verdict = VerdictHtml(
      regressions, unknown, untestable.empty() ? "" : untestable_what,
      untestable_why, base, next);
  std::string html = absl::StrCat(
      "<section id=\"summary\"><h2>Summary</h2>\n<p class=\"verdict ",
      regressions > 0                      ? "fail"
      : unknown > 0 || !untestable.empty() ? "unknown"
                                           : "pass",
      "\">", verdict, "</p>\n<ul class=\"summary\">\n");
  html += ClassLine("worse", Plural(regressions, "regression", "regressions"),
                    by_class[static_cast<int>(ChangeClass::kRegression)], "");
  html += ClassLine(
      "better",
      Plural(count(ChangeClass::kImprovement), "improvement", "improvements"),
      by_class[static_cast<int>(ChangeClass::kImprovement)], "");
  html += ClassLine(
      "changed",
      absl::StrCat(Plural(unknown, "change", "changes"), ", direction unknown"),
      by_class[static_cast<int>(ChangeClass::kUnknownDirection)],
      " (significant, but which way is better is not known for these "
      "metrics: judge them yourself)");
  if (count(ChangeClass::kCommonMode) > 0) {
    html += ClassLine(
        "drift",
        Plural(count(ChangeClass::kCommonMode), "common-mode change",
               "common-mode changes"),
        by_class[static_cast<int>(ChangeClass::kCommonMode)],
        " (most benchmarks' times moved alike: the machine, not the code; "
        "a drift's exceptions, whose instructions changed, count only "
        "against the drift, as its statement says)");
  }
  if (!untestable.empty()) {
    html +=
        ClassLine("untestable", untestable_what, untestable, untestable_why);
  }
  if (!valgrind_times.empty()) {
    html += ClassLine(
        "valgrind",
        absl::StrCat(Plural(valgrind_times.size(), "change", "changes"),
                     " of valgrind&#39;s times"),
        valgrind_times,
        " (the time under the simulator, not the benchmark&#39;s: neither a "
        "regression nor an improvement; judge the simulated counts)");
  }
  absl::StrAppend(
      &html, "<li class=\"unchanged\" data-count=\"",
      count(ChangeClass::kUnchanged), "\"><b>", count(ChangeClass::kUnchanged),
      " unchanged</b> (no significant change of 1 % or more)</li>\n",
      "<li class=\"notcompared\" data-count=\"",
      count(ChangeClass::kNotCompared), "\"><b>",
      count(ChangeClass::kNotCompared),
      " not compared</b> (absent or not counted in one of the two runs)"
      "</li>\n");
  if (not_counted > 0) {
    absl::StrAppend(&html, "<li class=\"notcounted\" data-count=\"",
                    not_counted, "\"><b>",
                    Plural(not_counted, "metric", "metrics"),
                    " not counted</b> in any run (<a href=\"#not-counted\">"
                    "why</a>)</li>\n");
  }
  if (all_zero > 0) {
    absl::StrAppend(&html, "<li class=\"zero\" data-count=\"", all_zero,
                    "\"><b>", Plural(all_zero, "metric", "metrics"),
                    " 0 everywhere</b> (one line each below)</li>\n");
  }
  absl::StrAppend(&html,
                  "</ul>\n<p class=\"note\">Counted per benchmark and metric "
                  "of the last run against the first: significant (p &lt; ",
                  absl::StrFormat("%g", alpha),
                  ") and at least 1 %.</p></section>\n");
  return html;
}

std::vector<std::string> NotCountedReasons(const BenchmarkFile& file,
                                           const std::string& metric) {
  std::vector<std::string> reasons;
  for (const UnavailableGroup& group : UnavailableOf(file)) {
    if (!NotCountedReason({group}, metric).empty() &&
        std::find(reasons.begin(), reasons.end(), group.reason) ==
            reasons.end()) {
      reasons.push_back(group.reason);
    }
  }
  if (reasons.empty()) {
    reasons.push_back(
        "no reason recorded in the file (its context has no "
        "perfcounters.unavailable entry for it)");
  }
  return reasons;
}

std::string NotCountedHtml(const std::vector<UncountedMetric>& metrics,
                           const std::vector<std::string>& labels) {
  if (metrics.empty()) return "";
  // Each reason once: the metrics it holds for and the runs that gave it,
  // in order of first appearance.
  struct Group {
    std::string reason;
    std::vector<std::string> metrics;
    std::vector<bool> runs;
  };
  std::vector<Group> groups;
  for (const UncountedMetric& m : metrics) {
    for (size_t r = 0; r < m.reasons.size(); ++r) {
      for (const std::string& reason : m.reasons[r]) {
        auto g =
            std::find_if(groups.begin(), groups.end(),
                         [&](const Group& x) { return x.reason == reason; });
        if (g == groups.end()) {
          groups.push_back({reason, {}, std::vector<bool>(labels.size())});
          g = groups.end() - 1;
        }
        if (std::find(g->metrics.begin(), g->metrics.end(), m.metric) ==
            g->metrics.end()) {
          g->metrics.push_back(m.metric);
        }
        g->runs[r] = true;
      }
    }
  }
  std::vector<std::string> names;
  for (const UncountedMetric& m : metrics) names.push_back(Esc(m.metric));
  std::string html = absl::StrCat(
      "<section id=\"not-counted\"><h2>Not counted</h2>\n<p class=\"note\">",
      Plural(metrics.size(), "metric", "metrics"),
      " counted in no run: ", absl::StrJoin(names, ", "),
      ".</p><ul class=\"notcounted\">\n");
  for (const Group& g : groups) {
    std::vector<std::string> runs;
    for (size_t r = 0; r < labels.size(); ++r) {
      if (g.runs[r]) runs.push_back(Esc(labels[r]));
    }
    std::vector<std::string> escaped;
    for (const std::string& m : g.metrics) escaped.push_back(Esc(m));
    absl::StrAppend(&html, "<li data-metrics=\"",
                    Esc(absl::StrJoin(g.metrics, ",")), "\"><b>",
                    absl::StrJoin(escaped, ", "), "</b> (",
                    runs.size() == labels.size() ? std::string("every run")
                                                 : absl::StrJoin(runs, ", "),
                    "): ", Esc(g.reason), "</li>\n");
  }
  return html + "</ul></section>\n";
}

}  // namespace perfcounters::tools::report_internal
