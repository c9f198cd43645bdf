// report.h: `perfcounters report`: one self-contained HTML page (inline CSS
// and SVG, no scripts, nothing loaded from the network) with a bar chart of
// time and of each counter per benchmark across one or more runs.
#ifndef PERFCOUNTERS_TOOLS_REPORT_H_
#define PERFCOUNTERS_TOOLS_REPORT_H_

#include <string>
#include <vector>

#include "gbench_json.h"

namespace perfcounters::tools {

// Options of RenderReport().
struct ReportOptions {
  // Page title.
  std::string title = "perfcounters report";
  // At most this many benchmarks per chart (the rest are listed as left
  // out, so a chart stays readable).
  size_t max_benchmarks = 60;
};

// Renders the runs (in order; each is one series, named after its file) as
// an HTML page. Every metric gets one chart: one row per benchmark, one bar
// per run, medians over repetitions, axis with unit, legend. A value that is
// absent or not counted in a run is drawn as a labelled gap, never as 0.
// Bars carry data-run / data-benchmark / data-metric / data-value
// attributes so tools (and tests) can read the series from the DOM.
std::string RenderReport(const std::vector<BenchmarkFile>& runs,
                         const ReportOptions& options = {});

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_REPORT_H_
