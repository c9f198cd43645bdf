// compare.h: `perfcounters compare` without the command line: pairing the
// benchmarks of two Google Benchmark JSON files, per-metric statistics
// (median, change in %, Mann-Whitney U p-value, geometric-mean summary) and
// CI gates (`IPC<-2%`, `instructions>+0.5%`, `cpu_time>1.5ms`, ...).
//
// Metrics are real_time and cpu_time (nanoseconds, whatever time_unit the
// files use), every counter found in either file, and IPC, derived per
// repetition as instructions/cycles when both are counted (unless the files
// already carry an "IPC" counter). A metric that is absent or not counted on
// one side has no median there and no change: it is reported as such, never
// as 0.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_H_
#define PERFCOUNTERS_TOOLS_COMPARE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gbench_json.h"
#include "name_filter.h"

namespace perfcounters::tools {

// Whether a larger value of a metric is an improvement.
enum class Better { kLower, kHigher, kUnknown };

// Direction of a metric by name: times, cycles, instructions, misses,
// faults are better lower; IPC and *_per_second better higher.
Better BetterDirection(absl::string_view metric);

// How a p-value was computed.
enum class PMethod { kNone, kExact, kNormal };

// Two-sided Mann-Whitney U test. Exact distribution when there are no ties
// and the smaller sample has at most 8 values (SciPy's method="auto");
// otherwise the normal approximation with tie correction and continuity
// correction. Needs >= 1 value on each side; returns p in [0, 1].
struct MannWhitneyResult {
  double u = 0;  // U statistic of the first sample
  double p = 1;
  PMethod method = PMethod::kNone;
};
MannWhitneyResult MannWhitneyU(const std::vector<double>& a,
                               const std::vector<double>& b);

// Median of `values` (non-empty); the mean of the middle two for even sizes.
double Median(std::vector<double> values);

// One side of one metric of one benchmark.
struct SideStats {
  // The metric appears in at least one entry of this benchmark.
  bool present = false;
  // Counted samples (repetitions, or 1 for an aggregate-only file).
  std::vector<double> samples;
  // Samples marked not counted.
  size_t not_counted = 0;
  // Median of `samples`; empty when none was counted.
  std::optional<double> median;
  // True when the value comes from an aggregate entry (median or mean),
  // because the file has no per-repetition entries for this benchmark.
  bool from_aggregate = false;
};

// One metric of one benchmark, both sides.
struct MetricComparison {
  std::string metric;
  SideStats base;
  SideStats next;
  // (next - base) / base * 100; +-infinity when base is 0 and next is not;
  // empty when either median is missing.
  std::optional<double> change_pct;
  // When both sides have >= 2 counted samples.
  std::optional<double> p_value;
  PMethod p_method = PMethod::kNone;
};

// Which files a benchmark was found in.
enum class Pairing { kBoth, kBaseOnly, kNewOnly };

// One benchmark (one run_name).
struct BenchmarkComparison {
  std::string name;
  Pairing pairing = Pairing::kBoth;
  // Why a side has no usable data (error_occurred / skipped messages).
  std::string base_problem;
  std::string next_problem;
  std::vector<MetricComparison> metrics;
};

// Geometric mean of next/base over the benchmarks where a metric has a
// positive median on both sides.
struct GeomeanSummary {
  std::string metric;
  size_t benchmarks = 0;
  double change_pct = 0;
};

// The result of comparing two files.
struct Comparison {
  std::string base_source;
  std::string next_source;
  std::vector<BenchmarkComparison> benchmarks;
  std::vector<GeomeanSummary> geomean;
};

// Options for Compare().
struct CompareOptions {
  // Only benchmarks whose name the filter matches are compared.
  std::optional<NameFilter> filter;
};

// Pairs the benchmarks of `base` and `next` by run_name (order: base's
// order, then benchmarks only in next) and compares every metric.
Comparison Compare(const BenchmarkFile& base, const BenchmarkFile& next,
                   const CompareOptions& options = {});

// The metrics of one benchmark of one file (what Compare() uses per side).
struct BenchmarkMetrics {
  std::string name;
  // Why there is no data (error_occurred / skipped), if so.
  std::string problem;
  std::vector<std::pair<std::string, SideStats>> metrics;
};

// Every benchmark of `file` (file order) with its metrics.
std::vector<BenchmarkMetrics> Summarize(const BenchmarkFile& file);

// Every metric name found in a comparison (for gate validation).
std::vector<std::string> MetricNames(const Comparison& comparison);

// ---- Gates.

// A CI gate: the condition that FAILS the run.
//   [FILTER:]METRIC OP VALUE
// OP is <, <=, > or >=. VALUE ending in % is a change relative to base
// (IPC<-2%: IPC dropped more than 2%); otherwise it is an absolute limit on
// the new median (cpu_time>1.5ms, IPC<1.2), with a unit (ns, us, ms, s)
// required for real_time/cpu_time. FILTER is a regular expression searched
// in benchmark names (like --benchmark_filter), or `@geomean` for the
// geometric-mean summary (relative gates only).
struct Gate {
  std::string text;
  std::string filter_text;
  std::optional<NameFilter> filter;
  bool geomean = false;
  std::string metric;
  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual } op = Op::kLess;
  bool relative = false;
  // Percent for relative gates; for absolute gates in the metric's unit
  // (nanoseconds for times).
  double threshold = 0;

  // True when `value` satisfies the failure condition.
  bool Violated(double value) const;
};

// Parses a gate. `known_metrics` are the metric names of the comparison:
// the metric must be one of them (real_time, cpu_time and IPC are always
// known); since counter names may contain ':' (cycles:u), FILTER ends at the
// first ':' after which a known metric name follows.
absl::StatusOr<Gate> ParseGate(absl::string_view text,
                               const std::vector<std::string>& known_metrics);

// A benchmark (or the geomean) that violated a gate.
struct GateViolation {
  std::string benchmark;  // "@geomean" for the summary
  std::string metric;
  // The value compared with the threshold (a change in % or a median).
  double value = 0;
};

// A benchmark a gate applies to but could not be checked on, and why.
struct GateSkip {
  std::string benchmark;
  std::string reason;
};

// What one gate found.
struct GateResult {
  std::string gate;
  size_t checked = 0;
  std::vector<GateViolation> violations;
  std::vector<GateSkip> not_evaluated;
};

// Evaluates every gate on every benchmark it applies to.
std::vector<GateResult> EvaluateGates(const Comparison& comparison,
                                      const std::vector<Gate>& gates);

// ---- Output.

// Output formats of `perfcounters compare`.
enum class Format { kTable, kMarkdown, kJson };

// Renders the comparison and gate results. `color` adds ANSI colours (only
// for kTable).
std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates, Format format,
                   bool color);

// Formats a value of `metric` for people: times with a unit (1.23 us),
// counts with 4 significant digits and SI suffix (12.35M), IPC and ratios
// with 3 decimals.
std::string FormatValue(absl::string_view metric, double value);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_H_
