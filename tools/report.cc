// report.cc: the HTML/SVG report of `perfcounters report`.
#include "report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "compare.h"

namespace perfcounters::tools {
namespace {

// Colour-blind-safe palette (Okabe-Ito), one colour per run.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                    "#56B4E9", "#D55E00", "#F0E442", "#000000"};

std::string Esc(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"},
                                 {"<", "&lt;"},
                                 {">", "&gt;"},
                                 {"\"", "&quot;"},
                                 {"'", "&#39;"}});
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A value of one benchmark/metric in one run.
struct Cell {
  enum class State { kAbsent, kNotCounted, kValue } state = State::kAbsent;
  double value = 0;
  size_t samples = 0;
};

// 1, 2, 5 x 10^k tick step for [0, max] in about `target` steps.
double NiceStep(double max, int target) {
  const double raw = max / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

std::string Tick(double v) { return absl::StrFormat("%.6g", v); }

// Unit and divisor of a metric's axis.
std::pair<std::string, double> AxisUnit(const std::string& metric, double max) {
  if (metric == "real_time" || metric == "cpu_time") {
    if (max >= 1e9) return {"s", 1e9};
    if (max >= 1e6) return {"ms", 1e6};
    if (max >= 1e3) return {"us", 1e3};
    return {"ns", 1};
  }
  return {"", 1};
}

std::string Chart(const std::string& metric,
                  const std::vector<std::string>& run_names,
                  const std::vector<std::string>& benchmarks,
                  const std::vector<std::vector<Cell>>& cells,  // [b][run]
                  size_t left_out) {
  const size_t runs = run_names.size();
  double max = 0;
  size_t longest = 0;
  for (size_t b = 0; b < benchmarks.size(); ++b) {
    longest = std::max(longest, benchmarks[b].size());
    for (const Cell& c : cells[b]) {
      if (c.state == Cell::State::kValue) max = std::max(max, c.value);
    }
  }
  // Benchmarks of very different magnitude (max/min of their largest
  // values > 20) would leave most bars invisible on one linear axis: each
  // benchmark is then drawn relative to its largest run, labelled with the
  // absolute values.
  std::vector<double> bench_max(benchmarks.size(), 0);
  double min_positive = 0;
  for (size_t b = 0; b < benchmarks.size(); ++b) {
    for (const Cell& c : cells[b]) {
      if (c.state == Cell::State::kValue) {
        bench_max[b] = std::max(bench_max[b], c.value);
      }
    }
    if (bench_max[b] > 0 &&
        (min_positive == 0 || bench_max[b] < min_positive)) {
      min_positive = bench_max[b];
    }
  }
  const bool relative = min_positive > 0 && max / min_positive > 20;
  auto [unit, divisor] = AxisUnit(metric, max);
  if (relative) {
    unit = "% of the largest run of each benchmark";
    divisor = 1;
  }
  const double scaled_max = relative ? 100 : max / divisor;
  const double step = scaled_max > 0 ? NiceStep(scaled_max, 5) : 1;
  const double axis_max =
      scaled_max > 0 ? std::ceil(scaled_max / step) * step : 1;

  const int left = static_cast<int>(std::min<size_t>(longest, 48) * 7 + 16);
  const int plot_w = 560;
  const int bar_h = 14;
  const int group_h = static_cast<int>(runs) * bar_h + 10;
  const int top = 40;
  const int plot_h = static_cast<int>(benchmarks.size()) * group_h;
  const int width = left + plot_w + 90;
  const int height = top + plot_h + 40;
  auto x_of = [&](double scaled) { return left + scaled / axis_max * plot_w; };

  std::string svg = absl::StrFormat(
      "<svg class=\"chart\" data-metric=\"%s\" data-scale=\"%s\" width=\"%d\" "
      "height=\"%d\" "
      "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s per benchmark\">\n",
      Esc(metric), relative ? "relative" : "linear", width, height, width,
      height, Esc(metric));
  // Legend.
  int lx = left;
  for (size_t r = 0; r < runs; ++r) {
    absl::StrAppendFormat(
        &svg,
        "<g class=\"legend\"><rect x=\"%d\" y=\"10\" width=\"12\" "
        "height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"20\">%s</text></g>\n",
        lx, kPalette[r % 8], lx + 16, Esc(run_names[r]));
    lx += 16 + static_cast<int>(run_names[r].size()) * 7 + 20;
  }
  // Grid and x axis.
  for (double t = 0; t <= axis_max + step / 2; t += step) {
    const double x = x_of(t);
    absl::StrAppendFormat(
        &svg,
        "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
        "text-anchor=\"middle\">%s</text>\n",
        x, top - 4, x, top + plot_h, x, top + plot_h + 14, Tick(t));
  }
  absl::StrAppendFormat(&svg,
                        "<text class=\"axis-label\" x=\"%d\" y=\"%d\" "
                        "text-anchor=\"middle\">%s%s</text>\n",
                        left + plot_w / 2, top + plot_h + 32, Esc(metric),
                        unit.empty() ? "" : absl::StrCat(" (", unit, ")"));
  absl::StrAppendFormat(&svg,
                        "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                        "y2=\"%d\"/>\n",
                        left, top - 4, left, top + plot_h);
  // Bars, one series (<g>) per run.
  for (size_t r = 0; r < runs; ++r) {
    absl::StrAppendFormat(&svg,
                          "<g class=\"series\" data-run=\"%s\" fill=\"%s\">\n",
                          Esc(run_names[r]), kPalette[r % 8]);
    for (size_t b = 0; b < benchmarks.size(); ++b) {
      const Cell& c = cells[b][r];
      const int y =
          top + static_cast<int>(b) * group_h + 5 + static_cast<int>(r) * bar_h;
      if (c.state != Cell::State::kValue) {
        absl::StrAppendFormat(
            &svg,
            "<text class=\"missing\" data-benchmark=\"%s\" x=\"%d\" "
            "y=\"%d\">%s</text>\n",
            Esc(benchmarks[b]), left + 4, y + bar_h - 3,
            c.state == Cell::State::kAbsent ? "absent" : "not counted");
        continue;
      }
      const double w =
          relative ? (bench_max[b] > 0 ? c.value / bench_max[b] : 0) * plot_w
                   : x_of(c.value / divisor) - left;
      absl::StrAppendFormat(
          &svg,
          "<rect class=\"bar\" data-run=\"%s\" data-benchmark=\"%s\" "
          "data-metric=\"%s\" data-value=\"%.17g\" x=\"%d\" y=\"%d\" "
          "width=\"%.1f\" height=\"%d\"><title>%s, %s: %s</title></rect>"
          "<text class=\"value\" x=\"%.1f\" y=\"%d\">%s</text>\n",
          Esc(run_names[r]), Esc(benchmarks[b]), Esc(metric), c.value, left, y,
          std::max(w, 0.5), bar_h - 2, Esc(benchmarks[b]), Esc(run_names[r]),
          Esc(FormatValue(metric, c.value)), left + std::max(w, 0.5) + 4,
          y + bar_h - 3, Esc(FormatValue(metric, c.value)));
    }
    svg += "</g>\n";
  }
  // Benchmark names.
  for (size_t b = 0; b < benchmarks.size(); ++b) {
    std::string label = benchmarks[b];
    if (label.size() > 48) label = label.substr(0, 45) + "...";
    absl::StrAppendFormat(
        &svg,
        "<text class=\"name\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s"
        "<title>%s</title></text>\n",
        left - 8, top + static_cast<int>(b) * group_h + group_h / 2 + 4,
        Esc(label), Esc(benchmarks[b]));
  }
  svg += "</svg>\n";
  if (left_out > 0) {
    absl::StrAppend(&svg, "<p class=\"note\">", left_out,
                    " more benchmarks are not drawn.</p>\n");
  }
  return svg;
}

constexpr const char kCss[] = R"(
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
       margin: 24px 40px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 17px; margin: 28px 0 6px; border-bottom: 1px solid #ddd; }
table.runs { border-collapse: collapse; margin: 8px 0 16px; }
table.runs td, table.runs th { padding: 3px 10px; border: 1px solid #ddd;
                               text-align: left; }
.swatch { display: inline-block; width: 12px; height: 12px;
          vertical-align: middle; margin-right: 6px; }
nav a { margin-right: 12px; }
svg.chart { display: block; font-size: 12px; }
svg.chart text { fill: #222; }
svg.chart .tick, svg.chart .value { fill: #555; font-size: 11px; }
svg.chart .missing { fill: #999; font-style: italic; font-size: 11px; }
svg.chart .axis-label { font-weight: 600; }
svg.chart .grid { stroke: #e5e5e5; }
svg.chart .axis { stroke: #888; }
.note, .problem { color: #666; }
)";

}  // namespace

std::string RenderReport(const std::vector<BenchmarkFile>& runs,
                         const ReportOptions& options) {
  std::vector<std::string> run_names;
  std::vector<std::vector<BenchmarkMetrics>> summaries;
  for (const BenchmarkFile& f : runs) {
    run_names.push_back(BaseName(f.source));
    summaries.push_back(Summarize(f));
  }
  // Benchmarks and metrics in order of first appearance over the runs.
  std::vector<std::string> benchmarks, metrics;
  absl::flat_hash_map<std::string, size_t> bench_index, metric_index;
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
  // cells[metric][benchmark][run]
  std::vector<std::vector<std::vector<Cell>>> cells(
      metrics.size(), std::vector<std::vector<Cell>>(
                          benchmarks.size(), std::vector<Cell>(runs.size())));
  std::vector<std::string> problems;
  for (size_t r = 0; r < summaries.size(); ++r) {
    for (const BenchmarkMetrics& b : summaries[r]) {
      const size_t bi = bench_index[b.name];
      if (!b.problem.empty()) {
        problems.push_back(
            absl::StrCat(b.name, " in ", run_names[r], ": ", b.problem));
      }
      for (const auto& [m, stats] : b.metrics) {
        Cell& c = cells[metric_index[m]][bi][r];
        c.samples = stats.samples.size();
        if (stats.median) {
          c.state = Cell::State::kValue;
          c.value = *stats.median;
        } else {
          c.state = Cell::State::kNotCounted;
        }
      }
    }
  }

  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>",
      Esc(options.title), "</title>\n<style>", kCss,
      "</style>\n</head>\n<body>\n<h1>", Esc(options.title), "</h1>\n");
  html +=
      "<table class=\"runs\"><tr><th>Run</th><th>File</th><th>Date</th>"
      "<th>Host</th><th>Benchmarks</th></tr>\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    std::string date, host;
    for (const auto& [k, v] : runs[r].context) {
      if (k == "date") date = v;
      if (k == "host_name") host = v;
    }
    absl::StrAppendFormat(
        &html,
        "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>%s"
        "</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n",
        kPalette[r % 8], Esc(run_names[r]), Esc(runs[r].source), Esc(date),
        Esc(host), summaries[r].size());
  }
  html +=
      "</table>\n<p class=\"note\">Bars are medians over repetitions "
      "(or the median aggregate); times per iteration, counters as "
      "reported by the benchmark. Absent or not-counted values are "
      "labelled, never drawn as 0.</p>\n<nav>";
  for (const std::string& m : metrics) {
    absl::StrAppend(&html, "<a href=\"#m-", Esc(m), "\">", Esc(m), "</a>");
  }
  html += "</nav>\n";
  for (const std::string& p : problems) {
    absl::StrAppend(&html, "<p class=\"problem\">", Esc(p), "</p>\n");
  }
  for (size_t m = 0; m < metrics.size(); ++m) {
    // Benchmarks that have this metric in at least one run.
    std::vector<std::string> names;
    std::vector<std::vector<Cell>> rows;
    size_t with_metric = 0;
    for (size_t b = 0; b < benchmarks.size(); ++b) {
      const bool any = std::any_of(
          cells[m][b].begin(), cells[m][b].end(),
          [](const Cell& c) { return c.state != Cell::State::kAbsent; });
      if (!any) continue;
      ++with_metric;
      if (names.size() >= options.max_benchmarks) continue;
      names.push_back(benchmarks[b]);
      rows.push_back(cells[m][b]);
    }
    absl::StrAppend(
        &html, "<section id=\"m-", Esc(metrics[m]), "\"><h2>", Esc(metrics[m]),
        "</h2>\n",
        Chart(metrics[m], run_names, names, rows, with_metric - names.size()),
        "</section>\n");
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace perfcounters::tools
