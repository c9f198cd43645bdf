// report_trends_chart.cc: one trend chart of `report --db` (see
// report_trends_chart.h).
#include "report_trends_chart.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare.h"
#include "compare_output.h"
#include "report_html.h"
#include "statistics.h"

namespace perfcounters::tools::report_internal {
namespace {

// The chart's geometry (px): the plot lies between kLeft and kW - kRight,
// below the change points' label lanes and above the commit labels.
constexpr double kW = 720, kLeft = 70, kRight = 12, kTop = 4, kPlotH = 150,
                 kBottom = 26, kLane = 14;
// A label's width per character at 11 px (sans-serif digits and letters
// are narrower; wider is safe: labels are placed apart by this).
constexpr double kCharW = 6.6;
// The least span of the y axis in % of the level: a flat series (noise of
// ±0.05 %) stays a flat line, not a zigzag over the whole height.
constexpr double kMinSpanPct = 2.0;

// 1, 2 or 5 x 10^k at or above `raw`.
double NiceStep(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

// The y axis: in % of the level (relative), in the metric's values
// (a series whose level is 0 but not all of it), or the zero line.
struct YScale {
  enum class Mode { kRelative, kAbsolute, kZero } mode = Mode::kRelative;
  double level = 0;
  double lo = 0, hi = 0;  // in the axis' unit
  double step = 1;
  double Of(double v) const {
    return mode == Mode::kRelative ? (v - level) / std::fabs(level) * 100 : v;
  }
};

YScale MakeScale(const Series& s, const std::vector<size_t>& counted) {
  YScale y;
  std::vector<double> values;
  bool all_zero = true;
  for (size_t i : counted) {
    const SeriesPoint& p = s.points[i];
    values.push_back(*p.value);
    all_zero = all_zero && *p.value == 0 && p.lo == 0 && p.hi == 0;
  }
  if (all_zero) {
    y.mode = YScale::Mode::kZero;
    y.lo = -1;
    y.hi = 1;
    return y;
  }
  y.level = Median(values);
  if (y.level == 0) y.mode = YScale::Mode::kAbsolute;
  double lo = y.Of(*s.points[counted[0]].value), hi = lo;
  for (size_t i : counted) {
    const SeriesPoint& p = s.points[i];
    lo = std::min({lo, y.Of(p.lo), y.Of(*p.value)});
    hi = std::max({hi, y.Of(p.hi), y.Of(*p.value)});
  }
  const double min_span = y.mode == YScale::Mode::kRelative
                              ? kMinSpanPct
                              : std::max(std::fabs(hi - lo), 1e-300);
  if (hi - lo < min_span) {
    const double mid = (lo + hi) / 2;
    lo = mid - min_span / 2;
    hi = mid + min_span / 2;
  }
  y.step = NiceStep((hi - lo) / 4);
  y.lo = std::floor(lo / y.step + 1e-9) * y.step;
  y.hi = std::ceil(hi / y.step - 1e-9) * y.step;
  return y;
}

std::string TickLabel(const YScale& y, const std::string& metric, double t) {
  if (y.mode == YScale::Mode::kZero) return "0";
  if (y.mode == YScale::Mode::kAbsolute) return FormatValue(metric, t);
  if (std::fabs(t) < y.step * 1e-6) return "0%";
  const int decimals =
      std::max(0, -static_cast<int>(std::floor(std::log10(y.step) + 1e-9)));
  return absl::StrFormat("%+.*f%%", decimals, t);
}

// A change point's label, placed: its left edge and lane.
struct Label {
  double line_x = 0;
  double left = 0;
  double width = 0;
  size_t lane = 0;
  std::string text;
  std::string title;
  // A fingerprint change (ChangeKind::kEnvironment): class "cp env".
  bool environment = false;
};

// Places each label right of its line (left of it where it would leave the
// chart), inside the plot's width, in the first lane where it overlaps no
// label already there.
size_t PlaceLabels(std::vector<Label>& labels) {
  std::sort(labels.begin(), labels.end(),
            [](const Label& a, const Label& b) { return a.line_x < b.line_x; });
  std::vector<double> lane_end;  // the right edge of each lane's last label
  for (Label& l : labels) {
    l.width = static_cast<double>(l.text.size()) * kCharW;
    l.left = l.line_x + 3;
    if (l.left + l.width > kW - kRight) l.left = l.line_x - 3 - l.width;
    l.left = std::clamp(l.left, 2.0, std::max(2.0, kW - kRight - l.width));
    size_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] + 8 > l.left) ++lane;
    if (lane == lane_end.size()) lane_end.push_back(0);
    lane_end[lane] = l.left + l.width;
    l.lane = lane;
  }
  return lane_end.size();
}

// The commit labels under the plot, thinned so that they do not overlap.
std::string CommitLabels(const Series& s, double y,
                         double (*x)(size_t, size_t)) {
  const size_t n = s.points.size();
  auto name = [&](size_t i) {
    const SeriesPoint& p = s.points[i];
    return p.commit.empty() ? absl::StrCat("#", p.run_id)
                            : p.commit.substr(0, 7);
  };
  size_t widest = 1;
  for (size_t i = 0; i < n; ++i) widest = std::max(widest, name(i).size());
  const double w = static_cast<double>(widest) * kCharW + 12;
  const size_t fit = std::max<size_t>(
      1, static_cast<size_t>((kW - kLeft - kRight + w / 2) / w));
  const size_t step = (n + fit - 1) / fit;
  std::string svg;
  for (size_t i = 0; i < n; i += step) {
    const std::string text = name(i);
    const double half = static_cast<double>(text.size()) * kCharW / 2;
    const double cx = std::clamp(x(i, n), half + 2, kW - half - 2);
    absl::StrAppendFormat(
        &svg,
        "<line x1=%.1f x2=%.1f y1=%.1f y2=%.1f class=tick />"
        "<text x=%.1f y=%.1f class=xl text-anchor=middle>%s<title>%s %s"
        "</title></text>",
        x(i, n), x(i, n), y, y + 4, cx, y + 15, Esc(text),
        Esc(s.points[i].commit), Esc(s.points[i].time));
  }
  return svg;
}

double XOf(size_t i, size_t n) {
  const double width = kW - kLeft - kRight;
  return kLeft +
         (n <= 1 ? width / 2
                 : width * static_cast<double>(i) / static_cast<double>(n - 1));
}

// Points, their spread, and the line, broken where a run did not count
// (a marker there); counts the multiplexed points.
std::string PointsSvg(const Series& s, const YScale& scale, double bottom,
                      size_t* multiplexed) {
  const size_t n = s.points.size();
  auto y = [&](double v) {
    return bottom - kPlotH * (scale.Of(v) - scale.lo) / (scale.hi - scale.lo);
  };
  std::string svg;
  std::string path;
  bool pen_down = false;
  for (size_t i = 0; i < n; ++i) {
    const SeriesPoint& p = s.points[i];
    const double x = XOf(i, n);
    if (!p.value && p.absent) {
      // No value stored: a hollow diamond on the axis, the line broken.
      pen_down = false;
      absl::StrAppendFormat(
          &svg,
          "<path class=ab d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\"><title>%s %s: no "
          "%s in this run (absent from its file)</title></path>",
          x, bottom - 14, Esc(p.commit), Esc(p.time), Esc(s.metric));
      continue;
    }
    if (!p.value) {
      pen_down = false;
      absl::StrAppendFormat(
          &svg,
          "<path class=nc d=\"M%.1f %.1fl6 6m0 -6l-6 6\"><title>%s %s: %s "
          "not counted in this run</title></path>",
          x - 3, bottom - 9, Esc(p.commit), Esc(p.time), Esc(s.metric));
      continue;
    }
    if (p.hi > p.lo) {
      absl::StrAppendFormat(
          &svg, "<line x1=%.1f x2=%.1f y1=%.1f y2=%.1f class=spread />", x, x,
          y(p.lo), y(p.hi));
    }
    absl::StrAppendFormat(&path, "%s%.1f %.1f", pen_down ? "L" : "M", x,
                          y(*p.value));
    pen_down = true;
    const bool mux = Estimated(p.coverage);
    absl::StrAppendFormat(
        &svg,
        "<circle cx=%.1f cy=%.1f r=%s%s><title>%s %s: %s%s%s</title>"
        "</circle>",
        x, y(*p.value), mux ? "3.5 class=\"pt mux\"" : "2 class=pt",
        mux ? absl::StrFormat(" data-coverage=%g", *p.coverage) : "",
        Esc(p.commit), Esc(p.time), Esc(FormatValue(s.metric, *p.value)),
        mux ? " — " : "", Esc(CoverageNote(p.coverage)));
    *multiplexed += mux;
  }
  return absl::StrCat(svg, "<path class=trend d=\"", path, "\" />");
}

// The note under a chart: the level, runs not counted or without a value,
// estimates.
std::string ChartNotes(const Series& s, const YScale& scale, size_t counted,
                       size_t multiplexed) {
  const size_t n = s.points.size();
  const size_t absent = static_cast<size_t>(
      std::count_if(s.points.begin(), s.points.end(),
                    [](const SeriesPoint& p) { return p.absent; }));
  std::string notes;
  if (scale.mode == YScale::Mode::kRelative) {
    absl::StrAppend(&notes, "y: % of the level ",
                    Esc(FormatValue(s.metric, scale.level)),
                    " (the median of the runs). ");
  } else if (scale.mode == YScale::Mode::kZero) {
    absl::StrAppend(&notes, "Every counted run is 0. ");
  }
  if (counted + absent < n) {
    absl::StrAppend(&notes, n - counted - absent, " of ", n,
                    " runs did not count ", Esc(s.metric),
                    " (× on the axis, a gap in the line). ");
  }
  if (absent > 0) {
    absl::StrAppend(&notes, absent, " of ", n, " runs have no ", Esc(s.metric),
                    " (absent from their files: ◇ on the axis, a gap in the "
                    "line). ");
  }
  if (multiplexed > 0) {
    absl::StrAppend(&notes, multiplexed, " of ", counted,
                    " points (hollow) were multiplexed: estimates scaled from "
                    "part of the batch.");
  }
  return notes;
}

}  // namespace

std::string TrendChart(const Series& s,
                       const std::vector<const SeriesChange*>& changes) {
  std::vector<size_t> counted;
  for (size_t i = 0; i < s.points.size(); ++i) {
    if (s.points[i].value) counted.push_back(i);
  }
  if (counted.empty()) {
    return absl::StrCat(
        "<p class=note>", Esc(s.metric), " was not counted in any of its ",
        std::count_if(s.points.begin(), s.points.end(),
                      [](const SeriesPoint& p) { return !p.absent; }),
        " runs.</p>");
  }
  const size_t n = s.points.size();
  const YScale scale = MakeScale(s, counted);
  // Change-point labels first: their lanes set where the plot begins.
  std::vector<Label> labels;
  for (const SeriesChange* c : changes) {
    const size_t k = c->change.index;
    if (k >= counted.size()) continue;
    const bool drift = c->change.kind == ChangeKind::kDrift;
    Label l;
    l.line_x = drift || k == 0
                   ? XOf(counted[k], n)
                   : (XOf(counted[k - 1], n) + XOf(counted[k], n)) / 2;
    l.title = absl::StrCat(c->first_after->commit, " ", c->first_after->time);
    l.environment = c->change.kind == ChangeKind::kEnvironment;
    if (l.environment) {
      // The level there is the environment's: the label names the first
      // field that changed, the title every one.
      const EnvFieldChange* f =
          c->environment.empty() ? nullptr : &c->environment.front();
      l.text = absl::StrCat("env ", f ? f->field : "",
                            c->environment.size() > 1 ? " +" : "", " ",
                            FormatChange(c->change.ChangePercent()), " @ ",
                            c->first_after->commit.substr(0, 12));
      for (const EnvFieldChange& e : c->environment) {
        absl::StrAppend(&l.title, "\n", e.field, ": ",
                        e.before.value_or("(none)"), " -> ",
                        e.after.value_or("(none)"));
      }
    } else {
      l.text = absl::StrCat(drift ? "drift " : "",
                            FormatChange(c->change.ChangePercent()), " @ ",
                            c->first_after->commit.substr(0, 12),
                            absl::StrFormat(" (p %.2g)", c->change.p));
    }
    labels.push_back(std::move(l));
  }
  const size_t lanes = PlaceLabels(labels);
  const double top = kTop + static_cast<double>(lanes) * kLane + 4;
  const double bottom = top + kPlotH;
  auto y_axis = [&](double t) {
    return bottom - kPlotH * (t - scale.lo) / (scale.hi - scale.lo);
  };
  std::string svg = absl::StrFormat(
      "<svg class=trend-chart width=%.0f height=%.0f viewBox=\"0 0 %.0f %.0f\" "
      "role=img data-plot-top=%.1f data-plot-bottom=%.1f>",
      kW, bottom + kBottom, kW, bottom + kBottom, top, bottom);
  // The y axis: ticks, grid lines and their labels.
  for (double t = scale.lo; t <= scale.hi + scale.step * 1e-6;
       t += scale.step) {
    if (scale.mode == YScale::Mode::kZero && t != 0) continue;
    absl::StrAppendFormat(
        &svg,
        "<line x1=%.0f x2=%.0f y1=%.1f y2=%.1f class=grid />"
        "<text x=%.0f y=%.1f class=yl text-anchor=end>%s</text>",
        kLeft, kW - kRight, y_axis(t), y_axis(t), kLeft - 6, y_axis(t) + 4,
        Esc(TickLabel(scale, s.metric, t)));
  }
  absl::StrAppend(&svg, CommitLabels(s, bottom, XOf));
  size_t multiplexed = 0;
  absl::StrAppend(&svg, PointsSvg(s, scale, bottom, &multiplexed));
  // The lines first, then the labels over them (with a white halo, so
  // that a line of an upper lane does not strike a label through).
  auto lane_y = [](const Label& l) {
    return kTop + 11 + static_cast<double>(l.lane) * kLane;
  };
  for (const Label& l : labels) {
    absl::StrAppendFormat(
        &svg, "<line x1=%.1f x2=%.1f y1=%.1f y2=%.1f class=%s />", l.line_x,
        l.line_x, lane_y(l) + 3, bottom, l.environment ? "\"cp env\"" : "cp");
  }
  for (const Label& l : labels) {
    absl::StrAppendFormat(
        &svg,
        "<text x=%.1f y=%.1f class=%s data-lane=%d>%s<title>%s</title>"
        "</text>",
        l.left, lane_y(l), l.environment ? "\"cpl env\"" : "cpl", l.lane,
        Esc(l.text), Esc(l.title));
  }
  absl::StrAppend(&svg, "</svg>");
  const std::string notes = ChartNotes(s, scale, counted.size(), multiplexed);
  return absl::StrCat(svg, notes.empty() ? "" : "<p class=note>", notes,
                      notes.empty() ? "" : "</p>");
}

}  // namespace perfcounters::tools::report_internal
