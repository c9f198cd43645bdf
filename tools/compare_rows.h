// compare_rows.h: the rows every writer of a comparison shows: one
// ComparisonRow per benchmark and metric, its cells made once, here (the
// metric with its tag, each side's value, the change, p, the repetitions,
// the gates that marked it), for compare's table and markdown, `history
// check`'s output and the HTML report; each writer escapes the cells for
// its format and lays them out.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_ROWS_H_
#define PERFCOUNTERS_TOOLS_COMPARE_ROWS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "compare_gates.h"
#include "counting_source.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {

// The gates that marked one benchmark's metric.
struct GateMarks {
  std::vector<std::string> failed;  // the gates it violated
  std::vector<std::string> held;    // "GATE (p=0.3, not significant)"
};
// (benchmark, metric) -> its marks.
using MarkIndex = OomSafeMap<std::pair<std::string, std::string>, GateMarks>;

// The gates of `gates` by the (benchmark, metric) they marked.
MarkIndex IndexMarks(const std::vector<GateResult>& gates);

// One benchmark's metric as the writers show it. Cells are plain text, not
// escaped.
struct ComparisonRow {
  std::string benchmark;
  // What the cells are made of.
  const MetricComparison* comparison = nullptr;
  // The metric, with its kind's tag when its values are not measured
  // ("instructions [simulated]", "est_cycles [estimate]"; TaggedMetric()).
  std::string metric;
  ValueKind kind = ValueKind::kMeasured;
  // Each side's median (FormatValue()), "" without one.
  std::string base_value, next_value;
  // Each side as compare shows it: "absent", "not counted", or the median
  // with `~` before an estimate and "(1 of 3 not counted)" after it.
  std::string base, next;
  // FormatChange(): "+1.23%", "n/a".
  std::string change;
  // FormatP(): "0.008", "<0.001", "exact", "n=1", "".
  std::string p;
  // "3 vs 3": the counted samples of each side.
  std::string reps;
  // A side's value is an estimate (Flagged()).
  bool estimated = false;
  // ChangeDirection(): +1 a regression, -1 an improvement, 0 neither.
  int direction = 0;
  // The gates that marked it; nullptr: none.
  const GateMarks* marks = nullptr;
};

// The row of `m`, a metric of `benchmark` in a comparison that is
// `simulated` (Comparison::simulated) or not.
ComparisonRow MakeComparisonRow(absl::string_view benchmark,
                                const MetricComparison& m, bool simulated,
                                const GateMarks* marks = nullptr);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_ROWS_H_
