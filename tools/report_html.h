// report_html.h: the HTML of `perfcounters report` (internal to report.cc):
// Page writes the page section by section — runs, gates, one line per
// metric that is 0 everywhere, one table per metric with value columns, Δ% and
// p, and a small SVG per row (bars of each later run's change with min-max
// error bars) — into one self-contained document.
#ifndef PERFCOUNTERS_TOOLS_REPORT_HTML_H_
#define PERFCOUNTERS_TOOLS_REPORT_HTML_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_rows.h"
#include "gbench_json.h"

namespace perfcounters::tools::report_internal {

// Colour-blind-safe palette (Okabe-Ito), one colour per run.
inline constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73",
                                           "#CC79A7", "#56B4E9", "#D55E00",
                                           "#F0E442", "#000000"};

// HTML-escapes `s` (control bytes written as \xNN first).
std::string Esc(absl::string_view s);

// One benchmark of one metric.
struct Row {
  std::string benchmark;
  // Per run; nullptr where the benchmark is not in the run.
  std::vector<const SideStats*> runs;
  // Per run (index 0 unused): the comparison with the first run.
  std::vector<const MetricComparison*> changes;
  // The last run's comparison with the first as the writers show it (the
  // Δ and p columns, the summary); empty with one run, or where the
  // benchmark is not in both.
  std::optional<ComparisonRow> last;
};

class Page {
 public:
  Page(const std::string& title, std::vector<std::string> labels, double alpha);

  // `paired`: how many comparisons are paired by round (ab's files,
  // Evidence::kPaired); the legend names the test they used.
  void RunsTable(const std::vector<BenchmarkFile>& runs,
                 const std::vector<std::vector<BenchmarkMetrics>>& summaries,
                 size_t paired = 0);
  void Gates(const std::vector<GateResult>& gates, const std::string& base,
             const std::string& next);
  void Nav(const std::vector<std::string>& metrics, bool not_counted,
           bool problems, bool profiles = false);
  // A metric whose every counted value is 0: one line, no table.
  void ZeroMetric(const std::string& metric, size_t benchmarks);
  // One metric's section; `rows` sorted as they are to be shown.
  // `source`, when not empty, says in the heading who gave every value of
  // it ("simulated", "estimate: a cost model, not measured").
  void Metric(const std::string& metric, const std::vector<Row>& rows,
              const std::vector<std::string>& notes, size_t first_rows,
              size_t page_rows, const std::string& source = "");
  void Problems(const std::vector<std::string>& problems);
  // Appends a section written elsewhere (the profiles).
  void Append(const std::string& html) { html_ += html; }
  std::string Finish();

 private:
  std::string Table(const std::string& metric, const std::vector<Row>& rows,
                    size_t begin, size_t end, double limit) const;
  std::string RowChart(const std::string& metric, const Row& row,
                       double limit) const;
  std::string AxisHeader(double limit, bool relative,
                         const std::string& metric) const;

  std::vector<std::string> labels_;
  double alpha_;
  std::string html_;
};

}  // namespace perfcounters::tools::report_internal

#endif  // PERFCOUNTERS_TOOLS_REPORT_HTML_H_
