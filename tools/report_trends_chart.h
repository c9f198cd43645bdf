// report_trends_chart.h: one trend chart of `report --db` (an inline SVG):
// a series' runs in order on an x axis labelled with their commits, the
// value as % of the series' level on the y axis, runs that did not count
// the metric or have no value of it (SeriesPoint::absent) as gaps with a
// marker, and the change points with labels that never overlap or leave
// the chart.
#ifndef PERFCOUNTERS_TOOLS_REPORT_TRENDS_CHART_H_
#define PERFCOUNTERS_TOOLS_REPORT_TRENDS_CHART_H_

#include <string>
#include <vector>

#include "history.h"
#include "history_export.h"

namespace perfcounters::tools::report_internal {

// The chart of `s` with its change points `changes` (all of the same
// series), and the notes under it (multiplexed points, runs not counted).
// The SVG has class "trend-chart"; its parts carry classes the tests read:
// "cpl" change-point labels (data-lane), "xl" commit labels, "yl" y tick
// labels, "nc" markers of runs that did not count the metric, "ab" those of
// runs without a value of it, "pt" points.
std::string TrendChart(const Series& s,
                       const std::vector<const SeriesChange*>& changes);

}  // namespace perfcounters::tools::report_internal

#endif  // PERFCOUNTERS_TOOLS_REPORT_TRENDS_CHART_H_
