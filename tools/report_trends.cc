// report_trends.cc: `perfcounters report --db DB`: one self-contained HTML
// page with a trend chart (SVG, report_trends_chart.h) per benchmark and
// metric of the store, changed series first, an index linking to each,
// and at most --max-series charts (the page says how many were left out).
#include "report_trends.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "compare.h"
#include "compare_output.h"
#include "history.h"
#include "history_export.h"
#include "history_fingerprints.h"
#include "oom_safe_map.h"
#include "output_file.h"
#include "report_html.h"
#include "report_trends_chart.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;

constexpr const char kTrendsCss[] =
    "body{font:14px sans-serif;margin:1em}"
    "h2{font-size:16px;margin:1.2em 0 .2em}.note{color:#555}"
    ".trend{fill:none;stroke:#0072B2;stroke-width:1.5}"
    ".spread{stroke:#56B4E9;stroke-width:3;opacity:.6}"
    "circle{fill:#0072B2}circle.mux{fill:#fff;stroke:#D55E00;stroke-width:2}"
    ".cp{stroke:#D55E00;stroke-dasharray:4 3}"
    ".cpl{fill:#D55E00;font-size:11px;paint-order:stroke;stroke:#fff;"
    "stroke-width:3px}.ax{font-size:11px;fill:#333}"
    ".cp.env{stroke:#009E73;stroke-dasharray:1 2;stroke-width:2}"
    ".cpl.env{fill:#009E73}"
    ".yl,.xl{font-size:11px;fill:#59636e}.grid{stroke:#eef0f2}"
    ".tick{stroke:#8c959f}.nc{stroke:#cf222e;stroke-width:1.5}"
    ".ab{fill:#fff;stroke:#6e7781;stroke-width:1.5}"
    "#index ol{columns:2;font-size:13px}.changed{color:#D55E00}";

// Reads the series the arguments select; prints the error and returns
// false when the store or a selection is wrong.
bool ReadSelected(const TrendsArgs& args, std::string* store_name,
                  std::vector<Series>* out, RunFingerprints* prints) {
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      OpenHistoryStore(args.db, StoreAccess::kRead);
  if (!store.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(store.status().message()).c_str());
    return false;
  }
  SeriesQuery q;
  q.metric = args.metric;
  if (!args.benchmark.empty()) {
    absl::StatusOr<NameFilter> f = NameFilter::Create(args.benchmark);
    if (!f.ok()) {
      std::fprintf(stderr, "perfcounters report: --benchmark %s\n",
                   std::string(f.status().message()).c_str());
      return false;
    }
    q.benchmark = *std::move(f);
  }
  if (absl::Status s = CheckSeriesQuery(**store, q); !s.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(s.message()).c_str());
    return false;
  }
  absl::StatusOr<std::vector<Series>> series = ReadSeries(**store, q);
  absl::Status absent =
      series.ok() ? AddAbsentRuns(**store, *series) : series.status();
  if (!absent.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(absent.message()).c_str());
    return false;
  }
  // Every machine's: a fingerprint change is a known boundary.
  absl::StatusOr<RunFingerprints> read = RunFingerprints::Read(**store, "");
  if (!read.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(read.status().message()).c_str());
    return false;
  }
  *prints = *std::move(read);
  *store_name = (*store)->Name();
  *out = *std::move(series);
  return true;
}

// The series' heading text: "BM_a — instructions".
std::string SeriesName(const Series& s) {
  return absl::StrCat(Esc(s.benchmark), " &mdash; ", Esc(s.metric));
}

// "2 change points, largest +5.0%", "1 environment change", both, or ""
// without either.
std::string ChangesText(const std::vector<const SeriesChange*>& changes) {
  double largest = 0;
  size_t found = 0, environment = 0;
  for (const SeriesChange* c : changes) {
    if (c->change.kind == ChangeKind::kEnvironment) {
      ++environment;
      continue;
    }
    ++found;
    const double pct = c->change.ChangePercent();
    if (std::fabs(pct) > std::fabs(largest)) largest = pct;
  }
  std::string text;
  if (found > 0) {
    absl::StrAppend(&text, found,
                    found == 1 ? " change point" : " change points",
                    ", largest ", FormatChange(largest));
  }
  if (environment > 0) {
    absl::StrAppend(
        &text, text.empty() ? "" : "; ", environment,
        environment == 1 ? " environment change" : " environment changes");
  }
  return text;
}

}  // namespace

int RunReportTrends(const TrendsArgs& args) {
  std::string store_name;
  std::vector<Series> series;
  RunFingerprints prints;
  if (!ReadSelected(args, &store_name, &series, &prints)) return kExitUsage;
  const std::vector<SeriesChange> changes =
      FindSeriesChanges(series, args.cp, prints.Differ());
  OomSafeMap<const Series*, std::vector<const SeriesChange*>> by_series;
  for (const SeriesChange& c : changes) by_series[c.series].push_back(&c);
  auto changes_of = [&](size_t i) -> const std::vector<const SeriesChange*>& {
    static const std::vector<const SeriesChange*> kNone;
    auto it = by_series.find(&series[i]);
    return it == by_series.end() ? kNone : it->second;
  };
  // Changed series first; each group in the store's order (by benchmark,
  // metric, machine, branch).
  std::vector<size_t> order(series.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return !changes_of(i).empty(); });
  const size_t changed = by_series.size();
  size_t environment = 0;
  for (const SeriesChange& c : changes) {
    environment += c.change.kind == ChangeKind::kEnvironment;
  }
  const size_t shown = args.max_series == 0
                           ? series.size()
                           : std::min(series.size(), args.max_series);
  std::string html = absl::StrCat(
      "<!DOCTYPE html><html><head><meta charset=utf-8><title>", Esc(args.title),
      "</title><style>", kTrendsCss, "</style></head><body><h1>",
      Esc(args.title), "</h1><p class=note>Store ", Esc(store_name), ": ",
      series.size(), " series, ", changed, " of them with change points (",
      changes.size() - environment, " steps and drifts, the ",
      ChangeMethodName(args.cp.method), " method of docs/history.md; ",
      environment,
      " environment changes, where the machine's fingerprint changed); "
      "changed series first. Each point is a run's value (the median of its "
      "repetitions; the bar their range) on a y axis in % of the series' "
      "level; dashed lines mark change points, green dotted lines a "
      "changed fingerprint (a new level that is the machine's, not the "
      "code's); hollow points were "
      "multiplexed (an estimate); × marks a run that did not count the "
      "metric, ◇ one whose file had no value of it.</p>");
  if (shown < series.size()) {
    size_t changed_left_out = 0;
    for (size_t k = shown; k < order.size(); ++k) {
      changed_left_out += !changes_of(order[k]).empty();
    }
    absl::StrAppend(
        &html, "<p class=\"note left-out\" id=left-out data-left-out=",
        series.size() - shown, "><b>", series.size() - shown, " of ",
        series.size(), " series are not charted</b> (",
        changed_left_out == 0
            ? std::string("none of them with a change point")
            : absl::StrCat(changed_left_out, " of them with change points"),
        "): at most ", args.max_series,
        " a page (--max-series). See them with --max-series 0 (every series) "
        "or a larger number, or narrow the page with --benchmark REGEX and "
        "--metric NAME.</p>");
  }
  html += "<nav id=index><h2>Index</h2><ol>";
  for (size_t k = 0; k < shown; ++k) {
    const Series& s = series[order[k]];
    const std::string text = ChangesText(changes_of(order[k]));
    absl::StrAppend(&html, "<li><a href=\"#s-", k, "\">", SeriesName(s), "</a>",
                    text.empty() ? "" : " <span class=changed>", text,
                    text.empty() ? "" : "</span>", "</li>");
  }
  html += "</ol></nav>";
  for (size_t k = 0; k < shown; ++k) {
    const Series& s = series[order[k]];
    absl::StrAppend(
        &html, "<section id=\"s-", k, "\" class=series data-benchmark=\"",
        Esc(s.benchmark), "\" data-metric=\"", Esc(s.metric),
        "\" data-changes=", changes_of(order[k]).size(), "><h2>", SeriesName(s),
        "</h2><p class=note>machine ", Esc(s.machine), ", branch ",
        Esc(s.branch.empty() ? "(none)" : s.branch), ", ", s.points.size(),
        " runs</p>", report_internal::TrendChart(s, changes_of(order[k])),
        "</section>");
  }
  html += "</body></html>\n";
  if (!WriteOutput("report", args.output, html, {})) return kExitUsage;
  if (shown < series.size()) {
    std::fprintf(stderr,
                 "perfcounters report: %zu of %zu series not charted "
                 "(--max-series %zu; 0 charts every series)\n",
                 series.size() - shown, series.size(), args.max_series);
  }
  if (args.output != "-") {
    std::fprintf(stderr, "perfcounters report: wrote %s (%zu series)\n",
                 args.output.c_str(), shown);
  }
  return kExitOk;
}

}  // namespace perfcounters::tools
