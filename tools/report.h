// report.h: `perfcounters report`: one self-contained HTML page (inline CSS
// and SVG, no scripts, nothing loaded from the network) that shows, per
// metric, every benchmark's median and spread in each run and the change of
// each later run against the first (Δ% with its p-value, error bars),
// largest changes first.
#ifndef PERFCOUNTERS_TOOLS_REPORT_H_
#define PERFCOUNTERS_TOOLS_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_gates.h"
#include "gbench_json.h"

namespace perfcounters::tools {

// Options of RenderReport().
struct ReportOptions {
  // Page title.
  std::string title = "perfcounters report";
  // Rows in each metric's first table (the largest changes); the other
  // benchmarks follow in collapsed sections of `page_rows` rows, so every
  // benchmark is on the page.
  size_t first_rows = 50;
  size_t page_rows = 500;
  // Significance level for "regression"/"improvement" counts.
  double alpha = 0.05;
  // Results of gates on the first vs the last run (shown at the top).
  std::vector<GateResult> gates;
  // HTML shown above the gates: what differs between the first and the
  // last run's environments (verdict_notes.h).
  std::string notes_html;
};

// Names for the runs: their file names, with as much of the path as tells
// equal file names apart ("a/results.json", "b/results.json"), and "#2",
// "#3" for the same path given twice.
std::vector<std::string> RunLabels(const std::vector<std::string>& paths);

// Renders the runs (in order; the first is the base every later run is
// compared with) as an HTML page. One section per metric that was counted
// somewhere: a table row per benchmark with each run's median ± spread, the
// change of the last run against the first (Δ% of the median, p-value) and
// a bar per later run with error bars (min-max over repetitions), sorted by
// the size of the change. A metric counted in no run is one line with the
// reason from the files' context (perfcounters.unavailable). Values that are
// absent or not counted are written as such, never drawn as 0. Bars carry
// data-run / data-benchmark / data-metric / data-value / data-change
// attributes so tools (and tests) can read the series from the DOM.
std::string RenderReport(const std::vector<BenchmarkFile>& runs,
                         const ReportOptions& options = {});

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_REPORT_H_
