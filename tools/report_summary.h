// report_summary.h: what heads `perfcounters report`'s page (internal to
// report.cc): the verdict of the last run against the first over every
// benchmark and metric (regressions, improvements, changes whose better
// direction is unknown, unchanged, not compared, not counted), and the
// metrics counted in no run, grouped by reason so that each reason is said
// once.
#ifndef PERFCOUNTERS_TOOLS_REPORT_SUMMARY_H_
#define PERFCOUNTERS_TOOLS_REPORT_SUMMARY_H_

#include <cstddef>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_rows.h"
#include "counting_source.h"
#include "gbench_json.h"

namespace perfcounters::tools::report_internal {

// What the last run's change of one benchmark's metric is.
enum class ChangeClass {
  kRegression,
  kImprovement,
  // Changed (significant, >= 1 %) but the metric's better direction is not
  // known (a user counter such as tok_rate).
  kUnknownDirection,
  // Changed alike with most benchmarks' times (drift.h): not the code.
  kCommonMode,
  // A change of 1 % or more that the U test cannot find significant with
  // these repetitions at any size (MinimumP() >= alpha: 3 vs 3 allows
  // p 0.1 at best): neither a change nor unchanged.
  kUntestable,
  kUnchanged,
  // No change to tell: absent or not counted in one of the two runs.
  kNotCompared,
};

// `change` is null where the benchmark is in one run only.
ChangeClass Classify(const MetricComparison* change, double alpha);

// One benchmark's metric for the summary.
struct SummaryItem {
  std::string metric;
  // The last run's change against the first (report_internal::Row::last);
  // nullptr where the benchmark is in one of them only.
  const ComparisonRow* row = nullptr;
  // What kind of value it is (counting_source.h): the summary tags what is
  // not measured ("est_cycles [estimate]", "instructions [simulated]") and
  // lists changes of valgrind's times on their own line, never as
  // regressions or improvements of the benchmark.
  ValueKind kind = ValueKind::kMeasured;
};

// The summary section (id "summary"): a verdict line, the counts of each
// class over `items` (the metrics shown on the page), the largest
// regressions, improvements and changes of unknown direction by name, and
// `not_counted` metrics (counted in no run) and `all_zero` ones. Each
// named item carries its kind's tag; a changed kValgrindTime item is
// counted on a line of its own instead of its class's.
std::string SummaryHtml(const std::vector<SummaryItem>& items,
                        const std::string& base, const std::string& next,
                        double alpha, size_t not_counted, size_t all_zero);

// Why `metric` was not counted in `file`: the reasons of the file's
// perfcounters.unavailable entry that name it (or its inputs), without the
// names, or that the file gives no reason.
std::vector<std::string> NotCountedReasons(const BenchmarkFile& file,
                                           const std::string& metric);

// A metric counted in no run, with each run's reasons.
struct UncountedMetric {
  std::string metric;
  std::vector<std::vector<std::string>> reasons;  // per run
};

// The "Not counted" section (id "not-counted"): one item per reason, with
// the metrics it holds for and the runs it was given in (all: "any run").
std::string NotCountedHtml(const std::vector<UncountedMetric>& metrics,
                           const std::vector<std::string>& labels);

}  // namespace perfcounters::tools::report_internal

#endif  // PERFCOUNTERS_TOOLS_REPORT_SUMMARY_H_
