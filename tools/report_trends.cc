// report_trends.cc: `perfcounters report --db DB`: one self-contained HTML
// page with a trend chart (SVG) per benchmark and metric of the store:
// the value of each run in run order, the range of its repetitions, and
// the change points (history_changes.h) marked with their change.
#include "report_trends.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "compare.h"
#include "compare_output.h"
#include "history.h"
#include "history_export.h"
#include "output_file.h"
#include "report_html.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;

// Charts on one page at most (the rest are counted, not dropped silently).
constexpr size_t kMaxCharts = 2000;

std::string Chart(const Series& s, const std::vector<SeriesChange>& changes) {
  constexpr double kW = 720, kH = 180, kLeft = 70, kRight = 10, kTop = 10,
                   kBottom = 30;
  std::vector<const SeriesPoint*> pts;
  for (const SeriesPoint& p : s.points) {
    if (p.value) pts.push_back(&p);
  }
  if (pts.empty()) {
    return absl::StrCat("<p class=note>", Esc(s.metric),
                        " was not counted in any run.</p>");
  }
  double lo = pts[0]->lo, hi = pts[0]->hi;
  for (const SeriesPoint* p : pts) {
    lo = std::min({lo, p->lo, *p->value});
    hi = std::max({hi, p->hi, *p->value});
  }
  if (hi == lo) {
    hi += std::fabs(hi) * 0.01 + 1e-9;
    lo -= std::fabs(lo) * 0.01 + 1e-9;
  }
  const size_t n = pts.size();
  auto x = [&](size_t i) {
    return kLeft + (n == 1 ? (kW - kLeft - kRight) / 2
                           : (kW - kLeft - kRight) * static_cast<double>(i) /
                                 static_cast<double>(n - 1));
  };
  auto y = [&](double v) {
    return kTop + (kH - kTop - kBottom) * (1 - (v - lo) / (hi - lo));
  };
  std::string svg = absl::StrFormat(
      "<svg width=%.0f height=%.0f role=img><text x=2 y=%.0f "
      "class=ax>%s</text><text x=2 y=%.0f class=ax>%s</text>",
      kW, kH, kTop + 8, Esc(FormatValue(s.metric, hi)), kH - kBottom,
      Esc(FormatValue(s.metric, lo)));
  std::string line;
  size_t multiplexed = 0;
  for (size_t i = 0; i < n; ++i) {
    const SeriesPoint& p = *pts[i];
    if (p.hi > p.lo) {
      absl::StrAppend(&svg,
                      absl::StrFormat("<line x1=%.1f x2=%.1f y1=%.1f y2=%.1f "
                                      "class=spread />",
                                      x(i), x(i), y(p.lo), y(p.hi)));
    }
    absl::StrAppend(&line, absl::StrFormat("%.1f,%.1f ", x(i), y(*p.value)));
    // A multiplexed point (an estimate): hollow and larger, with its
    // coverage.
    const bool mux = Estimated(p.coverage);
    absl::StrAppend(
        &svg,
        absl::StrFormat(
            "<circle cx=%.1f cy=%.1f r=%s%s><title>%s %s: "
            "%s%s%s</title></circle>",
            x(i), y(*p.value), mux ? "3.5 class=mux" : "2",
            mux ? absl::StrFormat(" data-coverage=%g", *p.coverage) : "",
            Esc(p.commit), Esc(p.time), Esc(FormatValue(s.metric, *p.value)),
            mux ? " — " : "", Esc(CoverageNote(p.coverage))));
    multiplexed += mux;
  }
  absl::StrAppend(&svg, "<polyline class=trend points=\"", line, "\" />");
  for (const SeriesChange& c : changes) {
    if (c.series != &s) continue;
    // A step between its runs; a drift from its first run.
    const bool drift = c.change.kind == ChangeKind::kDrift;
    const double cx = drift || c.change.index == 0
                          ? x(c.change.index)
                          : (x(c.change.index - 1) + x(c.change.index)) / 2;
    absl::StrAppend(
        &svg,
        absl::StrFormat("<line x1=%.1f x2=%.1f y1=%.0f y2=%.0f class=cp />"
                        "<text x=%.1f y=%.0f class=cpl>%s%s @ %s (p %.2g)"
                        "</text>",
                        cx, cx, kTop, kH - kBottom, cx + 3, kH - 8,
                        drift ? "drift " : "",
                        Esc(FormatChange(c.change.ChangePercent())),
                        Esc(c.first_after->commit.substr(0, 12)), c.change.p));
  }
  absl::StrAppend(&svg, "</svg>");
  if (multiplexed > 0) {
    absl::StrAppend(&svg, "<p class=note>", multiplexed, " of ", n,
                    " points (hollow) were multiplexed: estimates scaled from "
                    "part of the batch.</p>");
  }
  return svg;
}

}  // namespace

int RunReportTrends(const std::string& db, const std::string& benchmark,
                    const std::string& output, const std::string& title) {
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      OpenHistoryStore(db, StoreAccess::kRead);
  if (!store.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(store.status().message()).c_str());
    return kExitUsage;
  }
  SeriesQuery q;
  if (!benchmark.empty()) {
    absl::StatusOr<NameFilter> f = NameFilter::Create(benchmark);
    if (!f.ok()) {
      std::fprintf(stderr, "perfcounters report: --benchmark %s\n",
                   std::string(f.status().message()).c_str());
      return kExitUsage;
    }
    q.benchmark = *std::move(f);
  }
  if (absl::Status s = CheckSeriesQuery(**store, q); !s.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(s.message()).c_str());
    return kExitUsage;
  }
  absl::StatusOr<std::vector<Series>> series = ReadSeries(**store, q);
  if (!series.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 EscapeControlBytes(series.status().message()).c_str());
    return kExitUsage;
  }
  const std::vector<SeriesChange> changes = FindSeriesChanges(*series, {});
  std::string html = absl::StrCat(
      "<!DOCTYPE html><html><head><meta charset=utf-8><title>", Esc(title),
      "</title><style>body{font:14px sans-serif;margin:1em}"
      "h2{font-size:16px;margin:1.2em 0 .2em}.note{color:#555}"
      ".trend{fill:none;stroke:#0072B2;stroke-width:1.5}"
      ".spread{stroke:#56B4E9;stroke-width:3;opacity:.6}"
      "circle{fill:#0072B2}circle.mux{fill:#fff;stroke:#D55E00;stroke-width:2}."
      "cp{stroke:#D55E00;stroke-dasharray:4 3}"
      ".cpl{fill:#D55E00;font-size:11px}.ax{font-size:11px;fill:#333}"
      "</style></head><body><h1>",
      Esc(title), "</h1><p class=note>Store ", Esc((*store)->Name()), ": ",
      series->size(), " series, ", changes.size(),
      " change points (steps and drifts, the robust method of "
      "docs/history.md). Each point is a run's value (the median of its "
      "repetitions; the bar their range); dashed lines mark change "
      "points; hollow points were multiplexed (an estimate).</p>");
  size_t shown = 0;
  for (const Series& s : *series) {
    if (shown == kMaxCharts) break;
    ++shown;
    absl::StrAppend(&html, "<h2>", Esc(s.benchmark), " &mdash; ", Esc(s.metric),
                    "</h2><p class=note>machine ", Esc(s.machine), ", branch ",
                    Esc(s.branch.empty() ? "(none)" : s.branch), ", ",
                    s.points.size(), " runs</p>", Chart(s, changes));
  }
  if (shown < series->size()) {
    absl::StrAppend(&html, "<p class=note>", series->size() - shown,
                    " more series are not charted (at most ", kMaxCharts,
                    " a page): narrow them with --benchmark.</p>");
  }
  html += "</body></html>\n";
  if (!WriteOutput("report", output, html, {})) return kExitUsage;
  if (output != "-") {
    std::fprintf(stderr, "perfcounters report: wrote %s (%zu series)\n",
                 output.c_str(), series->size());
  }
  return kExitOk;
}

}  // namespace perfcounters::tools
