// report_html.cc: the HTML of `perfcounters report` (see report_html.h).
#include "report_html.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "compare_gates.h"
#include "compare_output.h"

namespace perfcounters::tools::report_internal {
namespace {

constexpr int kChartWidth = 400;
constexpr int kBarStep = 14;  // vertical space per later run in a row chart

constexpr const char kCss[] = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       margin: 20px 32px; color: #1f2328; background: #fff; }
h1 { font-size: 24px; margin: 0 0 10px; }
h2 { font-size: 18px; margin: 32px 0 4px; padding-bottom: 3px;
     border-bottom: 1px solid #d0d7de; }
h2 .unit { font-weight: normal; color: #59636e; font-size: 14px; }
table { border-collapse: collapse; }
table.runs td, table.runs th, table.gates td, table.gates th {
  padding: 3px 10px; border: 1px solid #d0d7de; text-align: left; }
table.metric { margin: 6px 0; }
table.metric th { font-weight: 600; text-align: right; padding: 4px 8px;
                  border-bottom: 2px solid #d0d7de; vertical-align: bottom; }
table.metric td { padding: 2px 8px; text-align: right;
                  border-bottom: 1px solid #eef0f2; white-space: nowrap;
                  font-variant-numeric: tabular-nums; }
table.metric th.name, table.metric td.name { text-align: left; }
table.metric td.name { white-space: normal; overflow-wrap: anywhere;
                       max-width: 420px; min-width: 180px;
                       font-family: ui-monospace, monospace; font-size: 13px; }
table.metric td.chart, table.metric th.chart { padding: 0 8px; }
table.metric tr:hover td { background: #f6f8fa; }
.spread { color: #59636e; font-size: 12px; margin-left: 4px; }
.na { color: #8c959f; font-style: italic; }
.est { color: #D55E00; font-weight: bold; }
.worse { color: #cf222e; font-weight: 600; }
.better { color: #1a7f37; font-weight: 600; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px;
          vertical-align: -1px; margin-right: 6px; }
nav { margin: 10px 0; } nav a { margin-right: 14px; }
.note { color: #59636e; max-width: 1100px; }
.verdict { font-size: 16px; font-weight: 600; padding: 6px 10px;
           display: inline-block; border-radius: 4px; }
.verdict.pass { background: #dafbe1; color: #1a7f37; }
.verdict.fail { background: #ffebe9; color: #cf222e; }
.verdict.unknown { background: #fbefff; color: #8250df; }
.changed { color: #8250df; font-weight: 600; }
ul.summary li { margin: 2px 0; } ul.summary .unchanged b { font-weight: 600; }
section.zero p { margin: 14px 0 4px; }
.notcounted li { margin: 2px 0; }
details { margin: 6px 0; } summary { cursor: pointer; color: #0969da; }
svg text { font-size: 11px; fill: #59636e; }
)";

std::string Pct(double v) {
  if (v == 0) return "0%";
  const double a = std::fabs(v);
  if (a >= 10) return absl::StrFormat("%+.0f%%", v);
  if (a >= 1) return absl::StrFormat("%+.1f%%", v);
  return absl::StrFormat("%+.2f%%", v);
}

// 1, 2, 5 x 10^k at or above `v`.
double NiceCeil(double v) {
  if (!(v > 0)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (v <= m * magnitude * (1 + 1e-12)) return m * magnitude;
  }
  return 10 * magnitude;
}

// Min and max of a side's samples relative to `base` in %.
std::pair<double, double> RangePct(const SideStats& s, double base) {
  const auto [lo, hi] = std::minmax_element(s.samples.begin(), s.samples.end());
  return {(*lo / base - 1) * 100, (*hi / base - 1) * 100};
}

// The half range over repetitions in % of the median ("±1.2%").
std::string Spread(const SideStats& s) {
  if (s.samples.size() < 2 || !s.median || *s.median == 0) return "";
  const auto [lo, hi] = std::minmax_element(s.samples.begin(), s.samples.end());
  return absl::StrFormat("±%.1f%%",
                         (*hi - *lo) / 2 / std::fabs(*s.median) * 100);
}

std::string UnitText(const std::string& metric) {
  if (IsTimeValued(metric)) return "time per iteration";
  if (const TableMetric t = FindTableMetric(metric); t.metric != nullptr) {
    return std::string(t.metric->unit);
  }
  return "count per iteration, as the benchmark reported it";
}

}  // namespace

std::string Esc(absl::string_view s) {
  return absl::StrReplaceAll(EscapeControlBytes(s), {{"&", "&amp;"},
                                                     {"<", "&lt;"},
                                                     {">", "&gt;"},
                                                     {"\"", "&quot;"},
                                                     {"'", "&#39;"}});
}

Page::Page(const std::string& title, std::vector<std::string> labels,
           double alpha)
    : labels_(std::move(labels)), alpha_(alpha) {
  html_ = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>",
      Esc(title), "</title>\n<style>", kCss, "</style>\n</head>\n<body>\n<h1>",
      Esc(title), "</h1>\n");
}

void Page::RunsTable(
    const std::vector<BenchmarkFile>& runs,
    const std::vector<std::vector<BenchmarkMetrics>>& summaries,
    size_t paired) {
  html_ +=
      "<table class=\"runs\"><tr><th>Run</th><th>File</th><th>Date</th>"
      "<th>Host</th><th>Benchmarks</th><th>Input warnings</th></tr>\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    std::string date, host;
    for (const auto& [k, v] : runs[r].context) {
      if (k == "date") date = v;
      if (k == "host_name") host = v;
    }
    absl::StrAppendFormat(
        &html_,
        "<tr class=\"run\" data-run=\"%s\"><td><span class=\"swatch\" "
        "style=\"background:%s\"></span>%s%s</td><td>%s</td><td>%s</td>"
        "<td>%s</td><td>%d</td><td title=\"%s\">%d</td></tr>\n",
        Esc(labels_[r]), kPalette[r % 8], Esc(labels_[r]),
        r == 0 && runs.size() > 1 ? " (base)" : "", Esc(runs[r].source),
        Esc(date), Esc(host), summaries[r].size(),
        Esc(absl::StrJoin(runs[r].warnings, "\n")), runs[r].warning_count);
  }
  html_ += "</table>\n<p class=\"note\">";
  if (runs.size() > 1) {
    absl::StrAppend(
        &html_, "Each metric lists every benchmark, largest change of ",
        Esc(labels_.back()), " against ", Esc(labels_.front()),
        " first. Values are medians over repetitions with ± half their range; ",
        paired == 0
            ? "Δ is the change of the median; p is the two-sided "
              "Mann–Whitney U test"
            : absl::StrCat(
                  "these runs are the two sides of one perfcounters ab run, "
                  "paired by round: for ",
                  paired,
                  " comparison(s), those counted in every round, Δ is the "
                  "median of the rounds' new/base ratios and p the paired "
                  "sign test's on them (the others: Δ is the change of the "
                  "median, p the two-sided Mann–Whitney U test)"),
        " (“exact”: an exact counter whose repetitions agree within "
        "0.01 %; “n=1”: one sample a side, no test). Bars show each run's "
        "change against ",
        Esc(labels_.front()),
        " with whiskers from its fastest to slowest repetition (min–max); "
        "the grey band is the base run's own min–max. Coloured Δ: "
        "significant (p &lt; ",
        absl::StrFormat("%g", alpha_), ") and at least 1 %.");
  } else {
    html_ +=
        "Values are medians over repetitions with ± half their range; bars "
        "with whiskers from the smallest to the largest repetition.";
  }
  html_ +=
      " Absent or not-counted values are written as such, never drawn as "
      "0.</p>\n";
}

void Page::Gates(const std::vector<GateResult>& gates, const std::string& base,
                 const std::string& next) {
  const int code = ExitCode(gates);
  absl::StrAppend(&html_, "<section id=\"gates\"><h2>Gates (", Esc(next),
                  " against ", Esc(base), ")</h2>\n<p class=\"verdict ",
                  code == 0 ? "pass" : "fail", "\" data-exit-code=\"", code,
                  "\">",
                  code == 0   ? "All gates passed"
                  : code == 1 ? "FAILED: a gate was violated"
                              : "ERROR: a gate could not be applied",
                  " (exit ", code, ")</p>\n");
  html_ +=
      "<table class=\"gates\"><tr><th>Gate</th><th>Result</th><th>Checked</th>"
      "<th>Violated</th><th>Not significant</th><th>Not evaluated</th>"
      "<th>Details</th></tr>\n";
  for (const GateResult& g : gates) {
    std::string details = Esc(g.message);
    size_t shown = 0;
    for (const GateViolation& v : g.violations) {
      if (++shown > 10) break;
      absl::StrAppend(
          &details, details.empty() ? "" : "<br>", Esc(v.benchmark), ": ",
          g.relative ? Pct(v.value) : Esc(FormatValue(v.metric, v.value)),
          v.evidence == Evidence::kExact ? std::string(" (exact counter)")
          : v.evidence == Evidence::kOneSample
              ? std::string(" (one sample each)")
          : v.p ? absl::StrFormat(" (p=%.3f)", *v.p)
                : std::string());
    }
    if (g.violations.size() > 10) {
      absl::StrAppend(&details, "<br>and ", g.violations.size() - 10, " more");
    }
    absl::StrAppendFormat(
        &html_,
        "<tr class=\"gate\" data-status=\"%s\"><td><code>%s</code></td>"
        "<td class=\"%s\">%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>"
        "<td>%s</td></tr>\n",
        StatusName(g.status), Esc(g.gate),
        g.status == GateStatus::kPassed ? "better" : "worse",
        StatusName(g.status), g.checked, g.violations.size(),
        g.not_significant.size(), g.not_evaluated.size(), details);
  }
  html_ += "</table></section>\n";
}

void Page::Nav(const std::vector<std::string>& metrics, bool not_counted,
               bool problems, bool profiles) {
  html_ += "<nav>Metrics: ";
  for (const std::string& m : metrics) {
    absl::StrAppend(&html_, "<a href=\"#m-", Esc(m), "\">", Esc(m), "</a>");
  }
  if (not_counted) html_ += "<a href=\"#not-counted\">not counted</a>";
  if (profiles) html_ += "<a href=\"#profiles\">profiles</a>";
  if (problems) html_ += "<a href=\"#problems\">errors and skips</a>";
  html_ += "</nav>\n";
}

void Page::ZeroMetric(const std::string& metric, size_t benchmarks) {
  absl::StrAppend(&html_, "<section id=\"m-", Esc(metric),
                  "\" class=\"metric zero\" data-metric=\"", Esc(metric),
                  "\"><p><b>", Esc(metric), "</b> <span class=\"unit\">(",
                  UnitText(metric), ")</span>: 0 in every run and benchmark (",
                  benchmarks, benchmarks == 1 ? " benchmark" : " benchmarks",
                  " counted it).</p></section>\n");
}

std::string Page::AxisHeader(double limit, bool relative,
                             const std::string& metric) const {
  std::string svg = absl::StrFormat(
      "<svg class=\"axis\" width=\"%d\" height=\"16\" viewBox=\"0 0 %d 16\">",
      kChartWidth, kChartWidth);
  const int ticks = relative ? 5 : 3;
  for (int i = 0; i < ticks; ++i) {
    const double frac = static_cast<double>(i) / (ticks - 1);
    const double value = relative ? -limit + 2 * limit * frac : limit * frac;
    const double x = 4 + frac * (kChartWidth - 8);
    absl::StrAppendFormat(
        &svg, "<text x=\"%.1f\" y=\"12\" text-anchor=\"%s\">%s</text>", x,
        i == 0           ? "start"
        : i == ticks - 1 ? "end"
                         : "middle",
        relative ? Pct(value) : Esc(FormatValue(metric, value)));
  }
  return svg + "</svg>";
}

std::string Page::RowChart(const std::string& metric, const Row& row,
                           double limit) const {
  const size_t runs = labels_.size();
  const bool relative = runs > 1;
  const int bars = relative ? static_cast<int>(runs) - 1 : 1;
  const int height = 4 + bars * kBarStep;
  const double inner = kChartWidth - 8;
  auto x_of = [&](double v) {
    const double frac = relative ? (v + limit) / (2 * limit) : v / limit;
    return 4 + std::clamp(frac, 0.0, 1.0) * inner;
  };
  std::string svg = absl::StrFormat(
      "<svg class=\"row\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
      "data-benchmark=\"%s\" data-metric=\"%s\">",
      kChartWidth, height, kChartWidth, height, Esc(row.benchmark),
      Esc(metric));
  const SideStats* base = row.runs[0];
  const bool base_ok = base != nullptr && base->median && *base->median != 0;
  if (relative && base_ok && base->samples.size() >= 2) {
    const auto [lo, hi] = RangePct(*base, *base->median);
    absl::StrAppendFormat(&svg,
                          "<rect class=\"base-band\" x=\"%.1f\" y=\"0\" "
                          "width=\"%.1f\" height=\"%d\" fill=\"#e6e9ed\"/>",
                          x_of(lo), std::max(x_of(hi) - x_of(lo), 1.0), height);
  }
  if (relative) {
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" "
                          "stroke=\"#8c959f\"/>",
                          x_of(0), x_of(0), height);
  }
  for (int b = 0; b < bars; ++b) {
    const size_t r = relative ? static_cast<size_t>(b) + 1 : 0;
    const SideStats* s = row.runs[r];
    const double y = 2 + b * kBarStep;
    if (s == nullptr || !s->median || (relative && !base_ok)) {
      const char* why = s == nullptr ? "absent"
                        : !s->median ? "not counted"
                                     : "no base value";
      absl::StrAppendFormat(
          &svg,
          "<text class=\"missing\" data-run=\"%s\" x=\"%.1f\" "
          "y=\"%.1f\">%s</text>",
          Esc(labels_[r]), x_of(0) + 4, y + 10, why);
      continue;
    }
    const double base_median = relative ? *base->median : 1;
    const double value =
        relative ? (*s->median / base_median - 1) * 100 : *s->median;
    const double x0 = x_of(0);
    const double x1 = x_of(value);
    const MetricComparison* c = relative ? row.changes[r] : nullptr;
    std::string title = absl::StrCat(
        row.benchmark, " — ", labels_[r], ": ", FormatValue(metric, *s->median),
        relative
            ? absl::StrCat(", ", FormatChange(value), " against ", labels_[0])
            : std::string(),
        c != nullptr && !FormatP(*c).empty() ? absl::StrCat(", p ", FormatP(*c))
                                             : std::string(),
        ", ", s->samples.size(), " repetition(s)");
    absl::StrAppendFormat(
        &svg,
        "<rect class=\"bar\" data-run=\"%s\" data-value=\"%.17g\" "
        "data-change=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
        "height=\"10\" fill=\"%s\"><title>%s</title></rect>",
        Esc(labels_[r]), *s->median,
        relative ? absl::StrFormat("%.6g", value) : std::string(),
        std::min(x0, x1), y, std::max(std::fabs(x1 - x0), 1.5), kPalette[r % 8],
        Esc(title));
    if (s->samples.size() >= 2) {
      const auto [lo, hi] =
          relative
              ? RangePct(*s, base_median)
              : std::pair<double, double>(
                    *std::min_element(s->samples.begin(), s->samples.end()),
                    *std::max_element(s->samples.begin(), s->samples.end()));
      const double xl = x_of(lo), xh = x_of(hi), ym = y + 5;
      absl::StrAppendFormat(
          &svg,
          "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
          "%.1fV%.1f\" stroke=\"#1f2328\" fill=\"none\"/>",
          xl, ym, xh, xl, ym - 3, ym + 3, xh, ym - 3, ym + 3);
    }
    if (relative && std::fabs(value) > limit) {
      absl::StrAppendFormat(&svg,
                            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
                            "class=\"clipped\" style=\"fill:#fff\">%s</text>",
                            value > 0 ? x1 - 2 : x1 + 2, y + 9,
                            value > 0 ? "end" : "start", Pct(value));
    }
  }
  return svg + "</svg>";
}

std::string Page::Table(const std::string& metric, const std::vector<Row>& rows,
                        size_t begin, size_t end, double limit) const {
  const size_t runs = labels_.size();
  const bool relative = runs > 1;
  std::string t =
      "<table class=\"metric\"><thead><tr><th class=\"name\">"
      "Benchmark</th>";
  for (size_t r = 0; r < runs; ++r) {
    absl::StrAppend(&t, "<th><span class=\"swatch\" style=\"background:",
                    kPalette[r % 8], "\"></span>", Esc(labels_[r]),
                    "<br><span class=\"spread\">median ± spread</span></th>");
  }
  if (relative) {
    absl::StrAppend(&t, "<th>Δ ", Esc(labels_.back()), "<br>vs ",
                    Esc(labels_.front()), "</th><th>p</th>");
  }
  absl::StrAppend(
      &t, "<th class=\"chart\">",
      relative ? absl::StrCat("Δ median vs ", Esc(labels_[0]), " (%)")
               : absl::StrCat(Esc(metric), " (",
                              IsTimeValued(metric) ? "time" : "value", ")"),
      "<br>", AxisHeader(limit, relative, metric),
      "</th></tr></thead>\n<tbody>\n");
  for (size_t i = begin; i < end; ++i) {
    const Row& row = rows[i];
    absl::StrAppend(&t, "<tr data-benchmark=\"", Esc(row.benchmark),
                    "\"><td class=\"name\" title=\"", Esc(row.benchmark), "\">",
                    Esc(row.benchmark), "</td>");
    for (size_t r = 0; r < runs; ++r) {
      const SideStats* s = row.runs[r];
      if (s == nullptr || !s->median) {
        absl::StrAppend(&t, "<td class=\"na\">",
                        s == nullptr ? "absent" : "not counted", "</td>");
        continue;
      }
      // An estimate (multiplexed): the marker, and why in the title.
      const bool flagged = Flagged(*s);
      absl::StrAppend(
          &t, "<td", flagged ? " data-estimated" : "", " title=\"",
          s->samples.size(), " repetition(s)",
          flagged ? absl::StrCat("; ", Esc(FlagNote(*s))) : "", "\">",
          flagged
              ? absl::StrCat("<span class=\"est\">", kEstimateMarker, "</span>")
              : "",
          Esc(FormatValue(metric, *s->median)), "<span class=\"spread\">",
          Spread(*s), "</span></td>");
    }
    if (relative) {
      const std::optional<ComparisonRow>& last = row.last;
      std::string cls;
      if (last && Changed(*last->comparison, alpha_)) {
        cls = last->direction > 0   ? " class=\"worse\""
              : last->direction < 0 ? " class=\"better\""
                                    : " class=\"changed\" title=\"changed; "
                                      "which way is better is not known for "
                                      "this metric\"";
      }
      absl::StrAppend(&t, "<td", cls, " data-change>",
                      last ? last->change : "n/a", "</td><td>",
                      last ? Esc(last->p) : "", "</td>");
    }
    absl::StrAppend(&t, "<td class=\"chart\">", RowChart(metric, row, limit),
                    "</td></tr>\n");
  }
  return t + "</tbody></table>\n";
}

void Page::Metric(const std::string& metric, const std::vector<Row>& rows,
                  const std::vector<std::string>& notes, size_t first_rows,
                  size_t page_rows, const std::string& source) {
  const bool relative = labels_.size() > 1;
  // The axis: symmetric, covering the changes and their whiskers, but not
  // stretched by a few outliers (those are clipped and labelled).
  std::vector<double> extents;
  for (const Row& row : rows) {
    const SideStats* base = row.runs[0];
    double extent = 0;
    for (size_t r = relative ? 1 : 0; r < row.runs.size(); ++r) {
      const SideStats* s = row.runs[r];
      if (s == nullptr || !s->median) continue;
      if (!relative) {
        extent = std::max(
            extent, *std::max_element(s->samples.begin(), s->samples.end()));
      } else if (base != nullptr && base->median && *base->median != 0) {
        const auto [lo, hi] = RangePct(*s, *base->median);
        extent = std::max({extent, std::fabs(lo), std::fabs(hi)});
      }
    }
    if (std::isfinite(extent) && extent > 0) extents.push_back(extent);
  }
  std::sort(extents.rbegin(), extents.rend());
  double limit = extents.empty() ? 1 : extents[0];
  if (relative && extents.size() >= 5 && extents[0] > 4 * extents[4]) {
    limit = extents[4] * 1.25;
  }
  limit = relative ? NiceCeil(std::max(limit, 2.0)) : NiceCeil(limit);

  size_t regressions = 0, improvements = 0, unknown = 0;
  for (const Row& row : rows) {
    if (relative && row.last && Changed(*row.last->comparison, alpha_)) {
      const int d = row.last->direction;
      regressions += d > 0;
      improvements += d < 0;
      unknown += d == 0 && !row.last->comparison->common_mode;
    }
  }
  absl::StrAppend(
      &html_, "<section id=\"m-", Esc(metric),
      "\" class=\"metric\" data-metric=\"", Esc(metric), "\" data-rows=\"",
      rows.size(), "\"",
      source.empty() ? "" : absl::StrCat(" data-source=\"", Esc(source), "\""),
      "><h2>", Esc(metric), " <span class=\"unit\">(", UnitText(metric),
      ")</span>",
      source.empty()
          ? ""
          : absl::StrCat(" <span class=\"source\">[", Esc(source), "]</span>"),
      "</h2>\n");
  absl::StrAppend(&html_, "<p class=\"note\">", rows.size(), " benchmarks");
  if (relative) {
    absl::StrAppend(&html_, "; ", Esc(labels_.back()), " against ",
                    Esc(labels_.front()), ": <span class=\"worse\">",
                    regressions, " regressions</span>, <span class=\"better\">",
                    improvements, " improvements</span>",
                    unknown > 0
                        ? absl::StrCat(", <span class=\"changed\">", unknown,
                                       " changed, direction "
                                       "unknown</span>")
                        : std::string(),
                    " (significant, ≥ 1 %)");
  }
  html_ += ".</p>\n";
  if (std::any_of(rows.begin(), rows.end(), [](const Row& row) {
        return std::any_of(row.runs.begin(), row.runs.end(),
                           [](const SideStats* s) {
                             return s != nullptr && s->median && Flagged(*s);
                           });
      })) {
    absl::StrAppend(&html_, "<p class=\"note estimated\">",
                    Esc(EstimateLegend()),
                    "; the cell's tooltip says how much.</p>\n");
  }
  for (const std::string& n : notes) {
    absl::StrAppend(&html_, "<p class=\"note notcounted\">", Esc(n), "</p>\n");
  }
  const size_t first = std::min(first_rows, rows.size());
  html_ += Table(metric, rows, 0, first, limit);
  for (size_t begin = first; begin < rows.size(); begin += page_rows) {
    const size_t end = std::min(rows.size(), begin + page_rows);
    absl::StrAppend(&html_, "<details><summary>Benchmarks ", begin + 1, "–",
                    end, " of ", rows.size(),
                    relative ? " (smaller changes)" : "", "</summary>\n",
                    Table(metric, rows, begin, end, limit), "</details>\n");
  }
  html_ += "</section>\n";
}

void Page::Problems(const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  absl::StrAppend(&html_,
                  "<section id=\"problems\"><h2>Errors and skips</h2><ul>\n");
  for (const std::string& p : problems) {
    absl::StrAppend(&html_, "<li>", Esc(p), "</li>\n");
  }
  html_ += "</ul></section>\n";
}

std::string Page::Finish() {
  html_ += "</body>\n</html>\n";
  return std::move(html_);
}

}  // namespace perfcounters::tools::report_internal
